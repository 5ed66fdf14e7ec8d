/**
 * Tool names for operations (tools.mdx "Tool Names": 1–128 of [A-Za-z0-9_.-]). Kept to 64
 * characters: model APIs cap function names there, and a gateway adds its prefix in front.
 */
const MAX_NAME = 64;

export function toolNameFor(operationId: unknown, method: string, path: string): string {
  const fromId = typeof operationId === 'string' ? clean(operationId) : '';
  return fromId || clean(`${method.toLowerCase()}_${path}`) || method.toLowerCase();
}

function clean(text: string): string {
  return text
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^[_.-]+|[_.-]+$/g, '')
    .slice(0, MAX_NAME);
}

/** A name not yet taken: the same, else with `_2`, `_3`, … (shortened to fit). */
export function uniqueName(name: string, taken: Set<string>): string {
  let chosen = name;
  for (let n = 2; taken.has(chosen); n++) {
    const suffix = `_${n}`;
    chosen = `${name.slice(0, MAX_NAME - suffix.length)}${suffix}`;
  }
  taken.add(chosen);
  return chosen;
}
