import { createRequire } from 'node:module';
import type { Ajv } from 'ajv';
import type { Dialect } from './dialect.js';
import { packageFile, runsFromBuild } from '../runtime/package-files.js';

/**
 * Where compile.ts gets Ajv from, on Node: loaded when first needed (loading
 * Ajv was ~40% of a server's start-up), plus the meta-schema validators
 * compiled ahead of time. The runtime-neutral client build swaps this module
 * for ajv-load-static.ts (scripts/bundle.mjs), which imports Ajv up front and
 * needs no files.
 */
const requireModule = createRequire(import.meta.url);

export type AjvClass = new (options: object) => Ajv;
export type MetaValidator = ((schema: unknown) => boolean) & { errors?: Array<{ instancePath: string; message?: string }> | null };

export function ajvClass(dialect: Dialect): AjvClass {
  return (requireModule(dialect === '2020-12' ? 'ajv/dist/2020.js' : 'ajv') as { default: AjvClass }).default;
}

export function ajvFormats(): (ajv: Ajv) => Ajv {
  return (requireModule('ajv-formats') as { default: (a: Ajv) => Ajv }).default;
}

/**
 * The meta-schemas compiled ahead of time by scripts/build-meta-validators.mjs
 * (`npm run build`, one file per dialect in dist/schema/), so that checking a
 * schema costs no Ajv at start-up; a server loads only the dialects its tools
 * use. Run from source (tests), null: Ajv's own copy of the meta-schema is
 * used instead, which loads Ajv at registration.
 */
const PRECOMPILED_FILE = { '2020-12': 'meta-2020.cjs', 'draft-07': 'meta-07.cjs' } as const;

export function precompiledMetaValidator(dialect: Dialect): MetaValidator | null {
  if (!runsFromBuild()) return null;
  try {
    return requireModule(packageFile('dist', 'schema', PRECOMPILED_FILE[dialect])) as MetaValidator;
  } catch {
    return null;
  }
}
