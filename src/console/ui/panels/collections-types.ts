// What the console's collections API answers (src/console/server/collection-routes.ts): the
// collection types the runner and the CLI use (src/collections/types.ts, import-free).

export type { CallExpectation as Expectation, CallReport, CollectionReport, SavedCall } from '../../../collections/types.js';
export type { SavedCollection } from '../../api-types.js';
