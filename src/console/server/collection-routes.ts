import { destructiveCalls } from '../../collections/destructive.js';
import { collectionNameProblem } from '../../collections/names.js';
import { runCollection } from '../../collections/run.js';
import { collectionsDirLabel, deleteCall, deleteCollection, findCollectionsDir, listCollections, readCollection, saveCall } from '../../collections/store.js';
import type { Collection, SavedCall } from '../../collections/types.js';
import type { ToolClient } from '../../client/client.js';
import { CollectionFileError } from '../../collections/validate.js';
import type { ApiRoutes } from './api-routes.js';
import { ApiError, optionalObject, optionalString, requiredString } from './http-io.js';

/**
 * Saved calls and collections (issue 25) for the page: the same files as `toolwright
 * run-collection` (findCollectionsDir: .toolwright/collections/ of the console's working
 * directory, shown on the page as it is). Every name goes through names.ts and every call through the collection schema
 * before anything is written; refusals are 400s that say what to fix, and file errors never
 * carry an absolute path.
 */
function collectionsDir(): string {
  return findCollectionsDir(process.cwd());
}

function nameFrom(body: Record<string, unknown>, key: string): string {
  const name = requiredString(body, key, 200);
  const problem = collectionNameProblem(name);
  if (problem) throw new ApiError(400, `${key}: ${problem}`);
  return name;
}

/** A store failure as the page should see it: what is wrong, never where on disk. */
function asApiError(err: unknown, name: string): never {
  if (err instanceof ApiError) throw err;
  if (err instanceof CollectionFileError) throw new ApiError(400, err.message);
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') throw new ApiError(404, `no collection "${name}"`);
  const message = err instanceof Error ? err.message : String(err);
  if (/symbolic link|not a regular file|larger than/.test(message)) throw new ApiError(400, message);
  throw new ApiError(500, `cannot use collection "${name}"${code ? ` (${code})` : ''}`);
}

// Saves are read-modify-write of one file: one at a time, so two quick saves both land.
let writes: Promise<unknown> = Promise.resolve();
function serialized<T>(work: () => Promise<T>): Promise<T> {
  const next = writes.then(work, work);
  writes = next.catch(() => {});
  return next;
}

/** An id for a new call: its label or tool, made safe, numbered if taken. */
function newCallId(label: string, taken: Set<string>): string {
  const base =
    label
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'call';
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

async function callFrom(body: Record<string, unknown>, collection: string): Promise<SavedCall> {
  const given = optionalObject(body, 'call');
  if (!given) throw new ApiError(400, 'call is required: {tool, arguments, name?, id?, expect?}');
  const tool = requiredString(given, 'tool', 1000);
  const label = optionalString(given, 'name', 200);
  const args = optionalObject(given, 'arguments') ?? {};
  const expect = optionalObject(given, 'expect');
  let id = optionalString(given, 'id', 64);
  if (id === undefined || id === '') {
    const existing = await readCollection(collectionsDir(), collection).catch(() => ({ calls: [] as SavedCall[] }));
    id = newCallId(label || tool, new Set(existing.calls.map((call) => call.id)));
  }
  return { id, ...(label ? { name: label } : {}), tool, arguments: args, ...(expect ? { expect } : {}) };
}

async function summaries() {
  const dir = collectionsDir();
  const names = await listCollections(dir).catch((err: unknown) => asApiError(err, '.toolwright/collections'));
  return Promise.all(
    names.map(async (name) => {
      try {
        const collection = await readCollection(dir, name);
        return collection;
      } catch (err) {
        // One broken file is shown with its problem; the others stay usable.
        return { name, calls: [], error: err instanceof CollectionFileError || err instanceof Error ? err.message : String(err) };
      }
    }),
  );
}

/**
 * The calls that may destroy, by the Tools screen's rule (protocol/tool-annotations.ts) applied
 * to the server's own tools/list now, never to what the file says.
 */
async function destructiveOf(client: ToolClient, collection: Collection) {
  return destructiveCalls(collection, await client.listTools()).map((call) => ({
    id: call.id,
    label: call.name || call.id,
    tool: call.tool,
    arguments: call.arguments ?? {},
  }));
}

export const collectionRoutes = {
  // `dir` is the real folder (home as ~), so the page says where the files are.
  'GET collections': async () => ({ dir: collectionsDirLabel(collectionsDir()), collections: await summaries() }),

  'POST collections/read': async ({ body }) => {
    const name = nameFrom(await body(), 'name');
    return readCollection(collectionsDir(), name).catch((err: unknown) => asApiError(err, name));
  },

  'POST collections/save-call': async ({ body }) => {
    const given = await body();
    const name = nameFrom(given, 'collection');
    return serialized(async () => {
      const call = await callFrom(given, name);
      await saveCall(collectionsDir(), name, call).catch((err: unknown) => asApiError(err, name));
      return { collection: name, call };
    });
  },

  'POST collections/delete-call': async ({ body }) => {
    const given = await body();
    const name = nameFrom(given, 'collection');
    const id = requiredString(given, 'id', 64);
    return serialized(async () => {
      const deleted = await deleteCall(collectionsDir(), name, id).catch((err: unknown) => asApiError(err, name));
      if (!deleted) throw new ApiError(404, `collection "${name}" has no call "${id}"`);
      return { deleted: true };
    });
  },

  'POST collections/delete': async ({ body }) => {
    const name = nameFrom(await body(), 'name');
    await serialized(() => deleteCollection(collectionsDir(), name)).catch((err: unknown) => asApiError(err, name));
    return { deleted: true };
  },

  /** The calls of a collection that need a person's yes before a run (the page asks, listing them). */
  'POST collections/destructive-calls': async ({ body, session }) => {
    const name = nameFrom(await body(), 'name');
    const collection = await readCollection(collectionsDir(), name).catch((err: unknown) => asApiError(err, name));
    return { calls: await destructiveOf(session.requireClient(), collection) };
  },

  /**
   * Runs a collection. Calls that may destroy run only with `confirmDestructive: true`, which
   * the page sends after the person said yes to the list above; without it, a 409 lists them.
   */
  'POST collections/run': async ({ body, session, res }) => {
    const given = await body();
    const name = nameFrom(given, 'name');
    const collection = await readCollection(collectionsDir(), name).catch((err: unknown) => asApiError(err, name));
    const client = session.requireClient();
    if (given.confirmDestructive !== true) {
      const destructive = await destructiveOf(client, collection);
      if (destructive.length)
        throw new ApiError(
          409,
          `${name} has ${destructive.length} call${destructive.length === 1 ? '' : 's'} that may change or destroy data: confirm to run`,
          {
            destructive,
          },
        );
    }
    // The page going away (tab closed, reload) stops the run.
    const stop = new AbortController();
    res.once('close', () => {
      if (!res.writableEnded) stop.abort();
    });
    return runCollection(client, collection, { signal: stop.signal });
  },
} satisfies ApiRoutes;
