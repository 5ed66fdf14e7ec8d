import type { LocalRefs } from './refs.js';
import { convertSchema } from './schema-convert.js';
import type { BodyPlan, ParamLocation, ParamPlan } from './plan.js';
import { isObject, setOwn, type JsonObject } from './types.js';

/** Why an operation is left out; the message becomes a start-up note. */
export class SkipOperation extends Error {
  override readonly name = 'SkipOperation';
}

const LOCATIONS: ReadonlySet<string> = new Set(['path', 'query', 'header', 'cookie']);
/** OpenAPI 3 §4.8.12.1: header parameters with these names SHALL be ignored (the request's own). */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);
/** Headers the gateway owns on the wire; an argument must never set them. */
const OWNED_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'cookie', 'te', 'upgrade', 'keep-alive', 'expect', 'trailer']);
const DEFAULT_STYLE: Record<ParamLocation, string> = { path: 'simple', query: 'form', header: 'simple', cookie: 'form' };

export interface InputPlan {
  params: ParamPlan[];
  body?: BodyPlan;
  inputSchema: JsonObject;
  notes: string[];
}

interface Context {
  refs: LocalRefs;
  version: '3.0' | '3.1';
}

/**
 * The tool's one input schema: path, query, header and cookie parameters, then the request
 * body's properties beside them (or one `body` argument when the body is not a plain object).
 * A name already taken gets its location as a suffix (`status_query`, `name_body`), and its
 * description says what it is.
 */
export function buildInput(path: string, operation: JsonObject, pathItem: JsonObject, ctx: Context): InputPlan {
  const properties: JsonObject = {};
  const required: string[] = [];
  const notes: string[] = [];
  const params: ParamPlan[] = [];
  const claim = (wanted: string, suffix: string): string => {
    // "__proto__" is never an argument's own name: validators treat it apart, so it always gets its suffix.
    let arg = Object.hasOwn(properties, wanted) || wanted === '__proto__' ? `${wanted}_${suffix}` : wanted;
    for (let n = 2; Object.hasOwn(properties, arg); n++) arg = `${wanted}_${suffix}${n}`;
    return arg;
  };

  for (const param of mergedParameters(pathItem, operation, ctx)) {
    const location = param.in as ParamLocation;
    const name = param.name as string;
    if (location === 'header' && (IGNORED_HEADERS.has(name.toLowerCase()) || OWNED_HEADERS.has(name.toLowerCase()))) {
      notes.push(`header parameter ${JSON.stringify(name)} is ignored (the gateway sets that header itself)`);
      continue;
    }
    const { schema, json } = parameterSchema(param, ctx);
    const arg = claim(name, location);
    if (location === 'path' && typeof schema === 'object' && (schema.type === 'string' || schema.type === undefined)) schema.minLength ??= 1;
    setOwn(properties, arg, describe(schema, param.description, arg === name ? undefined : `${location} parameter ${JSON.stringify(name)}`));
    if (param.required === true || location === 'path') required.push(arg);
    params.push({
      arg,
      name,
      in: location,
      style: typeof param.style === 'string' ? param.style : DEFAULT_STYLE[location],
      explode: typeof param.explode === 'boolean' ? param.explode : (typeof param.style === 'string' ? param.style : DEFAULT_STYLE[location]) === 'form',
      json,
    });
  }
  checkPathTemplate(path, params);

  const body = buildBody(operation, ctx, properties, required, claim, notes);
  const inputSchema: JsonObject = { type: 'object', properties };
  if (required.length > 0) inputSchema.required = required;
  inputSchema.additionalProperties = false;
  return { params, body, inputSchema, notes };
}

/** Path-level parameters, overridden by the operation's own of the same name and location. */
function mergedParameters(pathItem: JsonObject, operation: JsonObject, ctx: Context): JsonObject[] {
  const merged = new Map<string, JsonObject>();
  for (const list of [pathItem.parameters, operation.parameters]) {
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new SkipOperation('"parameters" is not a list');
    for (const entry of list) {
      const param = ctx.refs.follow(entry);
      if (!isObject(param) || typeof param.name !== 'string' || param.name === '' || !LOCATIONS.has(param.in as string)) {
        throw new SkipOperation('a parameter has no name or no valid "in" (path, query, header, cookie)');
      }
      const key = `${param.in}:${param.in === 'header' ? param.name.toLowerCase() : param.name}`;
      merged.set(key, param);
    }
  }
  return [...merged.values()];
}

