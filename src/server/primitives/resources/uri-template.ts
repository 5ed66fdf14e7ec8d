/**
 * RFC 6570 URI templates (levels 1–4), parsed once at registration and
 * matched against client URIs in one left-to-right pass: no regular
 * expression is built from a template, and nothing backtracks, so a hostile
 * URI costs time linear in its length (times the length of the template's
 * literals, which the server's author chose).
 *
 * Matching is the inverse of expansion where expansion is unambiguous. Where
 * it is not, the rule is simple and documented: an expression's value ends
 * at the first character its operator would have percent-encoded, or where
 * what follows it in the template starts (a literal, or the `.`, `/`, `?`…
 * that starts the next expression), whichever comes first;
 * positional (unnamed) variables left out of the URI are the last ones. So
 * `file:///{+path}.txt` reads `a.b.txt` as path `a.b`, and `{+a}{+b}` gives
 * everything to `a`.
 */

export type TemplateVariables = Record<string, string | string[]>;

type Operator = '' | '+' | '#' | '.' | '/' | ';' | '?' | '&';

interface VarSpec {
  name: string;
  explode: boolean;
  /** The `:n` prefix modifier: a value of at most n characters. */
  maxLength?: number;
}

interface Expression {
  op: Operator;
  vars: VarSpec[];
  /** OPERATORS[op], looked up once at parse time (matching reads it for every value). */
  rules: OperatorRules;
}

interface OperatorRules {
  first: string;
  sep: string;
  /** sep's character code: readValue compares codes, not one-character strings. */
  sepCode: number;
  named: boolean;
  reserved: boolean;
}

type Part = string | Expression;

/** Per operator (RFC 6570 §3.2, appendix A): what starts the expansion, what separates items, whether items are name=value. */
const OPERATORS: Record<Operator, OperatorRules> = {
  '': rules('', ',', false, false),
  '+': rules('', ',', false, true),
  '#': rules('#', ',', false, true),
  '.': rules('.', '.', false, false),
  '/': rules('/', '/', false, false),
  ';': rules(';', ';', true, false),
  '?': rules('?', '&', true, false),
  '&': rules('&', '&', true, false),
};

function rules(first: string, sep: string, named: boolean, reserved: boolean): OperatorRules {
  return { first, sep, sepCode: sep.charCodeAt(0), named, reserved };
}

const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(?:\.(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+)*$/;
const MAX_TEMPLATE_CHARS = 2048;

export class UriTemplateError extends Error {}

export class UriTemplate {
  readonly variables: readonly string[];
  private readonly parts: readonly Part[];

  constructor(readonly template: string) {
    if (typeof template !== 'string' || template === '') throw new UriTemplateError('a URI template must be a non-empty string');
    if (template.length > MAX_TEMPLATE_CHARS) throw new UriTemplateError(`a URI template may have at most ${MAX_TEMPLATE_CHARS} characters`);
    this.parts = parse(template);
    const names = this.parts.flatMap((p) => (typeof p === 'string' ? [] : p.vars.map((v) => v.name)));
    if (new Set(names).size !== names.length) throw new UriTemplateError(`${template}: a variable appears twice`);
    this.variables = names;
  }

  /** The variables `uri` binds, or undefined when it does not match the template. */
  match(uri: string): TemplateVariables | undefined {
    const vars: TemplateVariables = {};
    let pos = 0;
    for (let i = 0; i < this.parts.length; i++) {
      const part = this.parts[i];
      if (typeof part === 'string') {
        if (!uri.startsWith(part, pos)) return undefined;
        pos += part.length;
        continue;
      }
      const next = this.parts[i + 1];
      // What follows ends the value: the next literal, or the character that starts the next expression (`.`, `/`, `?`…).
      const stop = next === undefined ? '' : typeof next === 'string' ? next : next.rules.first;
      const end = matchExpression(uri, pos, part, stop, vars);
      if (end === undefined) return undefined;
      pos = end;
    }
    return pos === uri.length ? vars : undefined;
  }

  /** The URI for `vars` (RFC 6570 expansion); variables left out are undefined. */
  expand(vars: Record<string, string | string[] | undefined>): string {
    return this.parts.map((part) => (typeof part === 'string' ? part : expandExpression(part, vars))).join('');
  }
}

function parse(template: string): Part[] {
  const parts: Part[] = [];
  let literal = '';
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if (c === '}') throw new UriTemplateError(`${template}: "}" without "{"`);
    if (c !== '{') {
      literal += c;
      continue;
    }
    const close = template.indexOf('}', i + 1);
    if (close < 0) throw new UriTemplateError(`${template}: "{" is never closed`);
    if (literal) parts.push(literal);
    literal = '';
    parts.push(parseExpression(template, template.slice(i + 1, close)));
    i = close;
  }
  if (literal) parts.push(literal);
  return parts;
}

