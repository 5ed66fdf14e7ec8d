import { openForRead, readFully } from '../../policy/path-io.js';
import { PathError, quote } from '../../policy/path-errors.js';
import type { PathSandbox } from '../../policy/paths.js';
import { defineTool, ToolError, type Tool } from '../../server/tool.js';
import { analyze, detectDelimiter, type Analysis } from './analyze.js';
import { wantsNumbers, type ColumnSummary, type Operation } from './column-stats.js';
import { inputSchema, outputSchema } from './schema.js';

export interface CsvToolsetOptions {
  /** The same sandbox as the fs toolset: files are read only inside its roots. */
  sandbox: PathSandbox;
  /** Largest file analyze_csv reads, in bytes (default 1 GiB). It streams, so this bounds time, not memory. */
  maxBytes?: number;
  /** Distinct values tracked per column (default 1,000); beyond it, distinct counts are lower bounds, flagged `capped`. */
  maxDistinct?: number;
  /** Columns analyzed when the call names none (default 200). */
  maxColumns?: number;
  /** Largest single record, in bytes (default 1 MiB); a longer one is reported as a CSV error. */
  maxRecordBytes?: number;
}

interface CsvArgs {
  path: string;
  operations: Operation[];
  columns?: Array<string | number>;
  delimiter?: string;
  has_header?: boolean;
}

/** The csv toolset: analyze_csv. */
export function csvTools(options: CsvToolsetOptions): Tool[] {
  const { sandbox } = options;
  const maxBytes = options.maxBytes ?? 1024 * 1024 * 1024;
  const maxDistinct = options.maxDistinct ?? 1_000;
  const maxColumns = options.maxColumns ?? 200;
  const maxRecordBytes = options.maxRecordBytes ?? 1024 * 1024;
  const analyzeCsv = defineTool({
    name: 'analyze_csv',
    title: 'Analyze CSV',
    description:
      'Computes per-column statistics of a CSV file in the workspace (sum, average, count, min, max, distinct values, or all with describe), reading it as a stream so any size works. ' +
      'Use it instead of reading a CSV with read_file and adding numbers yourself. Cells that are not numbers are left out of the numeric results and reported with their row numbers; a column with no numbers at all is text, summarised by its distinct and most frequent values. No side effects.',
    inputSchema: inputSchema(sandbox, maxColumns),
    outputSchema,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    handler: async (args: CsvArgs, ctx) => {
      const target = await sandbox.resolve(args.path);
      if (target.stat?.isDirectory()) throw new PathError(`${quote(target.display)} is a directory; give the path of a CSV file.`, 'EISDIR');
      const { handle, stat } = await openForRead(target);
      try {
        if (stat.size > maxBytes) throw new ToolError(`${quote(target.display)} is ${stat.size} bytes, over the ${maxBytes}-byte limit for analyze_csv.`);
        const head = Buffer.alloc(Math.min(stat.size, 64 * 1024));
        await readFully(handle, head, 0);
        if (head.includes(0)) throw new ToolError(`${quote(target.display)} is a binary file, not CSV text.`);
        const delimiter = args.delimiter ?? detectDelimiter(head.toString('utf8'));
        const hasHeader = args.has_header ?? true;
        const operations = new Set(args.operations);
        const analysis = await analyze(handle, {
          display: target.display,
          size: stat.size,
          operations,
          columns: args.columns,
          delimiter,
          hasHeader,
          maxDistinct,
          maxColumns,
          maxRecordBytes,
          signal: ctx.signal,
          progress: (done, total) => ctx.progress(done, total, `Read ${done} of ${total} bytes`),
        });
        const result = { path: target.display, delimiter, has_header: hasHeader, ...analysis };
        return { content: [{ type: 'text', text: render(result, operations) }], structuredContent: result };
      } finally {
        await handle.close();
      }
    },
  });
  return [analyzeCsv];
}

/** A summary a person (or model) can read without parsing JSON, with the bad cells explained. */
function render(r: Analysis & { path: string; delimiter: string }, ops: ReadonlySet<Operation>): string {
  const out = [`${quote(r.path)}: ${r.rows} data row(s), ${r.columns.length} column(s) analyzed, delimiter ${quote(r.delimiter)}.`];
  for (const c of r.columns) {
    out.push(`- ${quote(c.name)}: ${stats(c)}`);
    if (c.kind === 'number' && c.non_numeric.count > 0 && wantsNumbers(ops)) {
      const where = c.non_numeric.examples.map((e) => `row ${e.row} (line ${e.line}): ${quote(e.value)}`).join('; ');
      out.push(
        `  ${c.non_numeric.count} cell(s) are not numbers and were left out of the numeric results, e.g. ${where}. ` +
          'Numbers are written like 12, -3.5 or 1e6 (no thousands separators, currency signs or decimal commas); empty cells are skipped.',
      );
    }
    if (c.distinct?.capped)
      out.push(`  More than ${c.distinct.count} distinct values: only the first ${c.distinct.count} were tracked, so the distinct count is a lower bound.`);
  }
  out.push(...r.notes);
  return out.join('\n');
}

function stats(c: ColumnSummary): string {
  const parts = c.kind === 'number' ? [`count ${c.count}`, `empty ${c.empty}`, `numeric ${c.numeric}`] : [c.kind, `count ${c.count}`, `empty ${c.empty}`];
  for (const key of ['sum', 'average', 'min', 'max', 'stddev'] as const) {
    if (c[key] !== undefined) parts.push(`${key} ${c[key] === null ? 'n/a' : String(c[key])}`);
  }
  if (c.distinct)
    parts.push(
      `distinct ${c.distinct.count}${c.distinct.capped ? '+' : ''} (top: ${c.distinct.top
        .slice(0, 3)
        .map((t) => `${quote(t.value)}×${t.count}`)
        .join(', ')})`,
    );
  return parts.join(', ');
}
