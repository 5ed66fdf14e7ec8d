import { isJsonMediaType } from './input-schema.js';
import type { LocalRefs } from './refs.js';
import { convertSchema } from './schema-convert.js';
import { isObject, type JsonObject } from './types.js';

/**
 * The tool's outputSchema: the JSON schema of its success response, when every 2xx response
 * the document lists has one and the same, and it describes an object (tools.mdx "Output
 * Schema": structuredContent is a JSON object). Otherwise none, and results are text only: a
 * declared schema binds every success, and a 204 or an array could not honour it.
 */
export function buildOutputSchema(operation: JsonObject, refs: LocalRefs, version: '3.0' | '3.1'): JsonObject | undefined {
  if (!isObject(operation.responses)) return undefined;
  const successes = Object.entries(operation.responses).filter(([code]) => /^2(\d\d|XX)$/i.test(code));
  if (successes.length !== 1) return undefined;
  const response = refs.follow(successes[0][1]);
  if (!isObject(response) || !isObject(response.content)) return undefined;
  const jsonType = Object.keys(response.content).find(isJsonMediaType);
  const media = jsonType === undefined ? undefined : response.content[jsonType];
  if (!isObject(media) || media.schema === undefined) return undefined;
  const schema = convertSchema(media.schema, refs, version, 'output');
  if (!isObject(schema)) return undefined;
  if (schema.type === 'object') return schema;
  if (schema.type === undefined && isObject(schema.properties) && schema.anyOf === undefined && schema.oneOf === undefined)
    return { type: 'object', ...schema };
  return undefined;
}
