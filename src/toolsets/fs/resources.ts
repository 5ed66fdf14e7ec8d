import { readdirSync, type Dirent } from 'node:fs';
import nodePath from 'node:path';
import { openForRead, readFully } from '../../policy/path-io.js';
import { PathError, type PathSandbox } from '../../policy/paths.js';
import { ToolError } from '../../protocol/tool-error.js';
import type { ReadReturn, Resource, ResourceContext, ResourceTemplate } from '../../server/primitives/resources/index.js';
import { sniff, SNIFF_BYTES } from './content-type.js';
import { formatBytes } from './options.js';
import { walk, type WalkCounters } from './walk.js';

export interface FsResourcesOptions {
  /** The same sandbox the fs tools use (roots, deny rules, read cap); nothing here writes. */
  sandbox: PathSandbox;
  /** URI scheme (default `toolwright-fs`, as read_file's embedded resources): `<scheme>:///<path as the fs tools write it>`. */
  scheme?: string;
  /**
   * List every file below the roots in `resources/list` (up to `maxListed`),
   * as a folder of resources is. Default false: only the roots are listed
   * (a workspace may hold more files than a list should), and any file is
   * read through the template.
   */
  listFiles?: boolean;
  /** Most files listed when `listFiles` is on (default 1,000). */
  maxListed?: number;
  /** Most entries a directory read returns (default 1,000). */
  maxDirectoryEntries?: number;
  /** Family name shown for the template (default "files"). */
  name?: string;
  description?: string;
}

const SCHEME = /^[a-z][a-z0-9+.-]*$/;
const LIST_DEPTH = 16;

/**
 * The fs sandbox's roots as read-only resources (resources.mdx): a resource
 * per root (a directory read lists what it holds), and a URI template
 * `<scheme>:///{+path}` through which any file below a root is read, with
 * the sandbox's rules and nothing else: the same path checks, deny rules,
 * link handling and read cap as read_file, and paths shown relative to the
 * roots, never absolute. Text is sent as text, images and other binary data
 * as a blob, sniffed from the bytes as read_file does. A path the sandbox
 * refuses, or that does not exist, is "Resource not found" / the sandbox's
 * message, never a look outside.
 */
export function fsResources(options: FsResourcesOptions): { resources: Resource[]; templates: ResourceTemplate<{ path: string }>[] } {
  const { sandbox } = options;
  const scheme = options.scheme ?? 'toolwright-fs';
  if (!SCHEME.test(scheme))
    throw new Error(`resource URI scheme ${JSON.stringify(scheme)} must be lower-case letters, digits, "+", "-" or "." and start with a letter`);
  const base = `${scheme}:///`;
  const uriOf = (display: string) => base + (display === '.' ? '' : display.split('/').map(encodeURIComponent).join('/'));
  const maxEntries = options.maxDirectoryEntries ?? 1_000;

  const read = async (path: string, ctx: ResourceContext): Promise<ReadReturn> => {
    const input = path.replace(/\/+$/, '') || '.';
    try {
      if (sandbox.isRootList(input)) return directoryListing(sandbox.roots.map((r) => ({ uri: uriOf(r.name), name: r.name, type: 'directory' })));
      const target = await sandbox.resolve(input);
      if (target.stat?.isDirectory()) return directoryListing(await entriesOf(sandbox, target.real, target.display, maxEntries, ctx.signal, uriOf));
      const { handle, stat } = await openForRead(target);
      try {
        if (stat.size > sandbox.maxReadBytes)
          throw new ToolError(`${target.display} is ${formatBytes(stat.size)}, over the ${formatBytes(sandbox.maxReadBytes)} read limit`);
        const data = Buffer.alloc(stat.size);
        await readFully(handle, data, 0);
        const kind = sniff(data.subarray(0, SNIFF_BYTES), target.display);
        return kind.kind === 'text' ? { text: data.toString('utf8'), mimeType: textType(target.display) } : { blob: data, mimeType: kind.mimeType };
      } finally {
        await handle.close();
      }
    } catch (err) {
      // resources.mdx: a resource that does not exist is -32602 "Resource not found"; other refusals say why (relative paths only).
      if (err instanceof PathError && err.code === 'ENOENT') return undefined;
      throw err; // a PathError is a ToolError: its message (relative paths only) reaches the client as -32602
    }
  };

  const resources: Resource[] = sandbox.roots.map((root) => {
    const display = sandbox.roots.length === 1 ? '.' : root.name;
    return {
      uri: uriOf(display),
      name: root.name,
      description: `The ${root.name} directory (read-only): reading it lists what it holds`,
      mimeType: 'application/json',
      read: (ctx) => read(display, ctx),
    };
  });
  if (options.listFiles) resources.push(...listedFiles(sandbox, options.maxListed ?? 1_000, uriOf, read));

  const template: ResourceTemplate<{ path: string }> = {
    uriTemplate: `${base}{+path}`,
    name: options.name ?? 'files',
    description: options.description ?? `Files below ${sandbox.roots.map((r) => r.name).join(', ')}, read-only; complete the path to browse`,
    variables: { type: 'object', properties: { path: { type: 'string', maxLength: 4096 } }, required: ['path'] },
    // The entries of the directory typed so far whose names start with the last segment.
    complete: {
      path: async (value) => {
        const slash = value.lastIndexOf('/');
        const dir = slash < 0 ? '.' : value.slice(0, slash) || '.';
        const prefix = value.slice(slash + 1);
        try {
          if (sandbox.isRootList(dir)) return sandbox.roots.map((r) => r.name).filter((n) => n.startsWith(prefix));
          const target = await sandbox.resolve(dir);
          if (!target.stat?.isDirectory()) return [];
          const entries = await entriesOf(sandbox, target.real, target.display, 500, AbortSignal.timeout(5_000), uriOf);
          return entries.filter((e) => e.name.startsWith(prefix)).map((e) => (dir === '.' ? '' : `${dir}/`) + e.name + (e.type === 'directory' ? '/' : ''));
        } catch {
          return [];
        }
      },
    },
    read: (_uri, { path }, ctx) => read(path, ctx),
  };
  return { resources, templates: [template] };
}

