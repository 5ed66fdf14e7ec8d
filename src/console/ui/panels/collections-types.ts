/** What the console's collections API answers (src/console/server/collection-routes.ts). */
export interface Expectation {
  notError?: true;
  isError?: boolean;
  structuredContent?: unknown;
  content?: unknown;
  text?: string;
}

export interface SavedCall {
  id: string;
  name?: string;
  tool: string;
  arguments?: Record<string, unknown>;
  expect?: Expectation;
}

export interface SavedCollection {
  name: string;
  description?: string;
  calls: SavedCall[];
  /** The file is broken: what is wrong with it (the console still lists it). */
  error?: string;
}

export interface CallReport {
  id: string;
  label: string;
  tool: string;
  passed: boolean;
  durationMs: number;
  failures: string[];
  /** The tools/call result, when the server answered with one. */
  result?: unknown;
  error?: string;
}

export interface CollectionReport {
  name: string;
  passed: boolean;
  total: number;
  failed: number;
  durationMs: number;
  calls: CallReport[];
  aborted?: true;
}
