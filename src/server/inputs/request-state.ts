import { nodeCrypto } from '../../runtime/lazy-crypto.js';
import { ErrorCode, RpcError } from '../../jsonrpc/errors.js';

/**
 * `requestState` for multi round-trip requests (mrtr.mdx "Server Requirements"):
 * attacker-controlled on the way back, so it is HMAC-signed, expires, and is
 * bound to the tool, a digest of the arguments and the principal. It carries
 * the answers of earlier rounds, so the server keeps nothing between rounds.
 */
export interface StatePayload {
  /** Tool name. */
  t: string;
  /** sha256 of the canonical arguments. */
  a: string;
  /** Principal, or "" when anonymous. */
  p: string;
  /** Expiry, ms since the epoch. */
  exp: number;
  /** Nonce: every round's state differs. */
  n: string;
  /** Answers collected in earlier rounds, by input key. */
  ans: Record<string, unknown>;
}

export interface StateBinding {
  tool: string;
  args: unknown;
  principal?: string;
}

const MAX_STATE_BYTES = 256 * 1024;

export class RequestStateCodec {
  private keyBytes?: Buffer;

  constructor(
    private readonly secret: Buffer | string | undefined,
    private readonly ttlMs: number,
  ) {}

  /** A per-process random key unless one is given: state minted by another process (or before a restart) is refused. */
  private get key(): Buffer {
    return (this.keyBytes ??= this.secret === undefined ? nodeCrypto().randomBytes(32) : Buffer.from(this.secret));
  }

  seal(binding: StateBinding, answers: Record<string, unknown>): string {
    const payload: StatePayload = {
      t: binding.tool,
      a: digest(binding.args),
      p: binding.principal ?? '',
      exp: Date.now() + this.ttlMs,
      n: nodeCrypto().randomBytes(9).toString('base64url'),
      ans: answers,
    };
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.sign(body).toString('base64url')}`;
  }

  /** Returns the earlier answers, or throws -32602 for state that is forged, expired or from another call. */
  open(state: unknown, binding: StateBinding): Record<string, unknown> {
    if (typeof state !== 'string' || state.length > MAX_STATE_BYTES) throw invalidState('requestState must be the string the server sent');
    const dot = state.lastIndexOf('.');
    const body = state.slice(0, dot);
    const mac = Buffer.from(state.slice(dot + 1), 'base64url');
    const expected = this.sign(body);
    if (dot <= 0 || !/^[A-Za-z0-9_-]+$/.test(state.slice(dot + 1)) || mac.length !== expected.length || !nodeCrypto().timingSafeEqual(mac, expected)) {
      throw invalidState('requestState integrity check failed');
    }
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as StatePayload;
    if (payload.exp < Date.now()) throw invalidState('requestState has expired; call the tool again without it');
    if (payload.t !== binding.tool || payload.a !== digest(binding.args) || payload.p !== (binding.principal ?? '')) {
      throw invalidState('requestState belongs to a different call (tool, arguments or caller differ)');
    }
    return payload.ans ?? {};
  }

  private sign(body: string): Buffer {
    return nodeCrypto().createHmac('sha256', this.key).update(body).digest();
  }
}

function invalidState(message: string): RpcError {
  return new RpcError(ErrorCode.InvalidParams, message);
}

/** sha256 of JSON with sorted keys, so key order cannot change the binding. */
function digest(value: unknown): string {
  return nodeCrypto().createHash('sha256').update(canonicalJson(value)).digest('base64url');
}

function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
}
