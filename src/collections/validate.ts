// Checks a collection file against the published schema (schema/toolwright.collection.schema.json),
// compiled with Ajv on first use (3 KB: unlike the config file's 87 KB schema, which the build
// compiles ahead of time, it compiles in a few milliseconds once Ajv is loaded). Every
// problem names the call it is in (number and id) and the key, and the error names the file.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { clip } from '../jsonrpc/error-bounds.js';
import { packageFile } from '../runtime/package-files.js';
import { boundedProblems, describeValidationErrors } from '../schema/format-errors.js';

export class CollectionFileError extends Error {
  constructor(
    /** The file as the user named it (a collection name's file, or the path they gave). */
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`${file} is not a valid collection:\n- ${problems.join('\n- ')}`);
    this.name = 'CollectionFileError';
  }
}

let compiled: ValidateFunction | undefined;

function collectionValidator(): ValidateFunction {
  if (!compiled) {
    const { Ajv2020 } = createRequire(import.meta.url)('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
    const schema = JSON.parse(readFileSync(packageFile('schema', 'toolwright.collection.schema.json'), 'utf8')) as object;
    compiled = new Ajv2020({ allErrors: true, strict: false }).compile(schema);
  }
  return compiled;
}

/** "call 2 (id "add")" for an error inside calls[1], so a long file's problem is found by its call. */
function callOf(data: unknown, pointer: string): string {
  const match = /^\/calls\/(\d+)(?:\/|$)/.exec(pointer);
  if (!match) return '';
  const index = Number(match[1]);
  const call = (data as { calls?: unknown[] }).calls?.[index] as { id?: unknown } | undefined;
  const id = typeof call?.id === 'string' ? ` (id ${clip(JSON.stringify(call.id), 70)})` : '';
  return `call ${index + 1}${id}: `;
}

/** Throws a CollectionFileError listing what is wrong with `data` (a parsed collection file). */
export function validateCollection(data: unknown, file: string): void {
  const validator = collectionValidator();
  if (!validator(data)) {
    const errors = (validator.errors ?? []).filter((e: ErrorObject) => e.keyword !== 'if');
    throw new CollectionFileError(
      file,
      boundedProblems(errors, (e) => `${callOf(data, e.instancePath)}${describeValidationErrors([e], 'collection')[0]}`),
    );
  }
  const seen = new Set<string>();
  const duplicates: string[] = [];
  (data as { calls: { id: string }[] }).calls.forEach((call, index) => {
    if (seen.has(call.id))
      duplicates.push(`call ${index + 1}: collection.calls[${index}].id: ${clip(JSON.stringify(call.id), 70)} is used by an earlier call (ids are unique)`);
    seen.add(call.id);
  });
  if (duplicates.length)
    throw new CollectionFileError(
      file,
      boundedProblems(duplicates, (line) => line),
    );
}
