import type { ErrorObject } from 'ajv';

/**
 * Turns Ajv errors into one sentence per offending field, so that a model can
 * correct every mistake in one retry.
 */
export function describeValidationErrors(errors: ErrorObject[] | null | undefined, root = 'arguments'): string[] {
  if (!errors?.length) return [];
  const lines = new Set<string>();
  for (const e of errors) {
    if (e.keyword === 'if') continue; // its then/else branch reports the real problem
    lines.add(describe(e, root));
  }
  return [...lines];
}

function describe(e: ErrorObject, root: string): string {
  const at = pathOf(e.instancePath, root);
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `${join(at, String(p.missingProperty))}: required field is missing`;
    case 'additionalProperties':
      return `${join(at, String(p.additionalProperty))}: unexpected field (not allowed by the schema)`;
    case 'unevaluatedProperties':
      return `${join(at, String(p.unevaluatedProperty))}: unexpected field (not allowed by the schema)`;
    case 'type':
      return `${at}: expected ${String(p.type)}`;
    case 'enum':
      return `${at}: expected one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `${at}: expected ${JSON.stringify(p.allowedValue)}`;
    default:
      return `${at}: ${e.message ?? 'is invalid'}`;
  }
}

function join(at: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${at}.${key}` : `${at}[${JSON.stringify(key)}]`;
}

function pathOf(pointer: string, root: string): string {
  if (!pointer) return root;
  let out = root;
  for (const raw of pointer.split('/').slice(1)) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    out = /^\d+$/.test(seg) ? `${out}[${seg}]` : join(out, seg);
  }
  return out;
}
