// Collections as plain files: <project>/.toolwright/collections/<name>.json, 2-space JSON with a
// trailing newline. Names are checked (names.ts) and symlinks are refused, so a name from the
// console API cannot read or write outside the folder. Writes are temp file + rename.
// Not done yet: Ajv validation against a published schema (schema/).
import { lstat, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { locateState } from '../config/state-dir.js';
import { collectionNameProblem } from './names.js';

export interface Collection {
  name: string;
  description?: string;
  calls: unknown[];
}

export function findCollectionsDir(cwd: string): string {
  return join(locateState(cwd).dir, 'collections');
}

async function refuseSymlink(path: string): Promise<void> {
  const stat = await lstat(path).catch(() => undefined);
  if (stat?.isSymbolicLink()) throw new Error(`refusing to follow a symbolic link: ${path}`);
}

function collectionPath(dir: string, name: string): string {
  const problem = collectionNameProblem(name);
  if (problem) throw new Error(`invalid collection name ${JSON.stringify(name).slice(0, 80)}: ${problem}`);
  return join(dir, `${name}.json`);
}

export async function readCollection(dir: string, name: string): Promise<Collection> {
  const path = collectionPath(dir, name);
  await refuseSymlink(dir);
  await refuseSymlink(path);
  return JSON.parse(await readFile(path, 'utf8')) as Collection;
}

export async function saveCollection(dir: string, collection: Collection): Promise<void> {
  const path = collectionPath(dir, collection.name);
  await refuseSymlink(dir);
  await mkdir(dir, { recursive: true });
  await refuseSymlink(path);
  const temp = join(dir, `.${collection.name}.${process.pid}.tmp`);
  await writeFile(temp, `${JSON.stringify(collection, null, 2)}\n`, { flag: 'wx' });
  await rename(temp, path);
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

/** Adds a call to a collection (created when missing), replacing a call with the same id. */
export async function saveCall(dir: string, collectionName: string, call: { id: string }): Promise<void> {
  const existing = await readCollection(dir, collectionName).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return { name: collectionName, calls: [] } as Collection;
    throw error;
  });
  const calls = existing.calls as { id: string }[];
  const index = calls.findIndex((saved) => saved.id === call.id);
  if (index === -1) calls.push(call);
  else calls[index] = call;
  await saveCollection(dir, existing);
}
