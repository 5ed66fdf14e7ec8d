import { ToolError } from '../../protocol/tool-error.js';
import type { OperationPlan } from './plan.js';
import type { AuthParts } from './security.js';
import { appendQuery, cookieText, formBody, headerText, pathText } from './serialize.js';
import { setOwn } from './types.js';

export interface BuiltRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: Buffer;
}

/** A segment that is only dots, however spelled: the URL parser (WHATWG "double-dot segment") would climb with it. */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * The request for one call. Each path value is percent-encoded whole (encodeURIComponent:
 * `/`, `?`, `#` and `%` become text, never structure), a segment made only of dots is refused,
 * and the URL, once parsed, must keep exactly the path that was built, under the base URL's
 * origin and path: anything the parser would change is refused rather than sent.
 */
export function buildRequest(
  plan: OperationPlan,
  args: Record<string, unknown>,
  base: URL,
  staticHeaders: Record<string, string>,
  auth: AuthParts,
): BuiltRequest {
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  const placed = new Map<string, string>();
  for (const param of plan.params) {
    const value = Object.hasOwn(args, param.arg) ? args[param.arg] : undefined;
    if (param.in === 'path') {
      if (value === undefined) throw new ToolError(`Missing the path parameter ${JSON.stringify(param.arg)}.`);
      placed.set(param.name, pathText(param, value));
    } else if (value === undefined) continue;
    else if (param.in === 'query') appendQuery(query, param, value);
    else if (param.in === 'header') setOwn(headers, param.name.toLowerCase(), headerText(param, value));
    else cookies.push(cookieText(param, value));
  }
  const path = fillTemplate(plan.path, placed);
  const dots = path.split('/').find((segment) => DOT_SEGMENT.test(segment));
  if (dots !== undefined)
    throw new ToolError(`A path parameter of ${plan.method} ${plan.path} is "." or ".."; such a value would change the route and is refused.`);

  // The credentials win over arguments of the same name (a parameter, or a key of an exploded
  // object): sent beside the configured key, the model's came first, and most APIs read the first.
  for (const [name] of auth.query) query.delete(name);
  for (const [name, value] of auth.query) query.append(name, value);
  const prefix = base.pathname.replace(/\/+$/, '');
  const search = query.toString();
  const url = new URL(`${base.origin}${prefix}${path}${search ? `?${search}` : ''}`);
  if (url.origin !== base.origin || url.pathname !== `${prefix}${path}` || url.hash !== '' || !url.pathname.startsWith(`${prefix}/`)) {
    throw new ToolError(`The request for ${plan.method} ${plan.path} would leave ${base.origin}${prefix}/ and is refused.`);
  }

  // The operator's headers and the credentials win over arguments of the same name.
  for (const [name, value] of [...Object.entries(staticHeaders), ...Object.entries(auth.headers)]) setOwn(headers, name.toLowerCase(), value);
  const credentialCookies = new Set(auth.cookies.map(cookieName));
  const cookie = [...cookies.filter((c) => !credentialCookies.has(cookieName(c))), ...auth.cookies];
  if (cookie.length > 0) headers.cookie = cookie.join('; ');
  headers.accept ??= 'application/json, */*;q=0.8';
  headers['user-agent'] ??= 'toolwright-gateway';
  const body = buildBody(plan, args);
  if (body) headers['content-type'] = plan.body?.mediaType ?? 'application/json';
  return { url, method: plan.method, headers, body };
}

/** `name` of a `name=value` cookie pair. */
function cookieName(pair: string): string {
  return pair.slice(0, pair.indexOf('='));
}

/** One pass over the template: a value is never searched for placeholders of its own. */
function fillTemplate(template: string, values: Map<string, string>): string {
  let path = '';
  let last = 0;
  for (const match of template.matchAll(/\{([^{}]*)\}/g)) {
    path += encodeLiteral(template.slice(last, match.index)) + (values.get(match[1]) ?? '');
    last = match.index + match[0].length;
  }
  return path + encodeLiteral(template.slice(last));
}

/** The document's own path text: characters a path may not hold are encoded, and `?`/`#` never start a query or fragment. */
function encodeLiteral(text: string): string {
  return encodeURI(text).replace(/[?#]/g, (c) => encodeURIComponent(c));
}

function buildBody(plan: OperationPlan, args: Record<string, unknown>): Buffer | undefined {
  const body = plan.body;
  if (!body) return undefined;
  let value: unknown;
  if (body.arg !== undefined) {
    value = Object.hasOwn(args, body.arg) ? args[body.arg] : undefined;
  } else if (body.spread) {
    const fields: Record<string, unknown> = {};
    for (const [arg, name] of body.spread) if (Object.hasOwn(args, arg) && args[arg] !== undefined) setOwn(fields, name, args[arg]);
    value = Object.keys(fields).length > 0 || body.required ? fields : undefined;
  }
  if (value === undefined) return undefined;
  if (body.mediaType === 'application/json') return Buffer.from(JSON.stringify(value), 'utf8');
  return Buffer.from(formBody(typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { value }), 'utf8');
}