function parseExpression(template: string, body: string): Expression {
  let op: Operator = '';
  if ('+#./;?&'.includes(body[0] ?? '')) {
    op = body[0] as Operator;
    body = body.slice(1);
  } else if ('=,!@|'.includes(body[0] ?? '')) {
    throw new UriTemplateError(`${template}: operator "${body[0]}" is reserved by RFC 6570`);
  }
  const vars = body.split(',').map((spec): VarSpec => {
    let name = spec;
    let explode = false;
    let maxLength: number | undefined;
    if (name.endsWith('*')) {
      explode = true;
      name = name.slice(0, -1);
    } else {
      const colon = name.indexOf(':');
      if (colon >= 0) {
        const n = name.slice(colon + 1);
        if (!/^[1-9][0-9]{0,3}$/.test(n)) throw new UriTemplateError(`${template}: bad prefix length in "${spec}"`);
        maxLength = Number(n);
        name = name.slice(0, colon);
      }
    }
    if (!VARNAME.test(name)) throw new UriTemplateError(`${template}: "${spec}" is not a variable name`);
    return { name, explode, maxLength };
  });
  return { op, vars, rules: OPERATORS[op] };
}

/** Characters a value may hold unencoded: unreserved, and for + and # the reserved set too (RFC 3986 §2.2, 2.3). */
function isUnreserved(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x2d || c === 0x2e || c === 0x5f || c === 0x7e;
}
const RESERVED = new Set(":/?#[]@!$&'()*+,;=".split('').map((c) => c.charCodeAt(0)));

/**
 * Matches one expression at `pos`; returns where it ends. Each item is
 * read once; a value stops at its operator's separator, at a character it
 * would have encoded, or where `stop` (the following literal) begins.
 */
function matchExpression(uri: string, pos: number, expr: Expression, stop: string, vars: TemplateVariables): number | undefined {
  const { first, sep, named, reserved } = expr.rules;
  if (named) return matchNamed(uri, pos, expr, stop, vars);
  let i = pos;
  for (let v = 0; v < expr.vars.length; v++) {
    const spec = expr.vars[v];
    const lead = v === 0 ? first : sep;
    if (i >= uri.length || (lead === '' ? atStop(uri, i, stop) : !uri.startsWith(lead, i))) {
      // An expression with no leading character ({a}, {+a}) that matched nothing holds the empty string.
      if (v === 0 && first === '') vars[spec.name] = spec.explode ? [] : '';
      break;
    }
    // A `+`/`#` expression's last variable may hold the separator (a comma) in its value.
    const lastItem = v === expr.vars.length - 1 && !spec.explode;
    let j = i + lead.length;
    let end = readValue(uri, j, reserved && lastItem, expr, stop);
    if (!spec.explode) {
      // One value (most variables): bound without a list.
      const value = decodedValue(uri.slice(j, end), spec);
      if (value === undefined) return undefined;
      vars[spec.name] = value;
      i = end;
      continue;
    }
    const values: string[] = [uri.slice(j, end)];
    j = end;
    // Further items of an exploded variable follow the separator.
    while (uri.startsWith(sep, j) && !atStop(uri, j, stop)) {
      end = readValue(uri, j + sep.length, false, expr, stop);
      values.push(uri.slice(j + sep.length, end));
      j = end;
    }
    if (!bind(vars, spec, values)) return undefined;
    i = j;
  }
  return i;
}

/** Whether the literal that follows the expression (`stop`) begins at `i`. */
function atStop(uri: string, i: number, stop: string): boolean {
  return stop !== '' && uri.startsWith(stop, i);
}

