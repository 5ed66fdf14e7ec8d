import type { ReadResourceResult } from '../client/resources.js';
import type { GetPromptResult, ListedPrompt, ListedResource, ListedResourceTemplate } from '../client/server-surface.js';
import type { ContentBlock } from '../client/types.js';
import { sanitize } from '../io/sanitize.js';
import { PLAIN, type Style } from './style.js';
import { wrap } from './wrap.js';

const INDENT = '    ';

/** Resources and templates for people: URI and name, then the description; everything the server wrote sanitized. */
export function formatResourceList(resources: ListedResource[], templates: ListedResourceTemplate[], style: Style = PLAIN): string {
  if (resources.length === 0 && templates.length === 0) return 'The server lists no resources.\n';
  const out: string[] = [];
  const entry = (key: string, name: string, mimeType: unknown, description: unknown, title: unknown) => {
    const type = typeof mimeType === 'string' ? style.dim(`  ${sanitize(mimeType)}`) : '';
    out.push(`${style.bold(style.cyan(sanitize(key)))}  ${sanitize(typeof title === 'string' && title ? title : name)}${type}`);
    if (typeof description === 'string' && description) out.push(...wrap(oneLine(description), style.width - INDENT.length).map((l) => INDENT + l));
  };
  if (resources.length) {
    out.push(style.bold(`RESOURCES (${resources.length})`));
    for (const r of resources) entry(r.uri, r.name, r.mimeType, r.description, r.title);
  }
  if (templates.length) {
    if (out.length) out.push('');
    out.push(style.bold(`TEMPLATES (${templates.length})`), style.dim('read one with toolwright read <uri>, its {variables} filled in'));
    for (const t of templates) entry(t.uriTemplate, t.name, t.mimeType, t.description, t.title);
  }
  return `${out.join('\n')}\n`;
}

/** Prompts for people: the name, its arguments (required ones without "?"), the description. */
export function formatPromptList(prompts: ListedPrompt[], style: Style = PLAIN): string {
  if (prompts.length === 0) return 'The server lists no prompts.\n';
  const out: string[] = [];
  for (const p of prompts) {
    const args = (p.arguments ?? []).map((a) => `${sanitize(a.name)}${a.required ? '' : '?'}`).join(' ');
    out.push(`${style.bold(style.cyan(sanitize(p.name)))}${args ? ` ${style.dim(args)}` : ''}`);
    const about = [p.title, p.description]
      .filter((t): t is string => typeof t === 'string' && t !== '' && t !== p.name)
      .map(oneLine)
      .join(' — ');
    if (about) out.push(...wrap(about, style.width - INDENT.length).map((l) => INDENT + l));
    for (const a of p.arguments ?? []) if (a.description) out.push(style.dim(`${INDENT}${sanitize(a.name)}: ${oneLine(a.description)}`));
  }
  out.push('', `${prompts.length} prompt${prompts.length === 1 ? '' : 's'}`);
  return `${out.join('\n')}\n`;
}

/** A prompt's messages, each under its role; media and embedded resources summarized. */
export function formatPrompt(result: GetPromptResult, style: Style = PLAIN): string {
  const out: string[] = [];
  if (result.description) out.push(style.dim(sanitize(result.description)), '');
  result.messages.forEach((m, i) => {
    if (i > 0) out.push('');
    out.push(style.bold(`[${sanitize(String(m.role))}]`), describeBlock(m.content));
  });
  return `${out.join('\n')}\n`;
}

/** What `read` prints for contents it does not write out raw: a line per item. */
export function describeContents(result: ReadResourceResult): string {
  return `${result.contents.map((c) => `${sanitize(c.uri)}  ${c.mimeType ? sanitize(c.mimeType) : ''}  ${'text' in c ? `${Buffer.byteLength(c.text)} bytes of text` : `${Buffer.from(c.blob, 'base64').length} bytes (binary)`}`).join('\n')}\n`;
}

function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return sanitize(block.text);
    case 'image':
    case 'audio':
      return `(${block.type}, ${sanitize(block.mimeType)}, ${Buffer.from(block.data, 'base64').length} bytes)`;
    case 'resource_link':
      return `(link to ${sanitize(block.uri)}${block.name ? `: ${sanitize(block.name)}` : ''})`;
    case 'resource': {
      const r = block.resource;
      const body = 'text' in r ? sanitize(r.text) : `(${Buffer.from(r.blob, 'base64').length} bytes, binary)`;
      return `(resource ${sanitize(r.uri)}${r.mimeType ? `, ${sanitize(r.mimeType)}` : ''})\n${body}`;
    }
  }
}

function oneLine(text: string): string {
  return sanitize(text).replace(/\s+/g, ' ').trim();
}
