import type { CallToolResult, ContentBlock } from '../../client/types.js';
import type { ResourceContents } from '../../protocol/content.js';
import { formatBlock, oneLine, size } from '../format.js';
import { sanitize } from '../../io/sanitize.js';
import { structuredAddsToText } from '../structured-redundancy.js';
import type { Style } from '../style.js';
import type { SavedFiles } from './saved-files.js';
import { renderTree } from './tree.js';

/** The resource links seen in the session, numbered for `read <n>`. */
export class LinkBook {
  private readonly links: Array<{ uri: string; name: string }> = [];

  add(uri: string, name: string): number {
    const known = this.links.findIndex((l) => l.uri === uri);
    if (known !== -1) return known + 1;
    this.links.push({ uri, name });
    return this.links.length;
  }

  /** `n` (a number shown earlier) or a URI as typed. */
  resolve(ref: string): string | undefined {
    if (/^\d+$/.test(ref)) return this.links[Number(ref) - 1]?.uri;
    return ref || undefined;
  }

  uris(): string[] {
    return this.links.map((l) => l.uri);
  }
}

const REDUNDANT_STRUCTURE = 'redundant-structure';

interface ShowContext {
  style: Style;
  files: SavedFiles;
  links: LinkBook;
  print(text: string): void;
  /** Hints already given in this session: each is said once, not after every call. */
  hintsGiven?: Set<string>;
}

/**
 * A tool result for a person, per content type: text as it is; structured
 * content as a tree when it adds to the text (`structured` shows it anyway);
 * images, audio and blobs saved to files whose paths are shown; resource
 * links numbered, to read with `read <n>`.
 */
export function showResult(result: CallToolResult, tool: string, elapsedMs: number, ctx: ShowContext): void {
  const { style } = ctx;
  const took = style.dim(` · ${elapsedMs} ms`);
  ctx.print(result.isError ? `${style.red(`✗ ${sanitize(tool)} reported an error`)}${took}\n` : `${style.green(`✓ ${sanitize(tool)}`)}${took}\n`);
  const structured = result.structuredContent === undefined ? undefined : JSON.stringify(result.structuredContent);
  const texts: string[] = [];
  let carried = false;
  for (const block of result.content) {
    if (block.type === 'text' && structured !== undefined && sameJson(block.text, structured)) {
      carried = true;
      continue;
    }
    if (block.type === 'text') texts.push(block.text);
    showBlock(block, tool, ctx);
  }
  if (structured === undefined) return;
  if (carried || structuredAddsToText(result.structuredContent, texts.join('\n'))) ctx.print(renderTree(result.structuredContent, style));
  else if (!ctx.hintsGiven?.has(REDUNDANT_STRUCTURE)) {
    ctx.hintsGiven?.add(REDUNDANT_STRUCTURE);
    ctx.print(style.dim('(the structured content says what the text says; type structured to see it as a tree)\n'));
  }
}

function showBlock(block: ContentBlock, tool: string, ctx: ShowContext): void {
  const { style } = ctx;
  switch (block.type) {
    case 'text':
      ctx.print(`${sanitize(block.text)}\n`);
      return;
    case 'image':
    case 'audio': {
      const file = ctx.files.save(block.data, block.mimeType, `${tool}-${block.type}`);
      ctx.print(`${style.dim(formatBlock(block))} saved to ${style.bold(file)}\n`);
      return;
    }
    case 'resource_link': {
      const n = ctx.links.add(block.uri, block.name);
      const details = [block.mimeType && oneLine(block.mimeType), typeof block.size === 'number' && size(block.size)].filter(Boolean).join(', ');
      const about = block.description ? `\n    ${style.dim(oneLine(block.description))}` : '';
      ctx.print(
        `${style.cyan(`[link ${n}]`)} ${oneLine(block.title ?? block.name)} <${oneLine(block.uri)}>${details ? ` (${details})` : ''}  ${style.dim(`read it: read ${n}`)}${about}\n`,
      );
      return;
    }
    case 'resource':
      showContents(block.resource, tool, ctx);
      return;
    default:
      ctx.print(`${style.dim('[content of an unknown type]')}\n`);
  }
}

/** One piece of a resource (embedded, or read with `read`): text shown, a blob saved. */
export function showContents(contents: ResourceContents, label: string, ctx: ShowContext): void {
  const { style } = ctx;
  const head = `${oneLine(contents.uri)}${contents.mimeType ? ` (${oneLine(contents.mimeType)})` : ''}`;
  if ('text' in contents) {
    ctx.print(`${style.cyan(`[resource ${head}]`)}\n${sanitize(contents.text)}\n`);
    return;
  }
  const file = ctx.files.save(contents.blob, contents.mimeType, label);
  ctx.print(`${style.cyan(`[resource ${head}, ${size(Math.floor((contents.blob.length * 3) / 4))}]`)} saved to ${style.bold(file)}\n`);
}

function sameJson(text: string, json: string): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === json;
  } catch {
    return false;
  }
}
