import { isPlainObject } from '../../protocol/content.js';

/**
 * Fills the fields an accepted form left out with the defaults the server's
 * `requestedSchema` gives them (elicitation.mdx: "Clients that support defaults
 * SHOULD pre-populate form fields with these values"; SEP-1034): a field the
 * user never touched keeps its pre-filled value. Only defaults a form may hold
 * are used (a string, number or boolean, or an array of strings for
 * multi-select), only for a field of the matching type, and never over a value
 * the answer gave. Returns the answer unchanged when there is nothing to fill.
 */
export function withFormDefaults(params: Record<string, unknown>, answer: Record<string, unknown>): Record<string, unknown> {
  if (answer.action !== 'accept' || (params.mode !== undefined && params.mode !== 'form')) return answer;
  const schema = params.requestedSchema;
  const properties = isPlainObject(schema) && isPlainObject(schema.properties) ? schema.properties : undefined;
  if (!properties) return answer;
  const given = isPlainObject(answer.content) ? answer.content : {};
  let content: Record<string, unknown> | undefined;
  for (const [name, field] of Object.entries(properties)) {
    if (Object.hasOwn(given, name) || !isPlainObject(field) || !fitsField(field, field.default)) continue;
    content ??= { ...given };
    // A data property even for a hostile name ("__proto__"), like every answer key.
    Object.defineProperty(content, name, { value: field.default, enumerable: true, writable: true, configurable: true });
  }
  return content ? { ...answer, content } : answer;
}

function fitsField(field: Record<string, unknown>, value: unknown): boolean {
  switch (field.type) {
    case 'string':
      return typeof value === 'string' && (!Array.isArray(field.enum) || field.enum.includes(value));
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value) && value.length <= 1000 && value.every((v) => typeof v === 'string');
    default:
      return false;
  }
}
