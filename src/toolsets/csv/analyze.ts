import type { FileHandle } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { quote } from '../../policy/path-errors.js';
import { ToolError } from '../../server/tool.js';
import { TimeSlicer } from '../time-slice.js';
import { ColumnStats, type ColumnSummary, type Operation } from './column-stats.js';

interface AnalyzeRequest {
  display: string;
  size: number;
  operations: ReadonlySet<Operation>;
  columns?: Array<string | number>;
  delimiter: string;
  hasHeader: boolean;
  maxDistinct: number;
  maxColumns: number;
  maxRecordBytes: number;
  signal: AbortSignal;
  progress: (bytes: number, total: number) => void;
}

export interface Analysis {
  rows: number;
  bytes: number;
  ragged_rows: number;
  columns: ColumnSummary[];
  notes: string[];
}

/** How often progress is reported: every this many bytes. */
const PROGRESS_STEP = 1024 * 1024;
/**
 * Bytes handed to the parser at a time. csv-parse works through what it is
 * given in one go, at a microsecond or more a field: a 64 KiB read of
 * one-character fields (32,768 of them) held the event loop for tens of
 * milliseconds, more on a loaded machine.
 */
const PARSE_SLICE_BYTES = 4 * 1024;

/**
 * Streams the file through csv-parse and folds each record into per-column
 * statistics. Memory holds one record (capped by maxRecordBytes) and the
 * per-column accumulators, never the file: a large file costs time only, and
 * that time is shared: the loop over records (and over a wide header's
 * names) gives the event loop a turn every few milliseconds and stops when
 * the call is cancelled or times out.
 */
export async function analyze(handle: FileHandle, req: AnalyzeRequest): Promise<Analysis> {
  // Loaded at the first analysis, not at start-up: every `serve` with the built-in tools would
  // otherwise load the parser's 12 modules whether or not a CSV is ever read.
  const { CsvError, parse } = await import('csv-parse');
  const parser = parse({
    delimiter: req.delimiter,
    bom: true,
    info: true,
    relax_column_count: true,
    skip_empty_lines: true,
    max_record_size: req.maxRecordBytes,
  });
  const input = handle.createReadStream({ start: 0, autoClose: false, highWaterMark: 64 * 1024 });
  let bytes = 0;
  let reported = 0;
  input.on('data', (chunk) => {
    bytes += chunk.length;
    if (bytes - reported >= PROGRESS_STEP) {
      reported = bytes;
      req.progress(bytes, req.size);
    }
  });
  let stats: ColumnStats[] | undefined;
  let width = 0;
  let rows = 0;
  let ragged = 0;
  const notes: string[] = [];
  const slicer = new TimeSlicer(req.signal);
  let refusal: unknown;
  try {
    await pipeline(
      input,
      (chunks: AsyncIterable<Buffer>) => inSlices(chunks, slicer),
      parser,
      async (records: AsyncIterable<{ record: string[]; info: { lines: number } }>) => {
        for await (const { record, info } of records) {
          if (slicer.due()) await slicer.pause();
          if (!stats) {
            width = record.length;
            const names = await columnNames(record, req.hasHeader, slicer);
            try {
              stats = await selectColumns(names, req, notes, slicer);
            } catch (err) {
              // pipeline() reports a consumer's throw as a bare AbortError; keep the real reason.
              refusal = err;
              throw err;
            }
            if (req.hasHeader) continue;
          }
          rows++;
          if (record.length !== width) ragged++;
          for (const col of stats) col.add(record[col.index - 1], rows, info.lines);
        }
      },
      { signal: req.signal },
    );
  } catch (err) {
    if (refusal) throw refusal;
    if (req.signal.aborted) throw err;
    if (err instanceof CsvError) {
      const message = err.message.length > 300 ? `${err.message.slice(0, 300)}…` : err.message;
      throw new ToolError(
        `${quote(req.display)} is not valid CSV with delimiter ${quote(req.delimiter)}: ${message} Check the delimiter and the quoting (a field with the delimiter, a quote or a line break must be in double quotes).`,
      );
    }
    throw err;
  }
  req.progress(bytes, req.size);
  if (!stats) {
    stats = [];
    notes.push('The file holds no records.');
  }
  if (ragged > 0) notes.push(`${ragged} row(s) have a different number of fields than the first row; missing fields count as empty.`);
  return { rows, bytes, ragged_rows: ragged, columns: stats.map((c) => c.summary(req.operations)), notes };
}

