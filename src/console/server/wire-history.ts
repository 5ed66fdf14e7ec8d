import type { WireDirection, WireMessage as JsonRpcMessage } from '../../client/wire-tap.js';
import type { WireEntry, WireKind } from '../api-types.js';

/** Most messages kept: older ones go first (a ring), so a long session does not grow without end. */
export const HISTORY_CAPACITY = 1000;
/** Most characters of JSON kept in all; the oldest entries go until the rest fit. */
const HISTORY_MAX_CHARS = 4_000_000;
/** A message longer than this is kept as the start of its JSON text, marked truncated. */
const ENTRY_MAX_CHARS = 200_000;
const PREVIEW_CHARS = 4_000;
/** Requests whose answer has not come yet, by direction and id: what method a result answers. */
const MAX_OPEN_REQUESTS = 1000;

/**
 * Keys whose values are secrets wherever they appear in a message (compared without case):
 * shown as "[redacted]" in the history and its copies. HTTP headers (the Authorization
 * header) never reach the history at all: the client's wire tap sees messages only.
 */
const SECRET_KEYS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'password',
  'passwd',
  'secret',
  'client_secret',
  'access_token',
  'refresh_token',
  'id_token',
  'api_key',
  'apikey',
  'x-api-key',
]);

/**
 * The JSON-RPC messages of the console's connection, both ways, for the History screen: each
 * with its kind, the method it is or answers, and (for a request the CLI can make) the
 * equivalent `toolwright` command. Bounded by count and by size.
 */
export class WireHistory {
  private readonly entries: WireEntry[] = [];
  /** Each entry's JSON length, in the same order. */
  private readonly sizes: number[] = [];
  private chars = 0;
  private seq = 0;
  /** Requests not answered yet: the method, and the command that repeats it (a result carries it too). */
  private readonly open = new Map<string, { method: string; command?: string }>();

  constructor(
    /** The `toolwright` command line for a request the client sent, if there is one. */
    private readonly commandFor: (method: string, params: Record<string, unknown>) => string | undefined,
    private readonly onEntry: (entry: WireEntry) => void,
  ) {}

  add(direction: WireDirection, message: JsonRpcMessage): void {
    const kind = kindOf(message);
    const id = 'id' in message && (typeof message.id === 'string' || typeof message.id === 'number') ? message.id : undefined;
    const answered = 'method' in message ? undefined : this.answered(direction, id);
    const method = 'method' in message ? message.method : answered?.method;
    const { value, text, truncated } = redactedCopy(message);
    const entry: WireEntry = {
      seq: ++this.seq,
      time: new Date().toISOString(),
      direction,
      kind,
      ...(method !== undefined ? { method } : {}),
      ...(id !== undefined ? { id } : {}),
      message: value,
      ...(truncated ? { truncated: true } : {}),
    };
    if (kind === 'request' && direction === 'sent' && method && !truncated) {
      const params = (value as { params?: unknown }).params;
      const command = this.commandFor(method, params && typeof params === 'object' ? (params as Record<string, unknown>) : {});
      if (command) entry.command = command;
    }
    if (answered?.command) entry.command = answered.command;
    if (kind === 'request' && id !== undefined) this.remember(direction, id, { method: method ?? '', ...(entry.command ? { command: entry.command } : {}) });
    this.push(entry, text.length);
    this.onEntry(entry);
  }

  list(): WireEntry[] {
    return [...this.entries];
  }

  clear(): void {
    this.entries.length = 0;
    this.sizes.length = 0;
    this.chars = 0;
    this.open.clear();
  }

  private push(entry: WireEntry, size: number): void {
    this.entries.push(entry);
    this.sizes.push(size);
    this.chars += size;
    while (this.entries.length > HISTORY_CAPACITY || (this.chars > HISTORY_MAX_CHARS && this.entries.length > 1)) {
      this.entries.shift();
      this.chars -= this.sizes.shift() ?? 0;
    }
  }

  /** A request's method by its id, so its result names it; the server's requests and ours are told apart by direction. */
  private remember(direction: WireDirection, id: string | number, request: { method: string; command?: string }): void {
    if (this.open.size >= MAX_OPEN_REQUESTS) this.open.delete(this.open.keys().next().value as string);
    this.open.set(`${direction}:${typeof id}:${id}`, request);
  }

  private answered(direction: WireDirection, id: string | number | undefined): { method: string; command?: string } | undefined {
    if (id === undefined) return undefined;
    const key = `${direction === 'sent' ? 'received' : 'sent'}:${typeof id}:${id}`;
    const request = this.open.get(key);
    this.open.delete(key);
    return request;
  }
}

function kindOf(message: JsonRpcMessage): WireKind {
  if ('method' in message) return 'id' in message ? 'request' : 'notification';
  return 'error' in message ? 'error' : 'result';
}

/** A JSON copy of the message with secret-named keys redacted; past ENTRY_MAX_CHARS, the start of its text. */
function redactedCopy(message: JsonRpcMessage): { value: unknown; text: string; truncated: boolean } {
  let text: string;
  try {
    text = JSON.stringify(message, (key, value: unknown) => (SECRET_KEYS.has(key.toLowerCase()) && value !== undefined ? '[redacted]' : value));
  } catch {
    text = '"[a message that is not JSON]"';
  }
  if (text.length <= ENTRY_MAX_CHARS) return { value: JSON.parse(text) as unknown, text, truncated: false };
  const preview = `${text.slice(0, PREVIEW_CHARS)}… (${text.length} characters; the rest is not kept)`;
  return { value: preview, text: preview, truncated: true };
}
