// What a collection is and what running one reports: plain types with no imports, so the
// console's front end (src/console/ui, browser code) shares them with the runner and the CLI.

/** What a saved call's result must look like; none: "not an error". */
export interface CallExpectation {
  notError?: true;
  isError?: boolean;
  structuredContent?: unknown;
  content?: unknown;
  text?: string;
}

/** One saved call: `arguments` defaults to {}, `expect` to "not an error". */
export interface SavedCall {
  id: string;
  /** A label shown in reports (default: the id). */
  name?: string;
  tool: string;
  arguments?: Record<string, unknown>;
  expect?: CallExpectation;
}

export interface Collection {
  name: string;
  description?: string;
  calls: SavedCall[];
}

/** One call's outcome. `Result`: the tools/call result's type (the runner's is the client's CallToolResult). */
export interface CallReport<Result = unknown> {
  id: string;
  /** The call's name, else its id. */
  label: string;
  tool: string;
  passed: boolean;
  durationMs: number;
  /** Why it failed: the expectation's failures, or the thrown error's message. Empty when it passed. */
  failures: string[];
  /** The result, when the server answered with one. */
  result?: Result;
  /** The thrown error's message, when the call did not get a result. */
  error?: string;
  /** The call failed because the connection is gone (the server exited, the network failed): not the tool's fault. */
  connectionLost?: true;
}

export interface CollectionReport<Result = unknown> {
  name: string;
  passed: boolean;
  total: number;
  failed: number;
  durationMs: number;
  calls: CallReport<Result>[];
  /** The signal stopped the run before every call was made. */
  aborted?: true;
}
