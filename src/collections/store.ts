// Collections as plain files: <folder>/.toolwright/collections/<name>.json (the folder the console
// or run-collection is started in), 2-space JSON with a trailing newline, checked against schema/toolwright.collection.schema.json on every read.
// Names are checked (names.ts) and links are refused, so a name from the console API cannot read
// or write outside the folder: files are opened with O_NOFOLLOW (no lstat-then-open race), and
// writes go to a new temp file (O_EXCL never follows a link) renamed over the target (rename
// replaces a link, never writes through it). The folder itself is checked with lstat: a race
// there needs someone who can already write the project folder.
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, join, sep } from 'node:path';
import { collectionNameProblem } from './names.js';
import type { Collection, SavedCall } from './types.js';
import { CollectionFileError, validateCollection } from './validate.js';

/** A collection file larger than this is refused before it is read (it is a list of calls, not data). */
const MAX_COLLECTION_BYTES = 4 * 1024 * 1024;

/**
 * Where collections live: `.toolwright/collections/` of the folder the command is started in,
 * always. The console writes there and `run-collection` reads there (both call this). Unlike a
 * server's state (config/state-dir.ts), there is no per-user fallback: collections are meant to
 * be committed with the project, and a fallback that depends on what the folder holds made the
 * two commands disagree once the folder changed (a `git init`, a config written by `init`).
 */
export function findCollectionsDir(cwd: string): string {
  return join(cwd, '.toolwright', 'collections');
}

/** The folder as a person reads it: its absolute path, with the home folder as `~`. */
export function collectionsDirLabel(dir: string, home = homedir()): string {
  return home && (dir === home || dir.startsWith(home + sep)) ? `~${dir.slice(home.length)}` : dir;
}

async function refuseSymlink(path: string): Promise<void> {
  const stat = await lstat(path).catch(() => undefined);
  if (stat?.isSymbolicLink()) throw new Error(`refusing to follow a symbolic link: ${basename(path)}`);
}

function collectionPath(dir: string, name: string): string {
  const problem = collectionNameProblem(name);
  if (problem) throw new Error(`invalid collection name ${JSON.stringify(name).slice(0, 80)}: ${problem}`);
  return join(dir, `${name}.json`);
}

// O_NOFOLLOW: the open itself fails on a link (ELOOP), so nothing can swap one in after a check.
// O_NONBLOCK: a FIFO put there opens at once and is then refused as not a file, instead of hanging.
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * Reads and validates a collection file. `label` is how errors name the file (never an absolute
 * path: the console shows these). The collection's name is `name`, whatever the file says.
 */
export async function readCollectionFile(path: string, name: string, label = basename(path)): Promise<Collection> {
  const handle = await open(path, READ_FLAGS).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ELOOP' || error.code === 'EMLINK') throw new Error(`refusing to follow a symbolic link: ${label}`);
    throw error;
  });
  let text: string;
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error(`${label} is not a regular file`);
    if (stat.size > MAX_COLLECTION_BYTES) throw new Error(`${label} is larger than ${MAX_COLLECTION_BYTES} bytes`);
    text = await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new CollectionFileError(label, [`not valid JSON: ${(error as Error).message}`]);
  }
  validateCollection(data, label);
  const collection = data as Collection & { $schema?: string };
  return { ...collection, name, calls: collection.calls.map((call) => ({ ...call, arguments: call.arguments ?? {} })) };
}

export async function readCollection(dir: string, name: string): Promise<Collection> {
  const path = collectionPath(dir, name);
  await refuseSymlink(dir);
  return readCollectionFile(path, name, `${name}.json`);
}

export async function saveCollection(dir: string, collection: Collection): Promise<void> {
  const path = collectionPath(dir, collection.name);
  validateCollection(collection, `${collection.name}.json`);
  await refuseSymlink(dir);
  await mkdir(dir, { recursive: true });
  const temp = join(dir, `.${collection.name}.${process.pid}.${Date.now()}.tmp`);
  try {
    await writeFile(temp, `${JSON.stringify(collection, null, 2)}\n`, { flag: 'wx' });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

export async function deleteCollection(dir: string, name: string): Promise<void> {
  const path = collectionPath(dir, name);
  await refuseSymlink(dir);
  await rm(path, { force: true });
}

/** The names of the collections in dir (sorted); [] when the folder does not exist. */
export async function listCollections(dir: string): Promise<string[]> {
  await refuseSymlink(dir);
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.json'))
    .map((entry) => entry.name.slice(0, -'.json'.length))
    .filter((name) => collectionNameProblem(name) === undefined)
    .sort();
}

async function readOrEmpty(dir: string, name: string): Promise<Collection> {
  return readCollection(dir, name).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return { name, calls: [] };
    throw error;
  });
}

/** Adds a call to a collection (created when missing), replacing a call with the same id. */
export async function saveCall(dir: string, collectionName: string, call: SavedCall): Promise<void> {
  const existing = await readOrEmpty(dir, collectionName);
  const index = existing.calls.findIndex((saved) => saved.id === call.id);
  if (index === -1) existing.calls.push(call);
  else existing.calls[index] = call;
  await saveCollection(dir, existing);
}

/** Removes one call by id; false when the collection has no such call. */
export async function deleteCall(dir: string, collectionName: string, id: string): Promise<boolean> {
  const existing = await readCollection(dir, collectionName);
  const calls = existing.calls.filter((saved) => saved.id !== id);
  if (calls.length === existing.calls.length) return false;
  await saveCollection(dir, { ...existing, calls });
  return true;
}
