// JSON-subset matching for collection expectations. Objects match when every expected key
// matches recursively (extra actual keys are ignored); arrays match element-wise by position
// and must have the same length; primitives match by ===. Kept strict and predictable.
const MAX_SHOWN = 120;

function show(value: unknown): string {
  const text = value === undefined ? 'undefined' : JSON.stringify(value);
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text;
}

export function subsetFailures(expected: unknown, actual: unknown, path = '$'): string[] {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path}: expected an array, got ${show(actual)}`];
    if (actual.length !== expected.length) {
      return [`${path}: expected ${expected.length} elements, got ${actual.length}`];
    }
    return expected.flatMap((item, i) => subsetFailures(item, actual[i], `${path}[${i}]`));
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) {
      return [`${path}: expected an object, got ${show(actual)}`];
    }
    const record = actual as Record<string, unknown>;
    return Object.entries(expected).flatMap(([key, value]) =>
      Object.hasOwn(record, key) ? subsetFailures(value, record[key], `${path}.${key}`) : [`${path}.${key}: missing (expected ${show(value)})`],
    );
  }
  return expected === actual ? [] : [`${path}: expected ${show(expected)}, got ${show(actual)}`];
}
