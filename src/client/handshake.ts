import { ErrorCode } from '../jsonrpc/errors.js';
import type { Implementation } from '../protocol/meta.js';
import { Method } from '../protocol/methods.js';
import { isLegacyVersion, LATEST_LEGACY_VERSION, LATEST_MODERN_VERSION, LEGACY_VERSIONS, MODERN_VERSIONS, type Era } from '../protocol/versions.js';
import { ConnectionError, McpRpcError, TimeoutError } from './errors.js';
import { readDiscover, readInitialize } from './results.js';
import type { ClientSession } from './session.js';
import type { EraPreference } from './types.js';

/** What the client learned about the server when it connected. */
export interface ServerIdentity {
  era: Era;
  protocolVersion: string;
  capabilities: Record<string, unknown>;
  serverInfo?: Implementation;
  instructions?: string;
}

interface HandshakeOptions {
  preference: EraPreference;
  /** How long the stdio probe waits before concluding the server is legacy. */
  probeTimeoutMs: number;
  /** Told each request the handshake sends, before it is sent (to say what a timeout waited for). */
  onRequest?: (method: string) => void;
}

/**
 * Finds out which era the server speaks (versioning.mdx "Backward
 * Compatibility"): probe with a modern `server/discover`; a DiscoverResult
 * or a recognized modern error means modern, anything else means legacy and
 * the client falls back to `initialize`.
 */
export async function handshake(session: ClientSession, options: HandshakeOptions): Promise<ServerIdentity> {
  if (options.preference === 'legacy') return initializeLegacy(session, LATEST_LEGACY_VERSION, options.onRequest);
  const stream = session.transport.kind !== 'http';
  let fallback: string | undefined;
  try {
    let result: Record<string, unknown>;
    let version: string = LATEST_MODERN_VERSION;
    try {
      options.onRequest?.(Method.discover);
      result = await discover(session, version, stream && options.preference === 'auto' ? options.probeTimeoutMs : undefined);
    } catch (err) {
      // streamable-http.mdx "Backward Compatibility": a modern server that refuses our version
      // lists the ones it speaks; retry once with a modern one we share, rather than falling back.
      const shared = err instanceof McpRpcError && err.code === ErrorCode.UnsupportedProtocolVersion ? pickModern(supportedIn(err)) : undefined;
      if (shared === undefined) throw err;
      version = shared;
      options.onRequest?.(Method.discover);
      result = await discover(session, version, undefined);
    }
    const discovered = readDiscover(result);
    if (discovered.supportedVersions.includes(version)) {
      session.wire = { era: 'modern', protocolVersion: version };
      return { era: 'modern', protocolVersion: version, ...withoutVersions(discovered) };
    }
    fallback = pickLegacy(discovered.supportedVersions);
    if (!fallback || options.preference === 'modern') throw noCommonVersion(discovered.supportedVersions);
  } catch (err) {
    if (fallback !== undefined) throw err;
    if (options.preference === 'modern') throw withLegacyHint(err, stream);
    fallback = legacyFallback(err, stream);
  }
  return initializeLegacy(session, fallback, options.onRequest);
}

/** The era probe: `server/discover` at one modern version. */
function discover(session: ClientSession, version: string, timeoutMs: number | undefined): Promise<Record<string, unknown>> {
  return session.request(
    Method.discover,
    {},
    {
      wire: { era: 'modern', protocolVersion: version },
      // stdio: a legacy server may never answer a pre-initialize request (stdio.mdx).
      timeoutMs,
      cancellable: false,
    },
  );
}

/**
 * Told to speak modern, the client does not fall back; when the server's answer
 * is what a legacy server says, the error says so and what to do instead.
 */
function withLegacyHint(err: unknown, stream: boolean): unknown {
  let legacy: boolean;
  try {
    legacyFallback(err, stream);
    legacy = true;
  } catch {
    legacy = false;
  }
  if (!legacy) return err;
  const hint = `; the server does not answer as a ${LATEST_MODERN_VERSION} server and may speak only the legacy protocol (${LEGACY_VERSIONS.join(', ')}): connect with era "auto" (detects it) or "legacy"`;
  // Each error is this probe's own, made for it: its message can grow the hint, its type stays.
  if (err instanceof Error) err.message += hint;
  return err;
}

