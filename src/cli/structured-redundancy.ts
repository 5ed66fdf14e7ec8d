const MAX_NODES = 20_000;
/** Each check scans the text once: a sample keeps a huge result from costing seconds. */
const MAX_CHECKED = 500;

/**
 * Whether showing a result's structured content would tell a person
 * something its text does not. The spec asks tools that return structured
 * content to put it in a text block too (tools.mdx "Structured Content"),
 * and many render it there for people instead (a directory listing, a sum):
 * then the JSON would only repeat it. The text is taken to carry the
 * structure when it mentions at least half of its distinct values (strings
 * and numbers; booleans and null say too little to count). With no text at
 * all, or a structure too big to check, it adds something.
 */
export function structuredAddsToText(structured: unknown, text: string): boolean {
  if (text.trim() === '') return true;
  const values = new Set<string | number>();
  let nodes = 0;
  const stack: unknown[] = [structured];
  while (stack.length) {
    if (++nodes > MAX_NODES) return true;
    const value = stack.pop();
    if (typeof value === 'string') {
      if (value.trim()) values.add(value);
    } else if (typeof value === 'number') {
      if (Number.isFinite(value)) values.add(value);
    } else if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
    } else if (value !== null && typeof value === 'object') {
      for (const item of Object.values(value)) stack.push(item);
    }
  }
  if (values.size === 0) return false;
  const sample = [...values].slice(0, MAX_CHECKED);
  let mentioned = 0;
  for (const value of sample) if (mentions(text, value)) mentioned++;
  return mentioned * 2 < sample.length;
}

function mentions(text: string, value: string | number): boolean {
  if (typeof value === 'string') return text.includes(value);
  return text.includes(String(value)) || text.includes(value.toLocaleString('en-US'));
}
