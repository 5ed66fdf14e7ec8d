import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import { isModernVersion, MODERN_VERSIONS } from './versions.js';

/** Reserved `_meta` keys (spec 2026-07-28 basic/index "_meta"). */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

export interface Implementation {
  name: string;
  version: string;
  title?: string;
  [key: string]: unknown;
}

export type ClientCapabilities = Record<string, unknown> & {
  elicitation?: Record<string, unknown>;
  sampling?: Record<string, unknown>;
  roots?: Record<string, unknown>;
};

export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function isLogLevel(v: unknown): v is LogLevel {
  return typeof v === 'string' && (LOG_LEVELS as readonly string[]).includes(v);
}

/** What a modern request says about itself in `_meta`. */
export interface RequestEnvelope {
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  logLevel?: LogLevel;
}

export function getMeta(params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const meta = params?._meta;
  return meta !== null && typeof meta === 'object' && !Array.isArray(meta) ? (meta as Record<string, unknown>) : undefined;
}

/** True when a request claims the modern era by carrying per-request protocol fields. */
export function hasModernClaim(params: Record<string, unknown> | undefined): boolean {
  const meta = getMeta(params);
  return meta !== undefined && (META.protocolVersion in meta || META.clientCapabilities in meta);
}

/**
 * Validates the per-request envelope. Missing or malformed required fields are
 * -32602 (HTTP 400); a version we do not serve is -32022 with `data.supported`.
 */
export function readEnvelope(params: Record<string, unknown> | undefined): RequestEnvelope {
  const meta = getMeta(params);
  if (!meta) {
    throw envelopeError(`params._meta is required and must carry "${META.protocolVersion}" and "${META.clientCapabilities}"`);
  }
  const version = meta[META.protocolVersion];
  if (typeof version !== 'string' || version === '') {
    throw envelopeError(`_meta "${META.protocolVersion}" is required and must be a non-empty string`);
  }
  const caps = meta[META.clientCapabilities];
  if (caps === null || typeof caps !== 'object' || Array.isArray(caps)) {
    throw envelopeError(`_meta "${META.clientCapabilities}" is required and must be an object`);
  }
  if (!isModernVersion(version)) {
    // `supported` matches server/discover: the versions a per-request client may name.
    // Legacy revisions are reached through `initialize`, not through `_meta`.
    throw new RpcError(ErrorCode.UnsupportedProtocolVersion, `Unsupported protocol version: ${version}`, {
      supported: [...MODERN_VERSIONS],
      requested: version,
    });
  }
  const info = meta[META.clientInfo];
  if (info !== undefined && !isImplementation(info)) {
    throw envelopeError(`_meta "${META.clientInfo}" must be an object with string "name" and "version"`);
  }
  const level = meta[META.logLevel];
  if (level !== undefined && !isLogLevel(level)) {
    throw envelopeError(`_meta "${META.logLevel}" must be one of ${LOG_LEVELS.join(', ')}`);
  }
  return {
    protocolVersion: version,
    clientCapabilities: caps as ClientCapabilities,
    clientInfo: info as Implementation | undefined,
    logLevel: level as LogLevel | undefined,
  };
}

function isImplementation(v: unknown): v is Implementation {
  return v !== null && typeof v === 'object' && typeof (v as Implementation).name === 'string' && typeof (v as Implementation).version === 'string';
}

function envelopeError(why: string): RpcError {
  return new RpcError(ErrorCode.InvalidParams, `Invalid params: ${why}`, undefined, 400);
}
