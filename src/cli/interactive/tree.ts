import { shownString } from '../format.js';
import { sanitize } from '../../io/sanitize.js';
import type { Style } from '../style.js';

const MAX_LINES = 400;

/**
 * Structured content as a tree a person can scan: keys and indices as
 * branches, scalars inline, long output cut with a count of what was left
 * out. Everything from the server is sanitized.
 */
export function renderTree(value: unknown, style: Style): string {
  const lines: string[] = [];
  let truncated = 0;
  const push = (line: string) => {
    if (lines.length < MAX_LINES) lines.push(line);
    else truncated++;
  };
  const walk = (node: unknown, prefix: string) => {
    const entries = childrenOf(node);
    entries.forEach(([key, child], i) => {
      const last = i === entries.length - 1;
      const branch = prefix + (last ? '└─ ' : '├─ ');
      const nextPrefix = prefix + (last ? '   ' : '│  ');
      const name = style.cyan(key);
      if (isContainer(child)) {
        const size = Array.isArray(child) ? `[${child.length}]` : `{${Object.keys(child as object).length}}`;
        push(`${style.dim(branch)}${name} ${style.dim(size)}`);
        walk(child, nextPrefix);
      } else {
        push(`${style.dim(branch)}${name}: ${scalar(child, nextPrefix, style)}`);
      }
    });
  };
  if (isContainer(value)) walk(value, '');
  else push(scalar(value, '', style));
  if (truncated) lines.push(style.dim(`… ${truncated} more line${truncated === 1 ? '' : 's'}`));
  return `${lines.join('\n')}\n`;
}

function isContainer(value: unknown): value is object {
  return value !== null && typeof value === 'object';
}

function childrenOf(node: unknown): Array<[string, unknown]> {
  if (Array.isArray(node)) return node.map((v, i) => [`[${i}]`, v]);
  if (isContainer(node)) return Object.entries(node).map(([k, v]) => [sanitize(k), v]);
  return [];
}

function scalar(value: unknown, prefix: string, style: Style): string {
  if (typeof value === 'string') {
    const text = sanitize(shownString(value));
    // A multi-line string continues under its branch.
    return style.green(text.split('\n').join(`\n${prefix}`));
  }
  if (typeof value === 'number' || typeof value === 'boolean') return style.yellow(String(value));
  if (value === null) return style.dim('null');
  return style.dim(String(value));
}
