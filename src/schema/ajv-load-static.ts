import type { Ajv } from 'ajv';
import Ajv07 from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { AjvClass, MetaValidator } from './ajv-load.js';
import type { Dialect } from './dialect.js';

/**
 * ajv-load.ts for the runtime-neutral client build (scripts/bundle.mjs puts
 * this module in its place): Ajv imported up front, as a bundler wants it, and
 * no precompiled files to read, so each dialect's meta-schema comes from Ajv.
 */
export function ajvClass(dialect: Dialect): AjvClass {
  return (dialect === '2020-12' ? Ajv2020 : Ajv07) as unknown as AjvClass;
}

export function ajvFormats(): (ajv: Ajv) => Ajv {
  return addFormats as unknown as (ajv: Ajv) => Ajv;
}

export function precompiledMetaValidator(_dialect: Dialect): MetaValidator | null {
  return null;
}
