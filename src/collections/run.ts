// Runs a collection's calls in order with a connected ToolClient and checks each result. A call
// that throws (unknown tool, protocol error, timeout) is a failed call with its message, and the
// run goes on: one broken call must not hide the others' results. Only the caller's signal stops
// the run. Failure texts carry server words: print them through src/io/sanitize.ts.
import type { ToolClient } from '../client/client.js';
import { ConnectionError, McpRpcError } from '../client/errors.js';
import type { CallToolResult } from '../client/types.js';
import { clip } from '../jsonrpc/error-bounds.js';
import { checkExpectation } from './check.js';
import type { Collection, CallReport as GenericCallReport, CollectionReport as GenericCollectionReport, SavedCall } from './types.js';

/** How much of a thrown error's message a report keeps. */
const MAX_ERROR_CHARS = 500;

/** A call's report from this runner: its result is the client's CallToolResult. */
export type CallReport = GenericCallReport<CallToolResult>;
export type CollectionReport = GenericCollectionReport<CallToolResult>;

interface RunCollectionOptions {
  /** Told each call's report as soon as it is known (for a live list or a line on the terminal). */
  onResult?: (report: CallReport, index: number) => void;
  /** Stops the run: the call in flight is cancelled, the rest are not made. */
  signal?: AbortSignal;
  /** Per-call time limit (default: the client's timeoutMs). */
  timeoutMs?: number;
}

function messageOf(error: unknown): string {
  if (error instanceof McpRpcError) return clip(`error ${error.code}: ${error.message}`, MAX_ERROR_CHARS);
  return clip(error instanceof Error ? error.message : String(error), MAX_ERROR_CHARS);
}

async function runOne(client: ToolClient, call: SavedCall, options: RunCollectionOptions): Promise<CallReport> {
  const base = { id: call.id, label: call.name || call.id, tool: call.tool };
  const started = performance.now();
  try {
    const result = await client.callTool(call.tool, call.arguments ?? {}, { signal: options.signal, timeoutMs: options.timeoutMs });
    const outcome = checkExpectation(result, call.expect);
    return { ...base, passed: outcome.passed, durationMs: Math.round(performance.now() - started), failures: outcome.failures, result };
  } catch (error) {
    const message = messageOf(error);
    return {
      ...base,
      passed: false,
      durationMs: Math.round(performance.now() - started),
      failures: [message],
      error: message,
      ...(error instanceof ConnectionError ? { connectionLost: true as const } : {}),
    };
  }
}

export async function runCollection(client: ToolClient, collection: Collection, options: RunCollectionOptions = {}): Promise<CollectionReport> {
  const started = performance.now();
  const calls: CallReport[] = [];
  for (const call of collection.calls) {
    if (options.signal?.aborted) break;
    const report = await runOne(client, call, options);
    // A call cut short by the signal is not a result: it is left out, and the run says it was stopped.
    if (options.signal?.aborted) break;
    calls.push(report);
    options.onResult?.(report, calls.length - 1);
  }
  const failed = calls.filter((report) => !report.passed).length;
  const aborted = calls.length < collection.calls.length;
  return {
    name: collection.name,
    passed: failed === 0 && !aborted,
    total: collection.calls.length,
    failed,
    durationMs: Math.round(performance.now() - started),
    calls,
    ...(aborted ? { aborted: true as const } : {}),
  };
}
