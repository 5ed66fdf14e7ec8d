import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import { once } from 'node:events';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../../src/toolsets/csv/analyze.js';
import { parseNumber } from '../../../src/toolsets/csv/column-stats.js';
import { textOf, workspace, type Workspace } from '../../fixtures/toolsets/workspace.js';
import { tsProgram } from '../../helpers/ts-program.js';

let ws: Workspace;
const LARGE_ROWS = 200_000;
/** Rows of the distinct-count file: ids far past the cap of 10, and (like LARGE_ROWS, ≡ 3 mod 7) three categories tied at the top. */
const DISTINCT_ROWS = 703;
const HEAP_FIXTURE = new URL('../../fixtures/toolsets/csv-heap.ts', import.meta.url);
const run = promisify(execFile);

beforeAll(async () => {
  ws = await workspace({ csv: { maxDistinct: 10 } });
  await ws.write('sales.csv', 'region,amount,units\nnorth,10.5,1\nsouth,4.5,2\nnorth,-3,3\neast,,4\n');
  await ws.write('messy.csv', 'id,price\n1,12\n2,n/a\n3,$3\n4,"1,5"\n5,7\n6,1e2\n7,NaN\n8,9\n');
  await ws.write('semi.csv', 'a;b\n1;2\n3;4\n');
  await ws.write('cities.csv', 'city,country,population\nTokyo,Japan,13960000\nOsaka,Japan,2750000\nParis,France,2102650\nLyon,France,\nKyoto,Japan,1460000\n');
  await ws.write('nohead.tsv', '1\tx\n2\ty\n3\tz\n');
  await ws.write('broken.csv', 'a,b\n1,"unclosed\n2,3\n');
  await ws.write('ragged.csv', 'a,b,c\n1,2,3\n4,5\n');
  await writeLarge('large.csv', LARGE_ROWS);
  await writeLarge('distinct.csv', DISTINCT_ROWS);
}, 60_000);

afterAll(() => ws.cleanup());

