// What the console's collections API answers (src/console/server/collection-routes.ts): the
// collection types the runner and the CLI use (src/collections/types.ts, import-free).
import type { Collection } from '../../../collections/types.js';

export type { CallExpectation as Expectation, CallReport, CollectionReport, SavedCall } from '../../../collections/types.js';

export interface SavedCollection extends Collection {
  /** The file is broken: what is wrong with it (the console still lists it). */
  error?: string;
}
