import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../../src/toolsets/csv/analyze.js';
import { watchEventLoop } from '../../helpers/event-loop.js';
import { workspace, type Workspace } from '../../fixtures/toolsets/workspace.js';

// analyze_csv shares the event loop with every other request (issue 18,
// item 1): however large or wide the file, the loop gets a turn every few
// milliseconds, and a cancelled call stops reading.

let ws: Workspace;
const ROWS = 60_000;
const WIDE_COLUMNS = 400_000;

beforeAll(async () => {
  ws = await workspace({ csv: { maxRecordBytes: 4 * 1024 * 1024 } });
  const out = createWriteStream(ws.file('rows.csv'));
  out.write('id,value,category,note\n');
  for (let i = 1; i <= ROWS; i++) {
    if (!out.write(`${i},${i % 100},cat${i % 7},"note ${i}"\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  // One header record of 400,000 names (2.7 MB, under the 4 MiB record limit configured above).
  const header = Array.from({ length: WIDE_COLUMNS }, (_, i) => `c${i}`).join(',');
  await ws.write('wide.csv', `${header}\n7\n`); // one short data row: only the header is wide
}, 60_000);

afterAll(() => ws.cleanup());

describe('analyze_csv and the event loop', () => {
  it('describes every column of a large file without holding the loop', async () => {
    const watch = watchEventLoop();
    const r = await ws.call('analyze_csv', { path: 'rows.csv', operations: ['describe'] });
    const gap = watch.stop();
    expect(r.structuredContent.rows).toBe(ROWS);
    expect(gap).toBeLessThan(200);
  }, 60_000);

  it('reads a header of 400,000 columns, looking 200 names up in it, without holding the loop', async () => {
    const watch = watchEventLoop();
    const wanted = [...Array.from({ length: 199 }, (_, i) => `c${WIDE_COLUMNS - 1 - i}`), 'c0'];
    const r = await ws.call('analyze_csv', { path: 'wide.csv', operations: ['sum'], columns: wanted });
    const gap = watch.stop();
    expect(r.structuredContent.columns).toHaveLength(200);
    expect(r.structuredContent.columns[0]).toMatchObject({ name: `c${WIDE_COLUMNS - 1}`, index: WIDE_COLUMNS, count: 0, empty: 1 });
    expect(r.structuredContent.columns[199]).toMatchObject({ name: 'c0', index: 1, sum: 7 });
    expect(r.structuredContent.ragged_rows).toBe(1);
    expect(gap).toBeLessThan(200);
  }, 60_000);

  it('stops in the middle of the file when its signal aborts', async () => {
    const { size } = await fs.stat(ws.file('rows.csv'));
    const handle = await fs.open(ws.file('rows.csv'));
    try {
      const controller = new AbortController();
      let read = 0;
      const run = analyze(handle, {
        display: 'rows.csv',
        size: 1,
        operations: new Set(['describe']),
        delimiter: ',',
        hasHeader: true,
        maxDistinct: 1000,
        maxColumns: 10,
        maxRecordBytes: 1 << 20,
        signal: controller.signal,
        progress: (bytes) => {
          read = bytes;
        },
      });
      setTimeout(() => controller.abort(new Error('cancelled by the client')), 20);
      await expect(run).rejects.toThrow();
      expect(read).toBeLessThan(size);
    } finally {
      await handle.close();
    }
  }, 60_000);
});
