import type { Readable, Writable } from 'node:stream';
import type { Caller } from '../policy/auth/caller.js';
import type { ToolServer } from '../server/server.js';
import { LineSplitter } from '../io/line-splitter.js';
import { DEFAULT_MAX_LISTEN_STREAMS, MessageStreamSession } from './message-stream.js';
import { RequestGroups } from './request-groups.js';
import { StdioFlow } from './stdio-flow.js';

export interface StdioServeOptions {
  input?: Readable;
  output?: Writable;
  /** Longest accepted message line (default 4 MiB). */
  maxLineBytes?: number;
  /** After stdin closes, how long calls already received may finish and answer (default 2 s). */
  drainMs?: number;
  /** Who is calling, by id (stdio servers take credentials from their environment, basic/index "Auth"): `ctx.caller` with method 'transport'. */
  principal?: string;
  /** Who is calling, as a whole caller (e.g. with a `tenant` or scopes from the environment); wins over `principal`. */
  caller?: Caller;
  /** Open `subscriptions/listen` streams at most (default 32); one more is answered with an error. */
  maxListenStreams?: number;
}

export interface StdioServerHandle {
  /** Resolves when the input closes (the client's shutdown signal). */
  readonly closed: Promise<void>;
  /**
   * Stops serving: at once, or gracefully with `{ graceMs }` (what `toolwright
   * serve` does on SIGTERM): stop reading stdin, let the calls already read
   * finish for up to `graceMs` (`ToolServer.drain`: then they are stopped and
   * answered with an error), write their answers, then stop. Resolves with `closed`.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
const OVERSIZED = Symbol('oversized line');
const INVALID_UTF8 = Symbol('line not UTF-8');

/**
 * Serves the tool server over newline-delimited JSON on stdin/stdout.
 * stdout carries protocol messages only; all logging goes to stderr.
 */
export function serveStdio(server: ToolServer, options: StdioServeOptions = {}): StdioServerHandle {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  // A stray console.log in a tool must not corrupt the protocol channel (stdio.mdx:
  // the server MUST NOT write anything to stdout that is not a valid MCP message).
  if (output === process.stdout) routeConsoleToStderr();
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const flow = new StdioFlow(input, output);
  const session = new MessageStreamSession(
    server,
    (json) => flow.send(json),
    'stdio',
    options.caller ?? options.principal,
    options.maxListenStreams ?? DEFAULT_MAX_LISTEN_STREAMS,
  );

  // Pipelined requests are handled a group at a time; after each group its audit records are
  // committed, so its answers (written by `flush`, a tick as well) leave before the next.
  const groups = new RequestGroups<string | typeof OVERSIZED | typeof INVALID_UTF8>(
    (line) => (line === OVERSIZED ? session.oversized(maxLineBytes) : line === INVALID_UTF8 ? session.invalidUtf8() : session.receive(line)),
    () => server.audit?.flush?.(),
    (full) => flow.backlog(full),
  );
  const splitter = new LineSplitter(
    maxLineBytes,
    (line) => groups.add(line),
    () => groups.add(OVERSIZED),
    () => groups.add(INVALID_UTF8),
  );

  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  const onData = (chunk: Buffer | string) => {
    splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    groups.start();
  };
  let finishing = false;
  const stop = () => {
    flow.flush();
    flow.open = false;
    session.close();
    resolveClosed();
  };
  const finish = () => {
    if (finishing) return;
    finishing = true;
    input.off('data', onData);
    splitter.end();
    groups.finish();
    // Answer what was already asked (`echo '…' | toolwright serve --stdio` works), then stop promptly.
    void session.drain(options.drainMs ?? 2_000).then(stop);
  };
  input.on('data', onData);
  input.once('end', finish);
  input.once('close', finish);
  output.on?.('error', () => {
    finishing = true;
    stop();
  }); // the client went away: EPIPE
  const close = ({ graceMs }: { graceMs?: number } = {}): Promise<void> => {
    if (graceMs === undefined) {
      finishing = true;
      input.off('data', onData);
      stop();
      return closed;
    }
    if (!finishing) {
      // Stop reading (a partial line is dropped); requests already read are handled.
      finishing = true;
      input.off('data', onData);
      input.pause();
      groups.finish();
    }
    void server
      .drain(graceMs)
      .then(() => session.drain(options.drainMs ?? 2_000))
      .then(stop);
    return closed;
  };
  return { closed, close };
}

function routeConsoleToStderr(): void {
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}