interface ListingEntry {
  uri: string;
  name: string;
  type: string;
}

function directoryListing(entries: ListingEntry[]): ReadReturn {
  return { text: JSON.stringify({ entries }), mimeType: 'application/json' };
}

async function entriesOf(
  sandbox: PathSandbox,
  real: string,
  display: string,
  max: number,
  signal: AbortSignal,
  uriOf: (display: string) => string,
): Promise<ListingEntry[]> {
  const counters: WalkCounters = { denied: 0, truncatedDirectories: 0, unreadable: 0 };
  const entries: ListingEntry[] = [];
  for await (const e of walk(sandbox, real, display, { maxDepth: 1, maxPerDirectory: max, signal }, counters)) {
    if (e.type === 'file' || e.type === 'directory') entries.push({ uri: uriOf(e.display), name: e.name, type: e.type });
  }
  return entries;
}

/**
 * Every file below the roots, breadth first in name order, up to `max`: a
 * folder of resources, listed once when the server is built (files added
 * later are read through the template, not listed). Only names are looked
 * at here, synchronously: links are not followed and denied names are left
 * out; every read goes through the sandbox.
 */
function listedFiles(
  sandbox: PathSandbox,
  max: number,
  uriOf: (display: string) => string,
  read: (path: string, ctx: ResourceContext) => Promise<ReadReturn>,
): Resource[] {
  const out: Resource[] = [];
  for (const root of sandbox.roots) {
    const queue = [{ real: root.real, display: sandbox.roots.length === 1 ? '.' : root.name, depth: 0 }];
    for (let head = 0; head < queue.length && out.length < max; head++) {
      const dir = queue[head];
      let entries: Dirent[];
      try {
        entries = readdirSync(dir.real, { withFileTypes: true }).sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
      } catch {
        continue; // unreadable: nothing listed from it
      }
      for (const entry of entries) {
        const real = nodePath.join(dir.real, entry.name);
        if (sandbox.deniedBy(real) !== undefined) continue;
        const display = dir.display === '.' ? entry.name : `${dir.display}/${entry.name}`;
        if (entry.isDirectory() && dir.depth + 1 < LIST_DEPTH) queue.push({ real, display, depth: dir.depth + 1 });
        if (!entry.isFile()) continue;
        if (out.length >= max) break;
        out.push({
          uri: uriOf(display),
          name: display,
          ...(guessType(entry.name) ? { mimeType: guessType(entry.name) } : {}),
          read: (ctx) => read(display, ctx),
        });
      }
    }
  }
  return out;
}

const TEXT_TYPES: Record<string, string> = {
  md: 'text/markdown',
  markdown: 'text/markdown',
  txt: 'text/plain',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  csv: 'text/csv',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  js: 'text/javascript',
  mjs: 'text/javascript',
  ts: 'text/x-typescript',
  py: 'text/x-python',
  rs: 'text/x-rust',
  go: 'text/x-go',
  xml: 'application/xml',
  svg: 'image/svg+xml',
  sh: 'text/x-shellscript',
  toml: 'application/toml',
};

/** The MIME type of a text file, by its extension (text/plain when unknown). */
function textType(name: string): string {
  const ext = name.slice(name.lastIndexOf('.') + 1).toLowerCase();
  return TEXT_TYPES[ext] ?? 'text/plain';
}

/** A listed file's type before it is read: by extension, or none (the read sniffs the bytes). */
function guessType(name: string): string | undefined {
  const ext = name.slice(name.lastIndexOf('.') + 1).toLowerCase();
  return (
    TEXT_TYPES[ext] ??
    ({ png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', pdf: 'application/pdf' } as Record<string, string>)[ext]
  );
}