/** `rows` rows with a wide text column (so the file is far larger than what analysis keeps) and ever-new ids. */
async function writeLarge(rel: string, rows: number): Promise<void> {
  const out = createWriteStream(ws.file(rel));
  const pad = 'p'.repeat(100);
  out.write('id,value,category,note\n');
  for (let i = 1; i <= rows; i++) {
    if (!out.write(`${i},${i % 100},cat${i % 7},"${pad} ${i}"\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

const col = (r: Record<string, any>, name: string) => r.structuredContent.columns.find((c: { name: string }) => c.name === name);

describe('analyze_csv', () => {
  it('computes sum, average, count, min and max per column, with structured output', async () => {
    const r = await ws.call('analyze_csv', { path: 'sales.csv', operations: ['sum', 'average', 'count', 'min', 'max'] });
    expect(r.isError).toBeUndefined();
    expect(r.structuredContent).toMatchObject({ path: 'sales.csv', delimiter: ',', has_header: true, rows: 4, ragged_rows: 0 });
    expect(col(r, 'amount')).toMatchObject({ index: 2, count: 3, empty: 1, numeric: 3, sum: 12, average: 4, min: -3, max: 10.5 });
    expect(col(r, 'units')).toMatchObject({ sum: 10, average: 2.5 });
    expect(textOf(r)).toContain('"amount": count 3, empty 1, numeric 3, sum 12, average 4, min -3, max 10.5');
  });

  it('restricts to the named columns, by name or 1-based position', async () => {
    const r = await ws.call('analyze_csv', { path: 'sales.csv', operations: ['sum'], columns: ['units', 2] });
    expect(r.structuredContent.columns.map((c: { name: string }) => c.name)).toEqual(['units', 'amount']);
  });

  it('explains the cells that are not numbers: how many, which rows, which values', async () => {
    const r = await ws.call('analyze_csv', { path: 'messy.csv', operations: ['sum'], columns: ['price'] });
    const price = col(r, 'price');
    expect(price).toMatchObject({ numeric: 4, sum: 128 });
    expect(price.non_numeric).toEqual({
      count: 4,
      examples: [
        { row: 2, line: 3, value: 'n/a' },
        { row: 3, line: 4, value: '$3' },
        { row: 4, line: 5, value: '1,5' },
        { row: 7, line: 8, value: 'NaN' },
      ],
    });
    expect(textOf(r)).toMatch(/4 cell\(s\) are not numbers and were left out of the numeric results, e\.g\. row 2 \(line 3\): "n\/a"/);
    expect(textOf(r)).toMatch(/no thousands separators, currency signs or decimal commas/);
  });

  it('summarises a text column as text: count, distinct and top values, no numeric statistics and no paragraph on non-numbers', async () => {
    const r = await ws.call('analyze_csv', { path: 'cities.csv', operations: ['describe'] });
    const country = col(r, 'country');
    expect(country).toMatchObject({ kind: 'text', count: 5, empty: 0, numeric: 0, distinct: { count: 2, capped: false } });
    expect(country.distinct.top).toEqual([
      { value: 'Japan', count: 3 },
      { value: 'France', count: 2 },
    ]);
    for (const key of ['sum', 'average', 'min', 'max', 'stddev']) expect(country).not.toHaveProperty(key);
    expect(col(r, 'population')).toMatchObject({ kind: 'number', count: 4, empty: 1, sum: 20272650 });
    const text = textOf(r);
    expect(text).toContain('- "country": text, count 5, empty 0, distinct 2 (top: "Japan"×3, "France"×2)\n');
    expect(text).not.toContain('sum 0');
    expect(text).not.toContain('are not numbers');
  });

  it('asked only for numbers, still says what a text column holds instead of "sum 0"', async () => {
    const r = await ws.call('analyze_csv', { path: 'cities.csv', operations: ['sum'], columns: ['city'] });
    expect(col(r, 'city')).toMatchObject({ kind: 'text', count: 5, distinct: { count: 5 } });
    expect(col(r, 'city')).not.toHaveProperty('sum');
    expect(textOf(r)).toContain('- "city": text, count 5, empty 0, distinct 5 (top: ');
  });

  it('counts distinct values up to the cap and says when it was reached', async () => {
    // The cap is met after 10 ids whatever the file's size: a file of hundreds of rows shows it as
    // well as the 200k-row one, which the two tests below read (the second with distinct counting
    // under a heap smaller than the file) and a third full read here would cost a CPU-second.
    const r = await ws.call('analyze_csv', { path: 'distinct.csv', operations: ['distinct'], columns: ['category', 'id'] });
    expect(col(r, 'category').distinct).toMatchObject({ count: 7, capped: false });
    expect(col(r, 'category').distinct.top[0]).toEqual({ value: 'cat1', count: Math.ceil(DISTINCT_ROWS / 7) });
    expect(col(r, 'id').distinct).toMatchObject({ count: 10, capped: true });
    expect(textOf(r)).toMatch(/More than 10 distinct values.*lower bound/);
  });

  it('detects the delimiter, reads files without a header, and names columns column_N', async () => {
    const semi = await ws.call('analyze_csv', { path: 'semi.csv', operations: ['sum'] });
    expect(semi.structuredContent.delimiter).toBe(';');
    expect(col(semi, 'b').sum).toBe(6);
    const tsv = await ws.call('analyze_csv', { path: 'nohead.tsv', operations: ['count', 'sum'], has_header: false });
    expect(tsv.structuredContent).toMatchObject({ delimiter: '\t', rows: 3 });
    expect(col(tsv, 'column_1').sum).toBe(6);
  });

  it('describes a column: every statistic plus standard deviation', async () => {
    const r = await ws.call('analyze_csv', { path: 'sales.csv', operations: ['describe'], columns: ['units'] });
    const units = col(r, 'units');
    expect(units).toMatchObject({ count: 4, sum: 10, average: 2.5, min: 1, max: 4, distinct: { count: 4, capped: false } });
    expect(units.stddev).toBeCloseTo(Math.sqrt(5 / 3), 10);
  });

  it('reports rows with a different number of fields', async () => {
    const r = await ws.call('analyze_csv', { path: 'ragged.csv', operations: ['count'] });
    expect(r.structuredContent.ragged_rows).toBe(1);
    expect(col(r, 'c')).toMatchObject({ count: 1, empty: 1 });
  });

  it('refuses unknown columns, listing the real ones, and malformed CSV, pointing at the line', async () => {
    const unknown = await ws.call('analyze_csv', { path: 'sales.csv', operations: ['sum'], columns: ['price', 9] });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toBe(
      'No column "price", #9 in "sales.csv". Its 3 column(s): "region", "amount", "units". Columns are named by the header, or by 1-based position.',
    );
    const broken = await ws.call('analyze_csv', { path: 'broken.csv', operations: ['count'] });
    expect(broken.isError).toBe(true);
    expect(textOf(broken)).toMatch(/"broken\.csv" is not valid CSV with delimiter ",": .*line/i);
    expect(JSON.stringify(broken)).not.toContain(ws.base);
  });

  it('validates operations against the enum before running', async () => {
    const r = await ws.call('analyze_csv', { path: 'sales.csv', operations: ['median'] });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/arguments\.operations/);
  });

  it('streams a 200k-row file, reporting progress by bytes', async () => {
    const size = (await fs.stat(ws.file('large.csv'))).size;
    const r = await ws.call(
      'analyze_csv',
      { path: 'large.csv', operations: ['sum', 'count', 'min', 'max'], columns: ['value', 'id'] },
      { meta: { progressToken: 'csv-1' } },
    );
    expect(r.structuredContent.rows).toBe(LARGE_ROWS);
    expect(r.structuredContent.bytes).toBe(size);
    expect(col(r, 'id')).toMatchObject({ count: LARGE_ROWS, sum: (LARGE_ROWS * (LARGE_ROWS + 1)) / 2, min: 1, max: LARGE_ROWS });
    expect(col(r, 'value').sum).toBe((LARGE_ROWS / 100) * 4950);
    const progress = ws.w.written.filter((m) => m.method === 'notifications/progress' && m.params.progressToken === 'csv-1').map((m) => m.params);
    expect(progress.length).toBeGreaterThan(5);
    expect(progress.every((p) => p.total === size)).toBe(true);
    expect(progress.map((p) => p.progress)).toEqual([...progress.map((p) => p.progress)].sort((a, b) => a - b));
  }, 60_000);

  it('needs memory independent of the file size: it finishes with a heap capped below the file size', async () => {
    // Holding the file (or its parsed rows) would need at least twice its size as UTF-16 strings;
    // with a 16 MiB heap and a ~25 MB file, only a streaming analysis completes.
    const size = (await fs.stat(ws.file('large.csv'))).size;
    expect(size).toBeGreaterThan(20 * 1024 * 1024);
    const { stdout } = await run(process.execPath, ['--max-old-space-size=16', ...tsProgram(fileURLToPath(HEAP_FIXTURE)), ws.file('large.csv')]);
    expect(JSON.parse(stdout)).toMatchObject({ rows: LARGE_ROWS, bytes: size });
  }, 60_000);

  it('stops when the call is aborted', async () => {
    const handle = await fs.open(ws.file('large.csv'));
    try {
      const controller = new AbortController();
      controller.abort(new Error('cancelled by the client'));
      const run = analyze(handle, {
        display: 'large.csv',
        size: 1,
        operations: new Set(['sum']),
        delimiter: ',',
        hasHeader: true,
        maxDistinct: 10,
        maxColumns: 10,
        maxRecordBytes: 1 << 20,
        signal: controller.signal,
        progress: () => {},
      });
      await expect(run).rejects.toThrow();
    } finally {
      await handle.close();
    }
  });
});

describe('parseNumber', () => {
  it.each([
    ['12', 12],
    [' -3.5 ', -3.5],
    ['+4', 4],
    ['.5', 0.5],
    ['1e3', 1000],
    ['2.', 2],
  ])('reads %j as %d', (cell, n) => {
    expect(parseNumber(cell)).toBe(n);
  });

  it.each([['n/a'], ['$3'], ['1,5'], ['NaN'], ['Infinity'], ['1e999'], ['0x10'], ['1 000'], ['']])('refuses %j', (cell) => {
    expect(parseNumber(cell)).toBeUndefined();
  });
});