/** The file's chunks cut into parser-sized slices, with a turn for the event loop whenever the time slice is used up. */
async function* inSlices(chunks: AsyncIterable<Buffer>, slicer: TimeSlicer): AsyncGenerator<Buffer> {
  for await (const chunk of chunks) {
    for (let at = 0; at < chunk.length; at += PARSE_SLICE_BYTES) {
      if (slicer.due()) await slicer.pause();
      yield chunk.subarray(at, at + PARSE_SLICE_BYTES);
    }
  }
}

/** Names between two looks at the clock in the loops over a header: a header may hold as many names as fit in maxRecordBytes. */
const NAMES_PER_CHECK = 2_048;

/**
 * The columns' names: header cells (blanks get a position name, duplicates a suffix, so every column can be
 * asked for by name), or without a header column_1, column_2, …
 */
async function columnNames(first: string[], hasHeader: boolean, slicer: TimeSlicer): Promise<string[]> {
  const seen = new Map<string, number>();
  const names: string[] = [];
  for (let i = 0; i < first.length; i++) {
    if (i % NAMES_PER_CHECK === 0 && slicer.due()) await slicer.pause();
    let name = (hasHeader ? first[i].trim() : '') || `column_${i + 1}`;
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    if (n > 1) name = `${name} (${n})`;
    names.push(name);
  }
  return names;
}

/** Each name's first position, built once: looking each asked-for name up with indexOf costs names × asked. */
async function positions(names: string[], slicer: TimeSlicer): Promise<Map<string, number>> {
  const at = new Map<string, number>();
  for (let i = 0; i < names.length; i++) {
    if (i % NAMES_PER_CHECK === 0 && slicer.due()) await slicer.pause();
    if (!at.has(names[i])) at.set(names[i], i);
  }
  return at;
}

async function selectColumns(names: string[], req: AnalyzeRequest, notes: string[], slicer: TimeSlicer): Promise<ColumnStats[]> {
  const distinct = req.operations.has('distinct') || req.operations.has('describe');
  const make = (i: number) => new ColumnStats(names[i], i + 1, distinct, req.maxDistinct);
  if (!req.columns || req.columns.length === 0) {
    if (names.length > req.maxColumns)
      notes.push(`Only the first ${req.maxColumns} of ${names.length} columns were analyzed; name the columns you need with columns.`);
    return names.slice(0, req.maxColumns).map((_, i) => make(i));
  }
  const picked: ColumnStats[] = [];
  const missing: string[] = [];
  const byName = req.columns.some((c) => typeof c === 'string') ? await positions(names, slicer) : undefined;
  for (const wanted of req.columns) {
    const i = typeof wanted === 'number' ? wanted - 1 : (byName!.get(wanted) ?? -1);
    if (i < 0 || i >= names.length) missing.push(typeof wanted === 'number' ? `#${wanted}` : quote(wanted));
    else if (!picked.some((c) => c.index === i + 1)) picked.push(make(i));
  }
  if (missing.length > 0) {
    const shown = names.slice(0, 50).map(quote).join(', ');
    throw new ToolError(
      `No column ${missing.join(', ')} in ${quote(req.display)}. Its ${names.length} column(s): ${shown}${names.length > 50 ? ', …' : ''}. Columns are named by the header, or by 1-based position.`,
    );
  }
  return picked;
}

/**
 * Guesses the delimiter from the first line: the candidate seen most often
 * outside double quotes (comma when none is seen).
 */
export function detectDelimiter(head: string): string {
  const candidates = [',', ';', '\t', '|'];
  const counts = new Map(candidates.map((c) => [c, 0]));
  let quoted = false;
  for (const ch of head) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    else if (!quoted && counts.has(ch)) counts.set(ch, counts.get(ch)! + 1);
  }
  let best = ',';
  for (const c of candidates) if (counts.get(c)! > counts.get(best)!) best = c;
  return best;
}
