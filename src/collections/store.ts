// Collections as plain files: <project>/.toolwright/collections/<name>.json, 2-space JSON with a
// trailing newline. Names are checked (names.ts) and symlinks are refused, so a name from the
// console API cannot read or write outside the folder. Writes are temp file + rename.
// Not done yet: Ajv validation against a published schema (schema/), saveCall, listCollections.
import { lstat, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
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
