import { lstatInSandbox, openForRead, readFully } from '../../policy/path-io.js';
import { PathError, quote } from '../../policy/path-errors.js';
import { compileGlob, GlobSyntaxError, hasGlobSyntax, type GlobMatcher } from '../../policy/path-glob.js';
import { defineTool, ToolError, type Tool } from '../../server/tool.js';
import { pathProperty } from '../path-property.js';
import { isText } from '../text-bytes.js';
import { TimeSlicer } from '../time-slice.js';
import { SNIFF_BYTES } from './content-type.js';
import { SubstringScan } from './substring-search.js';
import type { FsSettings } from './options.js';
import { walk, type EntryType, type WalkCounters, type WalkEntry } from './walk.js';

interface SearchArgs {
  path?: string;
  pattern?: string;
  content?: string;
  case_sensitive?: boolean;
  max_results?: number;
  max_depth?: number;
}

interface Match {
  path: string;
  type: EntryType;
  lines?: Array<{ line: number; text: string }>;
}

const LINES_PER_FILE = 5;
const LINE_PREVIEW_CHARS = 200;
/** Characters of one line scanned between two looks at the clock. */
const SCAN_PIECE_CHARS = 64 * 1024;

/** search_files: names by glob or substring, optionally content by substring, within fixed bounds. */
export function searchFilesTool(s: FsSettings): Tool {
  return defineTool({
    name: 'search_files',
    title: 'Search files',
    description:
      'Finds files and directories in the workspace by name (a glob such as "*.md" or "src/**/*.ts", or a plain substring) and, with content, files whose text contains a string, with the matching lines. ' +
      'Use it to locate files when you do not know where they are; use list_directory to browse one directory. ' +
      'Bounded: stops at max_results, or after looking at a fixed number of entries, and says so. Symbolic links and protected names are skipped. No side effects.',
    inputSchema: searchInputSchema(s),
    outputSchema: SEARCH_OUTPUT_SCHEMA,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    handler: (args: SearchArgs, ctx) => searchFiles(s, args, ctx.signal),
  });
}

/** What search_files takes: its bounds are the settings'. */
function searchInputSchema(s: FsSettings): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      path: { ...pathProperty(s.sandbox, 'The directory to search in'), default: '.' },
      pattern: {
        type: 'string',
        minLength: 1,
        maxLength: 500,
        description:
          'Name to match: a glob (*, ?, **, [abc], {a,b}) matched against the name, or against the path below `path` when it contains "/"; without glob characters, a substring of the name.',
      },
      content: {
        type: 'string',
        minLength: 1,
        maxLength: 1000,
        description: 'Only files whose text contains this string (plain text, not a regular expression).',
      },
      case_sensitive: { type: 'boolean', default: false, description: 'Match pattern and content with exact case.' },
      max_results: {
        type: 'integer',
        minimum: 1,
        maximum: s.maxSearchResults,
        default: Math.min(100, s.maxSearchResults),
        description: 'Most matches to return.',
      },
      max_depth: { type: 'integer', minimum: 1, maximum: 64, default: 20, description: 'Levels below `path` to search.' },
    },
    additionalProperties: false,
  };
}

const SEARCH_OUTPUT_SCHEMA = {
  type: 'object',
  properties: {
    matches: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          path: { type: 'string' },
          type: { type: 'string', enum: ['file', 'directory', 'symlink', 'other'] },
          lines: {
            type: 'array',
            items: {
              type: 'object',
              properties: { line: { type: 'integer' }, text: { type: 'string' } },
              required: ['line', 'text'],
              additionalProperties: false,
            },
          },
        },
        required: ['path', 'type'],
        additionalProperties: false,
      },
    },
    scanned: { type: 'integer', description: 'Entries looked at' },
    complete: { type: 'boolean', description: 'false when the search stopped early (see stopped)' },
    stopped: { type: 'string', enum: ['max_results', 'max_scanned', 'large_directory'], description: 'Why the search stopped early' },
    skipped_files: { type: 'integer', description: 'Files not searched for content: too large, binary, hard-linked or unreadable' },
  },
  required: ['matches', 'scanned', 'complete', 'skipped_files'],
  additionalProperties: false,
};

/** The search itself: one walk below `path`, names matched, and content grepped where asked, within the bounds. */
async function searchFiles(s: FsSettings, args: SearchArgs, signal: AbortSignal) {
  const { sandbox } = s;
  if (args.pattern === undefined && args.content === undefined) throw new ToolError('Give a name pattern, a content string, or both.');
  const matchName = nameMatcher(args.pattern, args.case_sensitive ?? false);
  const dir = await sandbox.resolve(args.path ?? '.');
  if (!dir.stat?.isDirectory()) throw new PathError(`${quote(dir.display)} is not a directory; search_files searches in a directory.`, 'ENOTDIR');
  const maxResults = Math.min(args.max_results ?? 100, s.maxSearchResults);
  const counters: WalkCounters = { denied: 0, truncatedDirectories: 0, unreadable: 0 };
  const matches: Match[] = [];
  let scanned = 0;
  let skipped = 0;
  let stopped: 'max_results' | 'max_scanned' | 'large_directory' | undefined;
  // One time slice for the walk and the matching alike: the loop gets a turn every few ms, and a cancel or timeout stops the search.
  const slicer = new TimeSlicer(signal);
  for await (const e of walk(
    sandbox,
    dir.real,
    dir.display,
    { maxDepth: args.max_depth ?? 20, maxPerDirectory: s.maxSearchScanned, signal: signal, slicer },
    counters,
  )) {
    if (scanned >= s.maxSearchScanned) {
      stopped = 'max_scanned';
      break;
    }
    scanned++;
    if (!matchName(e)) continue;
    if (args.content === undefined) {
      matches.push({ path: e.display, type: e.type });
    } else {
      if (e.type !== 'file') continue;
      const lines = await grep(e, args.content, args.case_sensitive ?? false, s, slicer);
      if (lines === undefined) skipped++;
      else if (lines.length > 0) matches.push({ path: e.display, type: e.type, lines });
    }
    if (matches.length >= maxResults) {
      stopped = 'max_results';
      break;
    }
  }
  if (!stopped && counters.truncatedDirectories > 0) stopped = 'large_directory';
  const result = { matches, scanned, complete: stopped === undefined, ...(stopped ? { stopped } : {}), skipped_files: skipped };
  return { content: [{ type: 'text', text: render(result) }], structuredContent: result };
}

