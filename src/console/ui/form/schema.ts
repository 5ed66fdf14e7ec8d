/** What the form reads from a JSON Schema (hostile input: anything may be in it). */
export type Schema = Record<string, unknown>;

export function isSchema(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A path as toolwright's validator names it (src/schema/format-errors.ts): `arguments.a[0]["odd key"]`. */
export function childPath(at: string, key: string | number): string {
  if (typeof key === 'number') return `${at}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${at}.${key}` : `${at}[${JSON.stringify(key)}]`;
}

/** The schema's types, without "null" (nullable is said apart). */
export function typesOf(schema: Schema): { types: string[]; nullable: boolean } {
  const raw = schema.type;
  const list = Array.isArray(raw) ? raw.filter((t): t is string => typeof t === 'string') : typeof raw === 'string' ? [raw] : [];
  return { types: list.filter((t) => t !== 'null'), nullable: list.includes('null') || schema.nullable === true };
}

/** Choices of an enum, or of oneOf/anyOf whose branches are all `const` (with titles). */
export function choicesOf(schema: Schema): Array<{ value: unknown; label: string }> | undefined {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return schema.enum.map((value, i) => ({
      value,
      label: typeof names[i] === 'string' ? String(names[i]) : typeof value === 'string' ? value : JSON.stringify(value),
    }));
  }
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.length > 0 && branches.every((b) => isSchema(b) && 'const' in b))
      return (branches as Schema[]).map((b) => ({ value: b.const, label: typeof b.title === 'string' ? b.title : JSON.stringify(b.const) }));
  }
  return undefined;
}

/** The branches of an anyOf/oneOf a person chooses between (not all consts). */
export function branchesOf(schema: Schema): Schema[] | undefined {
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.length > 0 && branches.every(isSchema)) return branches as Schema[];
  }
  return undefined;
}

/** A branch's name in the chooser. */
export function branchLabel(branch: Schema, index: number): string {
  if (typeof branch.title === 'string') return branch.title;
  const { types } = typesOf(branch);
  if (branch.type === 'null') return 'null';
  return types.length ? types.join(' or ') : `option ${index + 1}`;
}

/** The starting value of a field: its default, else nothing (optional fields stay out of the arguments). */
export function initialValue(schema: Schema): unknown {
  if ('default' in schema) return structuredClone(schema.default);
  const { types } = typesOf(schema);
  if (types[0] === 'object' && isSchema(schema.properties)) {
    const value: Record<string, unknown> = {};
    for (const [key, sub] of Object.entries(schema.properties)) {
      if (!isSchema(sub)) continue;
      const start = initialValue(sub);
      if (start !== undefined) value[key] = start;
    }
    return value;
  }
  return undefined;
}

/** Which branch of an anyOf a value belongs to, as far as its JSON type tells. */
export function branchOfValue(branches: Schema[], value: unknown): number {
  const kind = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'number' ? 'number' : typeof value;
  const index = branches.findIndex((b) => {
    const { types, nullable } = typesOf(b);
    if (kind === 'null') return nullable || b.type === 'null';
    return types.includes(kind) || (kind === 'number' && types.includes('integer'));
  });
  return index === -1 ? 0 : index;
}
