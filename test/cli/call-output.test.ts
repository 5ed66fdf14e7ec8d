import { existsSync, lstatSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../helpers/cli.js';
import { createLogger } from '../../src/runtime/logger.js';
import { ToolServer } from '../../src/server/server.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';
import { tempDir } from '../helpers/temp.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');
const WAV = Buffer.from('RIFF$\0\0\0WAVEfmt \x10\0\0\0\x01\0\x01\0D\xac\0\0\x88X\x01\0\x02\0\x10\0data\0\0\0\0', 'latin1');
const BLOB = Buffer.from([0, 1, 2, 255, 254]);
/** Not a real PNG, but base64 of 30 KiB with a PNG's MIME type, as a tool would echo it. */
const BIG_PNG_BASE64 = Buffer.alloc(30 * 1024, 7).toString('base64');

const run = runCliCaptured;

const mode = (path: string) => lstatSync(path).mode & 0o777;

let http: HttpServerHandle;
beforeAll(async () => {
  const content = (blocks: unknown[]) => () => ({ content: blocks }) as never;
  const server = new ToolServer({
    name: 'cli-output',
    logger: createLogger('silent'),
    audit: false,
    tools: [
      {
        name: 'snapshot',
        description: 'one image',
        inputSchema: { type: 'object' },
        handler: content([
          { type: 'text', text: 'here it is' },
          { type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' },
        ]),
      },
      {
        name: 'media',
        description: 'an image, audio and a blob',
        inputSchema: { type: 'object' },
        handler: content([
          { type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' },
          { type: 'text', text: 'and more' },
          { type: 'audio', data: WAV.toString('base64'), mimeType: 'audio/wav' },
          { type: 'resource', resource: { uri: 'file:///../../etc/passwd', mimeType: 'application/x-thing', blob: BLOB.toString('base64') } },
        ]),
      },
      { name: 'words', description: 'text only', inputSchema: { type: 'object' }, handler: () => 'just words' },
      // As server-filesystem's read_media_file: the image, and the same base64 again in structured content.
      {
        name: 'read_media_file',
        description: 'an image echoed in structured content',
        inputSchema: { type: 'object' },
        handler: () =>
          ({
            content: [{ type: 'image', data: BIG_PNG_BASE64, mimeType: 'image/png' }],
            structuredContent: { content: [{ type: 'image', data: BIG_PNG_BASE64, mimeType: 'image/png' }], note: 'word '.repeat(1_000) },
          }) as never,
      },
    ],
  });
  http = await serveHttp(server, { port: 0 });
});
afterAll(() => http.close());

describe('toolwright call --output', () => {
  it('saves the one image, decoded, mode 0600, says so on stderr, and prints the text as before', async () => {
    const file = join(tempDir('tw-call-out-'), 'shot.png');
    const { code, stdout, stderr } = await run('call', http.url, 'snapshot', '--output', file);
    expect(code).toBe(0);
    expect(readFileSync(file)).toEqual(PNG);
    expect(mode(file)).toBe(0o600);
    expect(stderr).toBe(`toolwright: wrote image (image/png), 70 B, to ${file}\n`);
    expect(stdout).toContain('here it is');
    expect(stdout).toBe((await run('call', http.url, 'snapshot')).stdout);
  });

  it('several binary contents: <file> as a prefix, the extension from each MIME type, names never from the server', async () => {
    const dir = tempDir('tw-call-out-');
    const { code, stderr } = await run('call', http.url, 'media', '--output', join(dir, 'out.png'), '--json');
    expect(code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['out-1.png', 'out-2.wav', 'out-3.png']);
    expect(readFileSync(join(dir, 'out-1.png'))).toEqual(PNG);
    expect(readFileSync(join(dir, 'out-2.wav'))).toEqual(WAV);
    expect(readFileSync(join(dir, 'out-3.png'))).toEqual(BLOB); // unknown type: the given extension
    for (const f of readdirSync(dir)) expect(mode(join(dir, f))).toBe(0o600);
    expect(stderr).toContain(`wrote audio (audio/wav), 44 B, to ${join(dir, 'out-2.wav')}`);
    expect(stderr).toContain('wrote blob of file:///../../etc/passwd (application/x-thing), 5 B');
  });

  it('never overwrites an existing file unless --force, and refuses before writing any', async () => {
    const dir = tempDir('tw-call-out-');
    writeFileSync(join(dir, 'out-2.wav'), 'mine');
    const refused = await run('call', http.url, 'media', '--output', join(dir, 'out'));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('exists; nothing was written (--force replaces it)');
    expect(readdirSync(dir)).toEqual(['out-2.wav']);
    expect(readFileSync(join(dir, 'out-2.wav'), 'utf8')).toBe('mine');
    const forced = await run('call', http.url, 'media', '--output', join(dir, 'out'), '--force');
    expect(forced.code).toBe(0);
    expect(readFileSync(join(dir, 'out-2.wav'))).toEqual(WAV);
    expect(mode(join(dir, 'out-2.wav'))).toBe(0o600);
  });

  it('--force replaces a symlink itself, never the file it points to', async () => {
    const dir = tempDir('tw-call-out-');
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'keep me');
    symlinkSync(victim, join(dir, 'shot.png'));
    expect((await run('call', http.url, 'snapshot', '--output', join(dir, 'shot.png'))).code).toBe(1);
    expect((await run('call', http.url, 'snapshot', '--output', join(dir, 'shot.png'), '--force')).code).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('keep me');
    expect(lstatSync(join(dir, 'shot.png')).isSymbolicLink()).toBe(false);
    expect(readFileSync(join(dir, 'shot.png'))).toEqual(PNG);
  });

  it('an image also echoed in structured content: saved once, and no base64 or huge string reaches the terminal', async () => {
    const dir = tempDir('tw-call-out-');
    const { code, stdout, stderr } = await run('call', http.url, 'read_media_file', '--output', join(dir, 'media.png'));
    expect(code).toBe(0);
    expect(readFileSync(join(dir, 'media.png'))).toEqual(Buffer.from(BIG_PNG_BASE64, 'base64'));
    expect(stderr).toContain('wrote image (image/png), 30.0 KiB');
    expect(stdout).not.toContain(BIG_PNG_BASE64.slice(0, 100));
    expect(stdout).toContain('"data": "[base64 data, 30.0 KiB; not shown: --json shows it, --output saves the result\'s images, audio and blobs]"');
    expect(stdout).toContain('… [3000 more characters; --json shows all]');
    expect(stdout.length).toBeLessThan(3_000);
    // --json is the data as it came.
    const json = await run('call', http.url, 'read_media_file', '--json');
    expect(JSON.parse(json.stdout).structuredContent.content[0].data).toBe(BIG_PNG_BASE64);
  });

  it('a result with nothing binary: says nothing was written; --force alone is a usage error', async () => {
    const dir = tempDir('tw-call-out-');
    const res = await run('call', http.url, 'words', '--output', join(dir, 'x'));
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('just words');
    expect(res.stderr).toContain('no image, audio or blob to save; nothing was written');
    expect(existsSync(join(dir, 'x'))).toBe(false);
    const force = await run('call', http.url, 'words', '--force');
    expect(force.code).toBe(1);
    expect(force.stderr).toContain('--force applies to --output only');
  });
});

describe('toolwright read --output', () => {
  it('writes mode 0600 and refuses to overwrite without --force', async () => {
    const server = new ToolServer({
      name: 'r',
      logger: createLogger('silent'),
      audit: false,
      resources: [{ uri: 'docs://logo', name: 'logo', mimeType: 'image/png', read: () => PNG }],
    });
    const h = await serveHttp(server, { port: 0 });
    try {
      const file = join(tempDir('tw-read-out-'), 'logo.png');
      expect((await run('read', h.url, 'docs://logo', '--output', file)).code).toBe(0);
      expect(mode(file)).toBe(0o600);
      writeFileSync(file, 'changed');
      const again = await run('read', h.url, 'docs://logo', '--output', file);
      expect(again.code).toBe(1);
      expect(readFileSync(file, 'utf8')).toBe('changed');
      expect((await run('read', h.url, 'docs://logo', '--output', file, '--force')).code).toBe(0);
      expect(readFileSync(file)).toEqual(PNG);
    } finally {
      await h.close();
    }
  });
});