function nameMatcher(pattern: string | undefined, caseSensitive: boolean): (e: WalkEntry) => boolean {
  if (pattern === undefined) return () => true;
  if (!hasGlobSyntax(pattern)) {
    const needle = caseSensitive ? pattern : pattern.toLowerCase();
    return (e) => (caseSensitive ? e.name : e.name.toLowerCase()).includes(needle);
  }
  let glob: GlobMatcher;
  try {
    glob = compileGlob(pattern.replace(/^\.\//, ''), { caseInsensitive: !caseSensitive });
  } catch (err) {
    if (err instanceof GlobSyntaxError) throw new ToolError(`The pattern is not a valid glob: ${err.message}.`);
    throw err;
  }
  return pattern.includes('/') ? (e) => glob.test(e.relative) : (e) => glob.test(e.name);
}

/** The first matching lines of a text file, or undefined when the file is not searched. */
async function grep(e: WalkEntry, needle: string, caseSensitive: boolean, s: FsSettings, slicer: TimeSlicer): Promise<Match['lines'] | undefined> {
  const stat = await lstatInSandbox(s.sandbox, e.real);
  if (!stat?.isFile() || stat.nlink > 1 || stat.size > s.maxGrepFileBytes) return undefined;
  // openForRead re-checks the inode and the real path after opening.
  let opened: Awaited<ReturnType<typeof openForRead>>;
  try {
    opened = await openForRead({ real: e.real, display: e.display, root: s.sandbox.rootOf(e.real)!, stat, missingDirs: [] });
  } catch {
    return undefined;
  }
  try {
    const buf = Buffer.alloc(Math.min(stat.size, s.maxGrepFileBytes));
    const n = await readFully(opened.handle, buf, 0);
    if (!isText(buf.subarray(0, Math.min(n, SNIFF_BYTES)))) return undefined;
    const text = buf.subarray(0, n).toString('utf8');
    const scan = new SubstringScan(caseSensitive ? needle : needle.toLowerCase());
    const found: NonNullable<Match['lines']> = [];
    // Line by line without splitting the whole file up front; a long line is scanned in pieces,
    // and the event loop gets a turn whenever the slice is used up.
    for (let start = 0, lineNo = 1; start <= text.length && found.length < LINES_PER_FILE; lineNo++) {
      const nl = text.indexOf('\n', start);
      const end = nl === -1 ? text.length : nl;
      const raw = text.slice(start, end);
      const hay = caseSensitive ? raw : raw.toLowerCase();
      scan.reset();
      let hit = false;
      for (let at = 0; at < hay.length && !hit; at += SCAN_PIECE_CHARS) {
        if (at > 0 && slicer.due()) await slicer.pause();
        hit = scan.feed(hay, at, Math.min(hay.length, at + SCAN_PIECE_CHARS));
      }
      if (hit) found.push({ line: lineNo, text: preview(raw) });
      if (nl === -1) break;
      start = nl + 1;
      if (slicer.due()) await slicer.pause();
    }
    return found;
  } finally {
    await opened.handle.close();
  }
}

function preview(line: string): string {
  const trimmed = line.replace(/\r$/, '');
  return trimmed.length > LINE_PREVIEW_CHARS ? `${trimmed.slice(0, LINE_PREVIEW_CHARS)}…` : trimmed;
}

function render(r: { matches: Match[]; scanned: number; complete: boolean; stopped?: string; skipped_files: number }): string {
  const out: string[] = [];
  for (const m of r.matches) {
    out.push(m.type === 'directory' ? `${m.path}/` : m.path);
    for (const l of m.lines ?? []) out.push(`  ${l.line}: ${l.text}`);
  }
  if (out.length === 0) out.push('No matches.');
  if (!r.complete) {
    const why =
      r.stopped === 'max_results'
        ? 'max_results was reached'
        : r.stopped === 'large_directory'
          ? 'a directory was too large to read whole'
          : `${r.scanned} entries were looked at`;
    out.push(`[The search stopped early because ${why}; narrow path or pattern to see the rest.]`);
  }
  if (r.skipped_files > 0) out.push(`[${r.skipped_files} file(s) not searched for content: too large, binary or hard-linked.]`);
  return out.join('\n');
}
