import { PathError, quote } from '../../policy/path-errors.js';
import { EntryStats } from '../../policy/path-io.js';
import { defineTool, type Tool } from '../../server/tool.js';
import { pathProperty } from '../path-property.js';
import { formatBytes, type FsSettings } from './options.js';
import { walk, type EntryType, type WalkCounters } from './walk.js';

interface ListArgs {
  path?: string;
  depth?: number;
  max_entries?: number;
}

interface Entry {
  path: string;
  name: string;
  type: EntryType;
  size?: number;
  modified?: string;
}

const MAX_DEPTH = 10;

const entrySchema = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'Path relative to the root, usable in other calls' },
    name: { type: 'string' },
    type: { type: 'string', enum: ['file', 'directory', 'symlink', 'other'], description: 'Symbolic links are listed, never followed' },
    size: { type: 'integer', description: 'Bytes (files only)' },
    modified: { type: 'string', description: 'Last modification, ISO 8601' },
  },
  required: ['path', 'name', 'type'],
  additionalProperties: false,
} as const;

/** list_directory: a bounded listing, optionally a few levels deep, with sizes and dates. */
export function listDirectoryTool(s: FsSettings): Tool {
  const { sandbox } = s;
  return defineTool({
    name: 'list_directory',
    title: 'List directory',
    description:
      'Lists the files and directories in a workspace directory (optionally several levels deep) with their type, size and modification time. ' +
      'Use it to explore the workspace or check what a directory holds before reading or writing; use search_files to find files by name or content. ' +
      'Protected names (secrets, .git) are left out. No side effects.',
    inputSchema: {
      type: 'object',
      properties: {
        path: { ...pathProperty(sandbox, 'The directory to list'), default: '.' },
        depth: { type: 'integer', minimum: 1, maximum: MAX_DEPTH, default: 1, description: 'Levels to descend: 1 lists only the directory itself.' },
        max_entries: {
          type: 'integer',
          minimum: 1,
          maximum: s.maxListEntries,
          default: Math.min(500, s.maxListEntries),
          description: 'Most entries to return.',
        },
      },
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string' },
        entries: { type: 'array', items: entrySchema },
        truncated: { type: 'boolean', description: 'More entries exist than were returned' },
        hidden: { type: 'integer', description: 'Entries left out because their names are protected' },
      },
      required: ['path', 'entries', 'truncated', 'hidden'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    handler: async (args: ListArgs, ctx) => {
      const input = args.path ?? '.';
      if (sandbox.isRootList(input)) return listRoots(s);
      const dir = await sandbox.resolve(input);
      if (!dir.stat?.isDirectory()) throw new PathError(`${quote(dir.display)} is a file, not a directory; use read_file or file_info.`, 'ENOTDIR');
      const max = Math.min(args.max_entries ?? 500, s.maxListEntries);
      const counters: WalkCounters = { denied: 0, truncatedDirectories: 0, unreadable: 0 };
      const entries: Entry[] = [];
      let truncated = false;
      // lstat through the held parent, never stat by path: a link's own data, not its target's, and never
      // the data of an entry outside reached through a directory swapped for a link.
      const stats = new EntryStats(sandbox);
      try {
        for await (const e of walk(sandbox, dir.real, dir.display, { maxDepth: args.depth ?? 1, maxPerDirectory: max + 1, signal: ctx.signal }, counters)) {
          if (entries.length >= max) {
            truncated = true;
            break;
          }
          const entry: Entry = { path: e.display, name: e.name, type: e.type };
          const st = await stats.lstat(e.real);
          if (st) {
            if (e.type === 'file') entry.size = st.size;
            entry.modified = st.mtime.toISOString();
          }
          entries.push(entry);
        }
      } finally {
        await stats.close();
      }
      truncated ||= counters.truncatedDirectories > 0;
      const result = { path: dir.display, entries, truncated, hidden: counters.denied };
      return { content: [{ type: 'text', text: render(result) }], structuredContent: result };
    },
  });
}

/** With several roots, "." lists the roots themselves. */
function listRoots(s: FsSettings) {
  const entries: Entry[] = s.sandbox.roots.map((r) => ({ path: r.name, name: r.name, type: 'directory' as const }));
  const result = { path: '.', entries, truncated: false, hidden: 0 };
  return { content: [{ type: 'text' as const, text: render(result) }], structuredContent: result };
}

function render(r: { path: string; entries: Entry[]; truncated: boolean; hidden: number }): string {
  const lines = r.entries.map((e) => {
    if (e.type === 'directory') return `${e.path}/`;
    if (e.type === 'symlink') return `${e.path} -> (symbolic link, not followed)`;
    if (e.type === 'other') return `${e.path} (special file)`;
    return `${e.path} (${formatBytes(e.size ?? 0)})`;
  });
  if (lines.length === 0) lines.push(`${quote(r.path)} is empty.`);
  if (r.truncated) lines.push('[More entries exist; raise max_entries, lower depth, or use search_files.]');
  if (r.hidden > 0) lines.push(`[${r.hidden} protected entr${r.hidden === 1 ? 'y' : 'ies'} not shown.]`);
  return lines.join('\n');
}