function parameterSchema(param: JsonObject, ctx: Context): { schema: JsonObject | boolean; json: boolean } {
  if (param.schema !== undefined) return { schema: convertSchema(param.schema, ctx.refs, ctx.version, 'input'), json: false };
  // `content` instead of `schema`: one media type; JSON is serialized, others are sent as given.
  const [mediaType, media] = isObject(param.content) ? (Object.entries(param.content)[0] ?? []) : [];
  const json = typeof mediaType === 'string' && isJsonMediaType(mediaType);
  const schema = isObject(media) && media.schema !== undefined ? convertSchema(media.schema, ctx.refs, ctx.version, 'input') : json ? {} : { type: 'string' };
  return { schema, json };
}

/** Every `{name}` of the path has its path parameter, and every path parameter its place. */
function checkPathTemplate(path: string, params: ParamPlan[]): void {
  const placeholders = new Set([...path.matchAll(/\{([^{}]*)\}/g)].map((m) => m[1]));
  const declared = new Set(params.filter((p) => p.in === 'path').map((p) => p.name));
  const undeclared = [...placeholders].find((name) => !declared.has(name));
  if (undeclared !== undefined) throw new SkipOperation(`its path has {${undeclared.slice(0, 60)}} but no path parameter of that name`);
  const unplaced = [...declared].find((name) => !placeholders.has(name));
  if (unplaced !== undefined) throw new SkipOperation(`path parameter ${JSON.stringify(unplaced.slice(0, 60))} has no {${unplaced.slice(0, 60)}} in the path`);
}

function describe(schema: JsonObject | boolean, description: unknown, renamed: string | undefined): JsonObject | boolean {
  if (typeof schema === 'boolean') return schema;
  const parts = [
    typeof description === 'string' ? description : typeof schema.description === 'string' ? schema.description : undefined,
    renamed && `(the ${renamed})`,
  ];
  const text = parts.filter(Boolean).join(' ');
  return text ? { ...schema, description: text } : schema;
}

export function isJsonMediaType(mediaType: string): boolean {
  const essence = mediaType.split(';')[0].trim().toLowerCase();
  return essence === 'application/json' || /^application\/[^/]+\+json$/.test(essence);
}

const FORM = 'application/x-www-form-urlencoded';
/** Keywords of an object schema whose properties can stand beside the parameters as arguments. */
const SPREADABLE = new Set(['type', 'properties', 'required', 'description', 'title', 'additionalProperties']);

function buildBody(
  operation: JsonObject,
  ctx: Context,
  properties: JsonObject,
  required: string[],
  claim: (wanted: string, suffix: string) => string,
  notes: string[],
): BodyPlan | undefined {
  if (operation.requestBody === undefined) return undefined;
  const requestBody = ctx.refs.follow(operation.requestBody);
  if (!isObject(requestBody) || !isObject(requestBody.content)) throw new SkipOperation('"requestBody" has no "content"');
  const types = Object.keys(requestBody.content);
  const jsonType = types.find(isJsonMediaType);
  const chosen = jsonType ?? types.find((type) => type.split(';')[0].trim().toLowerCase() === FORM);
  const bodyRequired = requestBody.required === true;
  if (!chosen) {
    const listed = types.slice(0, 5).join(', ') || 'none';
    if (bodyRequired) throw new SkipOperation(`its request body is ${listed}; only JSON and application/x-www-form-urlencoded bodies are supported`);
    notes.push(`its optional request body (${listed}) is never sent; only JSON and form bodies are supported`);
    return undefined;
  }
  const media = requestBody.content[chosen];
  const schema = isObject(media) && media.schema !== undefined ? convertSchema(media.schema, ctx.refs, ctx.version, 'input') : {};
  const mediaType = jsonType ? 'application/json' : FORM;
  const spreadable =
    isObject(schema) &&
    isObject(schema.properties) &&
    (schema.type === undefined || schema.type === 'object') &&
    Object.keys(schema).every((k) => SPREADABLE.has(k));
  if (!spreadable) {
    const arg = claim('body', 'arg');
    setOwn(properties, arg, describe(schema, requestBody.description, undefined));
    if (bodyRequired) required.push(arg);
    return { mediaType, required: bodyRequired, arg };
  }
  const spread = new Map<string, string>();
  const bodyRequiredNames = new Set(Array.isArray(schema.required) ? schema.required : []);
  for (const [name, sub] of Object.entries(schema.properties as JsonObject)) {
    const arg = claim(name, 'body');
    setOwn(properties, arg, describe(sub as JsonObject | boolean, undefined, arg === name ? undefined : `request body property ${JSON.stringify(name)}`));
    if (bodyRequired && bodyRequiredNames.has(name)) required.push(arg);
    spread.set(arg, name);
  }
  return { mediaType, required: bodyRequired, spread };
}
