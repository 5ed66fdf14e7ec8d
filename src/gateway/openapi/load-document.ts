import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { UrlRefusal } from '../../policy/urls.js';
import { describeFetchFailure } from '../../toolsets/http/fetch-errors.js';
import { getFollowing } from './outbound.js';
import { isObject, OpenApiError, type JsonObject } from './types.js';

/** Documents larger than this are refused: a catalogue that size would not fit any model's context anyway. */
const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 30_000;

export interface LoadedDocument {
  doc: JsonObject;
  /** '3.0' or '3.1': decides how schemas are converted. */
  version: '3.0' | '3.1';
  /** The document's own URL, when it came from one (relative server URLs resolve against it). */
  url?: URL;
}

/** Reads, parses and checks the outline of an OpenAPI document; every failure names the document as configured. */
export async function loadDocument(source: string, cwd: string): Promise<LoadedDocument> {
  const remote = /^https?:\/\//i.test(source);
  const url = remote ? parseUrl(source) : undefined;
  const text = url ? await fetchText(source, url) : await readText(source, cwd);
  const doc = parseText(source, text);
  return { doc, version: checkOutline(source, doc), url };
}

function parseUrl(source: string): URL {
  let url: URL;
  try {
    url = new URL(source);
  } catch {
    throw new OpenApiError('OpenAPI document: its "openapi" URL is not a valid URL.');
  }
  if (url.username !== '' || url.password !== '') {
    // Named without its user part: the message must not repeat a password.
    throw new OpenApiError(`OpenAPI document ${url.protocol}//${url.host}${url.pathname}: URLs with credentials (user:password@host) are refused.`);
  }
  return url;
}

async function readText(source: string, cwd: string): Promise<string> {
  const path = resolve(cwd, source);
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new OpenApiError(`OpenAPI document ${source}: not a file.`);
    if (info.size > MAX_DOCUMENT_BYTES) throw new OpenApiError(`OpenAPI document ${source}: larger than ${MAX_DOCUMENT_BYTES} bytes.`);
    return await readFile(path, 'utf8');
  } catch (err) {
    if (err instanceof OpenApiError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    // The path as configured, never the absolute one (it tells a client about this machine).
    throw new OpenApiError(
      `OpenAPI document ${source}: ${code === 'ENOENT' ? 'no such file (relative paths are read from the working directory)' : `cannot be read (${code ?? 'error'})`}.`,
    );
  }
}

async function fetchText(source: string, url: URL): Promise<string> {
  let response: Awaited<ReturnType<typeof getFollowing>>;
  try {
    response = await getFollowing(url, AbortSignal.timeout(FETCH_TIMEOUT_MS), MAX_DOCUMENT_BYTES + 1);
  } catch (err) {
    if (err instanceof UrlRefusal) throw new OpenApiError(`OpenAPI document ${source}: ${err.message}`);
    if ((err as Error).name === 'TimeoutError') throw new OpenApiError(`OpenAPI document ${source}: no answer within ${FETCH_TIMEOUT_MS / 1000} s.`);
    throw new OpenApiError(`OpenAPI document ${source}: ${describeFetchFailure(err, url.host) ?? 'the request failed'}`);
  }
  if (response.status !== 200) throw new OpenApiError(`OpenAPI document ${source}: the server answered HTTP ${response.status}.`);
  if (response.truncated) throw new OpenApiError(`OpenAPI document ${source}: larger than ${MAX_DOCUMENT_BYTES} bytes.`);
  return response.body.toString('utf8');
}

function parseText(source: string, text: string): JsonObject {
  let value: unknown;
  try {
    // YAML 1.2 reads JSON too; aliases are capped so a small file cannot expand into a huge one.
    value = /^\s*[{[]/.test(text) ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 100, merge: false });
  } catch (err) {
    const why = (err as Error).message.split('\n')[0].slice(0, 300);
    throw new OpenApiError(`OpenAPI document ${source}: not valid JSON or YAML (${why}).`);
  }
  if (!isObject(value)) throw new OpenApiError(`OpenAPI document ${source}: the document must be an object with "openapi", "info" and "paths".`);
  return value;
}

function checkOutline(source: string, doc: JsonObject): '3.0' | '3.1' {
  if (typeof doc.swagger === 'string') {
    throw new OpenApiError(
      `OpenAPI document ${source}: Swagger ${doc.swagger.slice(0, 20)} is not supported; convert it to OpenAPI 3 (e.g. with swagger2openapi).`,
    );
  }
  const version = typeof doc.openapi === 'string' ? /^3\.([01])\.\d+/.exec(doc.openapi) : null;
  if (!version) throw new OpenApiError(`OpenAPI document ${source}: "openapi" must be a 3.0.x or 3.1.x version string.`);
  if (doc.paths !== undefined && !isObject(doc.paths)) throw new OpenApiError(`OpenAPI document ${source}: "paths" must be an object.`);
  if (doc.components !== undefined && !isObject(doc.components)) throw new OpenApiError(`OpenAPI document ${source}: "components" must be an object.`);
  return version[1] === '0' ? '3.0' : '3.1';
}