/** Where a value of `expr` that starts at `from` ends (`allowSep`: the separator may be part of it). */
function readValue(uri: string, from: number, allowSep: boolean, expr: Expression, stop: string): number {
  const { sepCode, named, reserved } = expr.rules;
  // atStop's test, its first character compared before the whole literal (this loop runs for every character).
  const stopCode = stop === '' ? -1 : stop.charCodeAt(0);
  let i = from;
  while (i < uri.length) {
    const c = uri.charCodeAt(i);
    if (c === stopCode && uri.startsWith(stop, i)) break;
    if (c === 0x25) {
      if (i + 2 >= uri.length || !isHex(uri.charCodeAt(i + 1)) || !isHex(uri.charCodeAt(i + 2))) break;
      i += 3;
      continue;
    }
    if (!allowSep && c === sepCode) break;
    if (named && (c === 0x26 || c === 0x3b)) break; // & and ; end a name=value pair
    if (!(isUnreserved(c) || (reserved && RESERVED.has(c))) || (expr.op === '.' && c === 0x2e)) break;
    i++;
  }
  return i;
}

/**
 * `;`, `?` and `&` items carry their names, so the variables are known by
 * name, not position; they still come in template order (as expansion writes
 * them), and an unknown name means no match.
 */
function matchNamed(uri: string, pos: number, expr: Expression, stop: string, vars: TemplateVariables): number | undefined {
  const { first, sep } = expr.rules;
  let i = pos;
  let v = 0;
  let lead = first;
  while (v < expr.vars.length && i < uri.length && uri.startsWith(lead, i)) {
    let j = i + lead.length;
    while (v < expr.vars.length && !startsWithName(uri, j, expr.vars[v].name)) v++;
    if (v === expr.vars.length) return undefined;
    const spec = expr.vars[v];
    const values: string[] = [];
    for (;;) {
      j += spec.name.length;
      if (uri[j] === '=') j++;
      else if (expr.op !== ';') return undefined;
      const end = readValue(uri, j, false, expr, stop);
      values.push(uri.slice(j, end));
      j = end;
      // An exploded variable repeats its name for each item.
      if (!(spec.explode && uri.startsWith(sep, j) && startsWithName(uri, j + sep.length, spec.name))) break;
      j += sep.length;
    }
    if (!bind(vars, spec, values)) return undefined;
    i = j;
    v++;
    lead = sep;
  }
  return i;
}

/** The name at `at`, followed by "=" or the end of the item. */
function startsWithName(uri: string, at: number, name: string): boolean {
  if (!uri.startsWith(name, at)) return false;
  const after = uri[at + name.length];
  return after === undefined || after === '=' || after === ';' || after === '&';
}

function bind(vars: TemplateVariables, spec: VarSpec, raw: string[]): boolean {
  const decoded: string[] = [];
  for (const value of raw) {
    const d = decodedValue(value, spec);
    if (d === undefined) return false;
    decoded.push(d);
  }
  vars[spec.name] = spec.explode ? decoded : decoded[0];
  return true;
}

/** A value as read from the URI, percent-decoded; undefined when it does not decode or is longer than the variable's prefix allows. */
function decodedValue(raw: string, spec: VarSpec): string | undefined {
  // Nothing to decode without a `%` (decodeURIComponent would return it as it is).
  const value = raw.includes('%') ? decode(raw) : raw;
  return value === undefined || (spec.maxLength !== undefined && value.length > spec.maxLength) ? undefined : value;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function decode(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

function expandExpression(expr: Expression, vars: Record<string, string | string[] | undefined>): string {
  const { first, sep, named, reserved } = expr.rules;
  const encode = (s: string) =>
    reserved
      ? encodeURI(s).replace(/%25([0-9A-Fa-f]{2})/g, '%$1')
      : encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const items: string[] = [];
  for (const spec of expr.vars) {
    const value = vars[spec.name];
    if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
    const pair = (v: string) => (named ? (v === '' && expr.op === ';' ? spec.name : `${spec.name}=${v}`) : v);
    if (Array.isArray(value)) {
      items.push(spec.explode ? value.map((v) => pair(encode(v))).join(sep) : pair(value.map(encode).join(',')));
    } else {
      items.push(pair(encode(spec.maxLength ? value.slice(0, spec.maxLength) : value)));
    }
  }
  return items.length ? first + items.join(sep) : '';
}
