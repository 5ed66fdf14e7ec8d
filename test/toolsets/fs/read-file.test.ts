import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textOf, workspace, type Workspace } from '../../fixtures/toolsets/workspace.js';

let ws: Workspace;
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('rest of a tiny png')]);
const lines = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

beforeAll(async () => {
  ws = await workspace({ sandbox: { maxReadBytes: 4096 } });
  await ws.write('notes/hello.txt', 'héllo wörld\n');
  await ws.write('notes/lines.txt', lines);
  await ws.write('img/pixel.png', PNG);
  await ws.write('img/not-really.png', 'just text in a png name');
  await ws.write('bin/blob.dat', Buffer.from([1, 2, 0, 3, 255, 254]));
  await ws.write('big.txt', 'x'.repeat(10_000));
  await ws.write('big.png', Buffer.concat([PNG, Buffer.alloc(10_000)]));
});

afterAll(() => ws.cleanup());

describe('read_file', () => {
  it('returns a UTF-8 text file as one text block', async () => {
    const r = await ws.call('read_file', { path: 'notes/hello.txt' });
    expect(r.isError).toBeUndefined();
    expect(r.content).toEqual([{ type: 'text', text: 'héllo wörld\n' }]);
  });

  it('reads a byte window on character boundaries and says where to continue', async () => {
    // "é" is 2 bytes (offsets 1-2); a window of 2 bytes from 0 must not split it.
    const r = await ws.call('read_file', { path: 'notes/hello.txt', offset: 0, max_bytes: 2 });
    expect(r.content[0].text).toBe('h');
    expect(r.content[1].text).toMatch(/continue with offset: 1/);
    const next = await ws.call('read_file', { path: 'notes/hello.txt', offset: 2, max_bytes: 4 });
    expect(next.content[0].text).toBe('llo');
  });

  it('reads a range of lines, and says when the file goes on', async () => {
    const r = await ws.call('read_file', { path: 'notes/lines.txt', start_line: 10, end_line: 12 });
    expect(r.content[0].text).toBe('line 10\nline 11\nline 12\n');
    expect(r.content[1].text).toMatch(/continue with start_line: 13/);
    const tail = await ws.call('read_file', { path: 'notes/lines.txt', start_line: 99 });
    expect(tail.content).toEqual([{ type: 'text', text: 'line 99\nline 100\n' }]);
    const past = await ws.call('read_file', { path: 'notes/lines.txt', start_line: 500 });
    expect(textOf(past)).toMatch(/has only 100 lines/);
  });

  it('stops a line range at max_bytes', async () => {
    const r = await ws.call('read_file', { path: 'notes/lines.txt', start_line: 1, max_bytes: 10 });
    expect(r.content[0].text).toBe('line 1\nlin');
    expect(r.content[1].text).toMatch(/max_bytes inside line 2/);
  });

  it('returns an image, recognized by its magic bytes, as an image block', async () => {
    const r = await ws.call('read_file', { path: 'img/pixel.png' });
    expect(r.content).toEqual([{ type: 'image', mimeType: 'image/png', data: PNG.toString('base64') }]);
    const fake = await ws.call('read_file', { path: 'img/not-really.png' });
    expect(fake.content[0]).toEqual({ type: 'text', text: 'just text in a png name' });
  });

  it('refuses other binary data unless asked for base64, which comes as a resource', async () => {
    const refused = await ws.call('read_file', { path: 'bin/blob.dat' });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/binary file.*mode: "base64"/);
    const r = await ws.call('read_file', { path: 'bin/blob.dat', mode: 'base64' });
    expect(r.content[0]).toEqual({
      type: 'resource',
      resource: { uri: 'toolwright-fs:///bin/blob.dat', mimeType: 'application/octet-stream', blob: Buffer.from([1, 2, 0, 3, 255, 254]).toString('base64') },
    });
  });

  it('caps a read at max_bytes (itself capped by the sandbox) and refuses an image over the cap', async () => {
    const r = await ws.call('read_file', { path: 'big.txt' });
    expect(r.content[0].text).toHaveLength(4096);
    expect(r.content[1].text).toMatch(/Bytes 0–4096 of 10000; continue with offset: 4096/);
    const tooMuch = await ws.call('read_file', { path: 'big.txt', max_bytes: 5000 });
    expect(tooMuch.isError).toBe(true);
    expect(textOf(tooMuch)).toMatch(/max_bytes/);
    const img = await ws.call('read_file', { path: 'big.png' });
    expect(img.isError).toBe(true);
    expect(textOf(img)).toMatch(/image of .* over the 4 KiB read limit/);
  });

  it('refuses a directory, pointing at list_directory, and mixing offset with lines', async () => {
    expect(textOf(await ws.call('read_file', { path: 'notes' }))).toMatch(/is a directory; use list_directory/);
    expect(textOf(await ws.call('read_file', { path: 'notes/lines.txt', offset: 3, start_line: 2 }))).toMatch(/either offset or start_line/);
  });
});