function supportedIn(err: McpRpcError): string[] {
  const supported = (err.data as { supported?: unknown } | undefined)?.supported;
  return Array.isArray(supported) ? supported.filter((v): v is string => typeof v === 'string') : [];
}

function pickModern(versions: string[]): string | undefined {
  return MODERN_VERSIONS.find((v) => versions.includes(v));
}

/** Decides, from how the probe failed, whether to fall back and with which version; rethrows otherwise. */
function legacyFallback(err: unknown, stream: boolean): string {
  if (err instanceof McpRpcError) {
    if (err.code === ErrorCode.UnsupportedProtocolVersion) {
      // A modern server without our version: use one it supports, never blindly initialize.
      const versions = supportedIn(err);
      const legacy = pickLegacy(versions);
      if (!legacy) throw noCommonVersion(versions);
      return legacy;
    }
    if (isRecognizedModernError(err, stream)) throw err;
    return LATEST_LEGACY_VERSION;
  }
  if (err instanceof TimeoutError && stream) return LATEST_LEGACY_VERSION;
  // streamable-http.mdx: a 4xx without a recognized modern JSON-RPC body means a legacy server.
  if (err instanceof ConnectionError && err.reason === 'http' && err.httpStatus !== undefined && err.httpStatus >= 400 && err.httpStatus < 500) {
    return LATEST_LEGACY_VERSION;
  }
  throw err;
}

/**
 * Errors only a modern server sends. On HTTP a 404 carrying -32601 is the
 * modern "unknown method" answer; on stdio -32601 is what legacy servers
 * commonly say to a request before `initialize`, so it means legacy there.
 */
function isRecognizedModernError(err: McpRpcError, stream: boolean): boolean {
  switch (err.code) {
    case ErrorCode.HeaderMismatch:
    case ErrorCode.MissingRequiredClientCapability:
    case ErrorCode.UnsupportedProtocolVersion:
      return true;
    case ErrorCode.MethodNotFound:
      return !stream && err.httpStatus === 404;
    default:
      return false;
  }
}

async function initializeLegacy(session: ClientSession, version: string, onRequest?: (method: string) => void): Promise<ServerIdentity> {
  const identity = session.identity;
  onRequest?.(Method.initialize);
  const result = await session.request(
    Method.initialize,
    {
      protocolVersion: version,
      capabilities: identity.capabilities,
      clientInfo: identity.clientInfo,
    },
    { wire: { era: 'legacy' } },
  );
  const info = readInitialize(result);
  if (!isLegacyVersion(info.protocolVersion)) {
    throw new ConnectionError(
      `the server chose protocol version ${JSON.stringify(info.protocolVersion.slice(0, 40))}, which this client does not support (it supports ${LEGACY_VERSIONS.join(', ')} and ${LATEST_MODERN_VERSION})`,
      'unsupported-version',
    );
  }
  const wire = { era: 'legacy' as const, protocolVersion: info.protocolVersion };
  session.wire = wire;
  await session.notify(Method.initialized, undefined, wire);
  if (identity.logLevel && info.capabilities.logging !== undefined) {
    await session.request(Method.setLogLevel, { level: identity.logLevel });
  }
  return { era: 'legacy', ...info };
}

function pickLegacy(versions: string[]): string | undefined {
  return LEGACY_VERSIONS.find((v) => versions.includes(v));
}

function noCommonVersion(supported: string[]): ConnectionError {
  const list =
    supported
      .slice(0, 10)
      .map((v) => v.slice(0, 40))
      .join(', ') || 'none';
  return new ConnectionError(
    `the server supports no protocol version this client speaks (server: ${list}; client: ${LATEST_MODERN_VERSION}, ${LEGACY_VERSIONS.join(', ')})`,
    'unsupported-version',
  );
}

function withoutVersions<T extends { supportedVersions: string[] }>(info: T): Omit<T, 'supportedVersions'> {
  const { supportedVersions: _ignored, ...rest } = info;
  return rest;
}
