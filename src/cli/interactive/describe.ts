import type { ListedTool } from '../../client/types.js';
import { isPlainObject } from '../../protocol/content.js';
import { oneLine, titleOf, typeLabel } from '../format.js';
import { isDestructiveTool } from '../../protocol/tool-annotations.js';
import { sanitize } from '../../io/sanitize.js';
import type { Style } from '../style.js';
import { wrap } from '../wrap.js';

/** `describe <tool>`: what it does, each parameter with its type, whether required, its default and description, and its hints. */
export function describeTool(tool: ListedTool, style: Style): string {
  const width = style.width;
  const out: string[] = [];
  const title = titleOf(tool);
  out.push(`${style.bold(style.cyan(sanitize(tool.name)))}${title && title !== tool.name ? ` — ${oneLine(title)}` : ''}`);
  if (tool.description) out.push(...wrap(sanitize(tool.description).trim(), width));
  const schema = tool.inputSchema;
  const props = isPlainObject(schema.properties) ? Object.entries(schema.properties) : [];
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  out.push('', style.bold('parameters'));
  if (!props.length) out.push('  none');
  for (const [name, prop] of props) {
    const p = isPlainObject(prop) ? prop : {};
    const facts = [typeLabel(p), required.has(name) ? 'required' : 'optional'];
    if (p.default !== undefined) facts.push(`default ${oneLine(JSON.stringify(p.default) ?? '')}`);
    out.push(`  ${style.bold(sanitize(name))}  ${style.dim(facts.join(', '))}`);
    if (typeof p.description === 'string') out.push(...wrap(sanitize(p.description).trim(), width - 4).map((l) => `    ${l}`));
  }
  out.push('', `${style.bold('hints')}  ${hintLine(tool.annotations, style)}`);
  if (tool.outputSchema) {
    const fields = isPlainObject(tool.outputSchema.properties) ? Object.keys(tool.outputSchema.properties).map(sanitize).join(', ') : '';
    out.push(`${style.bold('returns')}  structured content${fields ? ` with ${fields}` : ''}`);
  }
  return `${out.join('\n')}\n`;
}

function hintLine(annotations: Record<string, unknown> | undefined, style: Style): string {
  if (annotations?.readOnlyHint === true) return 'read-only (does not change anything)';
  const parts = [
    isDestructiveTool(annotations) ? style.yellow('destructive: you confirm each call before it is sent') : 'additive (changes things, destroys nothing)',
  ];
  if (annotations?.idempotentHint === true) parts.push('idempotent');
  if (annotations?.openWorldHint === true) parts.push('reaches the outside world');
  return parts.join('; ');
}
