import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ListRootsResult } from '../../client/inputs/types.js';
import type { LogMessage } from '../../client/types.js';
import type { WireDirection, WireMessage as JsonRpcMessage } from '../../client/wire-tap.js';
import type { LogEntry, RootEntry } from '../api-types.js';
import { commandLineTarget, equivalentCommand, type CommandLineTarget } from './cli-equivalent.js';
import { ApiError } from './http-io.js';
import type { ConsoleTarget } from './target.js';
import { WireHistory } from './wire-history.js';

/** Most log messages kept for a page opened later; older ones go first. */
const LOG_CAPACITY = 500;
/** Most roots the person may offer, and the longest URI or name. */
const MAX_ROOTS = 100;
const MAX_ROOT_TEXT = 4096;

/**
 * What the console keeps for protocol debugging, across the page's visits: the wire history,
 * the server's log messages, and the roots the person offers the server (answered to
 * `roots/list` without asking anyone). Each change is an event on the page's streams.
 */
export class ConsoleDebugger {
  readonly history: WireHistory;
  private readonly logs: LogEntry[] = [];
  private logSeq = 0;
  private roots: RootEntry[] = [];
  private target: CommandLineTarget = { command: [], flags: [] };
  /** The log level the person chose for this connection (none until they choose). */
  level?: string;

  constructor(private readonly broadcast: (event: Record<string, unknown>) => void) {
    this.history = new WireHistory(
      (method, params) => equivalentCommand(this.target, method, params),
      (entry) => broadcast({ type: 'wire', entry }),
    );
  }

  /** A new connection starts: a fresh history (the handshake included) and log, and no log level chosen yet. */
  connecting(target: ConsoleTarget): void {
    this.target = commandLineTarget(target);
    this.history.clear();
    this.logs.length = 0;
    this.level = undefined;
    this.broadcast({ type: 'debugging-reset' });
  }

  /** The person cleared the history: every open page clears its copy too. */
  clearHistory(): void {
    this.history.clear();
    this.broadcast({ type: 'history-cleared' });
  }

  /** The client's wire tap. */
  wire(direction: WireDirection, message: JsonRpcMessage): void {
    this.history.add(direction, message);
  }

  log(message: LogMessage): void {
    const entry: LogEntry = {
      seq: ++this.logSeq,
      time: new Date().toISOString(),
      level: message.level,
      data: message.data,
      ...(message.logger ? { logger: message.logger } : {}),
    };
    this.logs.push(entry);
    if (this.logs.length > LOG_CAPACITY) this.logs.shift();
    this.broadcast({ type: 'log', message: entry });
  }

  logList(): LogEntry[] {
    return [...this.logs];
  }

  clearLogs(): void {
    this.logs.length = 0;
  }

  rootList(): RootEntry[] {
    return this.roots.map((r) => ({ ...r }));
  }

  /** `roots/list`, answered from the list the person keeps. */
  rootsAnswer(): ListRootsResult {
    return { roots: this.rootList() };
  }

  /** Replaces the roots: each a `file://` URI or an absolute path (made one), with an optional name. */
  setRoots(given: unknown): RootEntry[] {
    if (!Array.isArray(given)) throw new ApiError(400, 'roots must be an array of {uri, name?}');
    if (given.length > MAX_ROOTS) throw new ApiError(400, `at most ${MAX_ROOTS} roots`);
    this.roots = given.map((root, i) => readRoot(root, i));
    this.broadcast({ type: 'roots', roots: this.rootList() });
    return this.rootList();
  }
}

function readRoot(root: unknown, i: number): RootEntry {
  if (!root || typeof root !== 'object') throw new ApiError(400, `roots[${i}] must be {uri, name?}`);
  const { uri, name } = root as Record<string, unknown>;
  if (typeof uri !== 'string' || uri.trim() === '' || uri.length > MAX_ROOT_TEXT)
    throw new ApiError(400, `roots[${i}].uri must be a file:// URI or an absolute path`);
  if (name !== undefined && (typeof name !== 'string' || name.length > MAX_ROOT_TEXT)) throw new ApiError(400, `roots[${i}].name must be a string`);
  const text = uri.trim();
  let href: string;
  // roots.mdx: a root's uri MUST be a file:// URI.
  if (text.startsWith('file://')) {
    try {
      href = new URL(text).href;
    } catch {
      throw new ApiError(400, `roots[${i}].uri is not a valid file:// URI`);
    }
  } else if (isAbsolute(text)) href = pathToFileURL(text).href;
  else throw new ApiError(400, `roots[${i}].uri must be a file:// URI or an absolute path`);
  return { uri: href, ...(name ? { name } : {}) };
}
