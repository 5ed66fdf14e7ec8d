import { readdirSync } from 'node:fs';
import { UsageError } from '../client/connect/usage-error.js';
import { doctorHintOf } from '../client/connect/hints.js';
import { sanitize } from '../io/sanitize.js';
import { serverStderrOf } from '../client/connect/server-stderr.js';
import {
  CancelledError,
  ConnectionError,
  McpRpcError,
  OutputValidationError,
  ProtocolViolationError,
  TimeoutError,
  ToolClientError,
} from '../client/errors.js';

/** Exit codes (documented in docs/cli.md). */
export const ExitCode = { ok: 0, usage: 1, failure: 2, toolError: 3, interrupted: 130 } as const;

// The user asked for something the CLI cannot do: exit 1 with the message. Declared beside the
// target resolution and login that throw it (the console catches it too); the CLI's commands take it from here.
export { UsageError };

/** The user stopped the command (Ctrl-C) and it wound down cleanly: exit 130, as a shell reports SIGINT. */
export class InterruptedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InterruptedError';
  }
}

/** Output channels, so tests can run the CLI in-process. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

/**
 * Turns any failure into one line for the user and an exit code. No stack
 * traces, and absolute paths are shortened to their last segment.
 */
export function reportError(err: unknown, io: CliIo, context: { verbose?: boolean } = {}): number {
  if (err instanceof UsageError) {
    io.stderr(`toolwright: ${scrubPaths(sanitize(err.message))}\n`);
    return ExitCode.usage;
  }
  if (err instanceof InterruptedError) {
    io.stderr(`toolwright: ${err.message}\n`);
    return ExitCode.interrupted;
  }
  // Error messages carry the server's words (its error message, names it sent): sanitized like all its text.
  io.stderr(`toolwright: ${scrubPaths(sanitize(describe(err)))}\n`);
  // The stdio server's own last words (captured, bounded, sanitized: client/connect/server-stderr.ts), not scrubbed: the server is the user's.
  const stderr = serverStderrOf(err);
  if (stderr?.length)
    io.stderr(
      `toolwright: the server's stderr (last ${stderr.length} line${stderr.length === 1 ? '' : 's'}):\n${stderr.map((line) => `  ${line}\n`).join('')}`,
    );
  // With --verbose the server's stderr is already on screen: suggesting it again would be noise.
  if (err instanceof ConnectionError && err.reason === 'exit' && !context.verbose && stderr === undefined) {
    io.stderr("toolwright: run with --verbose to see the server's stderr\n");
  }
  const doctor = doctorHintOf(err);
  if (doctor) io.stderr(`toolwright: to see which step fails: ${sanitize(doctor)}\n`);
  return ExitCode.failure;
}

function describe(err: unknown): string {
  if (err instanceof McpRpcError) return describeRpcError(err);
  if (err instanceof OutputValidationError) return err.message;
  if (err instanceof TimeoutError || err instanceof CancelledError) return err.message;
  if (err instanceof ConnectionError) return `connection failed: ${err.message}`;
  if (err instanceof ProtocolViolationError) return `the server broke the protocol: ${err.message}`;
  if (err instanceof ToolClientError) return err.message;
  return `unexpected error: ${err instanceof Error ? err.message : String(err)}`;
}

/**
 * "the server answered with error <code>: <message>", the code said once: servers built on
 * the official SDK put it in the message too ("MCP error -32602: …"), which read as
 * "-32602: MCP error -32602: …" (issue 21). Only the same code is dropped from the message.
 */
export function describeRpcError(err: McpRpcError): string {
  return `the server answered with error ${err.code}: ${withoutRepeatedCode(err.message, err.code)}`;
}

/** A server message without a leading copy of its own code (SDK servers write "MCP error -32602: …"). */
export function withoutRepeatedCode(message: string, code: number): string {
  const c = String(code).replace('-', '\\-');
  const prefix = new RegExp(`^\\s*(?:(?:mcp\\s+)?(?:json-?rpc\\s+)?(?:error\\s*)?${c}\\s*[:\\-–]|\\[${c}\\]|\\(${c}\\))\\s*`, 'i');
  const rest = message.replace(prefix, '');
  return rest.trim() ? rest : message;
}

const ABSOLUTE_PATH = /(^|[\s'"(=])(file:\/\/)?\/([^\s'"():/]+)\/(?:[^\s'"():/]+\/)*([^\s'"():/]*)/g;

/**
 * Replaces this machine's absolute file paths (and file:// URLs) with their last segment. A
 * URL path has the same shape ("nothing is served at /api/mcp", "Cannot POST /v1/mcp"), so
 * a bare path counts as a file's only when its first folder is one this machine's root has
 * (/home, /Users, /tmp, …): the paths worth hiding are this machine's, and a URL's text is the
 * user's to read whole.
 */
export function scrubPaths(text: string): string {
  return text.replace(ABSOLUTE_PATH, (path: string, before: string, fileUrl: string | undefined, first: string, last: string) =>
    fileUrl || rootEntries().has(first) ? `${before}${last}` : path,
  );
}

let root: Set<string> | undefined;

/** The names in the filesystem root, read once (an error path, never a hot one). */
function rootEntries(): Set<string> {
  if (!root) {
    try {
      root = new Set(readdirSync('/'));
    } catch {
      root = new Set();
    }
  }
  return root;
}
