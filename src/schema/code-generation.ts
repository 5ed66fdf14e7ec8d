/**
 * Which engine validates instances: `compiled` (Ajv, which generates a JavaScript function per
 * schema: the fastest, and the default wherever code generation is allowed) or `interpreted`
 * (@cfworker/json-schema, which walks the schema at each call and generates no code).
 */
export type SchemaEngine = 'compiled' | 'interpreted';

let detected: SchemaEngine | undefined;

/**
 * The engine this runtime allows, found once by trying what Ajv needs: `new Function`. Cloudflare
 * Workers (and any page or runtime under a Content-Security-Policy without 'unsafe-eval') refuse
 * it, and Ajv's validators would then fail on their first call; there the interpreter is used.
 * Detection rather than a server option: the condition is a property of the runtime, not of the
 * server, and a server written once runs on Node and in a Worker without a setting to forget.
 */
export function defaultSchemaEngine(): SchemaEngine {
  if (detected === undefined) {
    try {
      new Function('')();
      detected = 'compiled';
    } catch {
      detected = 'interpreted';
    }
  }
  return detected;
}
