import { ToolError } from '../../protocol/tool-error.js';
import type { ParamPlan } from './plan.js';
import { isObject } from './types.js';

/**
 * Parameter values as OpenAPI's styles write them (OpenAPI 3 §4.8.12.4 "Style Values"), before
 * any percent-encoding: each function returns raw text, and the caller encodes it for its place.
 */
function scalar(value: unknown): string {
  if (value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function pairs(value: Record<string, unknown>): Array<[string, string]> {
  return Object.entries(value).map(([key, item]) => [key, scalar(item)]);
}

/** simple / label / matrix, for a path: the text placed in the path, already percent-encoded. */
export function pathText(param: ParamPlan, value: unknown): string {
  const enc = encodeURIComponent;
  const raw = param.json ? JSON.stringify(value) : value;
  const list = (items: string[], sep: string) => items.map(enc).join(sep);
  let text: string;
  if (Array.isArray(raw)) {
    const items = raw.map(scalar);
    if (param.style === 'label') text = `.${list(items, param.explode ? '.' : ',')}`;
    else if (param.style === 'matrix')
      text = param.explode ? items.map((i) => `;${enc(param.name)}=${enc(i)}`).join('') : `;${enc(param.name)}=${list(items, ',')}`;
    else text = list(items, ',');
  } else if (isObject(raw)) {
    const kv = pairs(raw);
    const flat = param.explode ? kv.map(([k, v]) => `${enc(k)}=${enc(v)}`) : kv.flatMap(([k, v]) => [enc(k), enc(v)]);
    if (param.style === 'label') text = `.${flat.join(param.explode ? '.' : ',')}`;
    else if (param.style === 'matrix') text = param.explode ? flat.map((p) => `;${p}`).join('') : `;${enc(param.name)}=${flat.join(',')}`;
    else text = flat.join(',');
  } else {
    const one = enc(scalar(raw));
    text = param.style === 'label' ? `.${one}` : param.style === 'matrix' ? `;${enc(param.name)}=${one}` : one;
  }
  if (text === '') throw new ToolError(`Path parameter ${JSON.stringify(param.arg)} must not be empty.`);
  return text;
}

/** form / spaceDelimited / pipeDelimited / deepObject, appended to the query. */
export function appendQuery(query: URLSearchParams, param: ParamPlan, value: unknown): void {
  if (param.json) {
    query.append(param.name, JSON.stringify(value));
    return;
  }
  if (Array.isArray(value)) {
    const items = value.map(scalar);
    if (param.explode && param.style === 'form') for (const item of items) query.append(param.name, item);
    else query.append(param.name, items.join(param.style === 'spaceDelimited' ? ' ' : param.style === 'pipeDelimited' ? '|' : ','));
  } else if (isObject(value)) {
    if (param.style === 'deepObject') for (const [k, v] of pairs(value)) query.append(`${param.name}[${k}]`, v);
    else if (param.explode) for (const [k, v] of pairs(value)) query.append(k, v);
    else query.append(param.name, pairs(value).flat().join(','));
  } else {
    query.append(param.name, scalar(value));
  }
}

/** simple, for a header; CR, LF and NUL refused (they would end the header and start another). */
export function headerText(param: ParamPlan, value: unknown): string {
  let text: string;
  if (param.json) text = JSON.stringify(value);
  else if (Array.isArray(value)) text = value.map(scalar).join(',');
  else if (isObject(value))
    text = pairs(value)
      .map(([k, v]) => (param.explode ? `${k}=${v}` : `${k},${v}`))
      .join(',');
  else text = scalar(value);
  if (/[\r\n\0]/.test(text)) throw new ToolError(`Header parameter ${JSON.stringify(param.arg)} must not contain line breaks or NUL.`);
  return text;
}

/** form, for a cookie: the value percent-encoded so `;` and `=` cannot start another cookie. */
export function cookieText(param: ParamPlan, value: unknown): string {
  const text = param.json
    ? JSON.stringify(value)
    : Array.isArray(value)
      ? value.map(scalar).join(',')
      : isObject(value)
        ? pairs(value).flat().join(',')
        : scalar(value);
  return `${param.name}=${encodeURIComponent(text)}`;
}

/** A form body (application/x-www-form-urlencoded): arrays repeat the name, objects go as JSON. */
export function formBody(fields: Record<string, unknown>): string {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) form.append(name, scalar(item));
    else form.append(name, scalar(value));
  }
  return form.toString();
}
