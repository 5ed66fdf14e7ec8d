import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../helpers/cli.js';
import { createLogger } from '../../src/runtime/logger.js';
import { ToolServer } from '../../src/server/server.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';
import { tempDir } from '../helpers/temp.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');

const run = runCliCaptured;

let http: HttpServerHandle;
beforeAll(async () => {
  const server = new ToolServer({
    name: 'cli-primitives',
    logger: createLogger('silent'),
    audit: false,
    resources: [
      {
        uri: 'docs://readme',
        name: 'readme',
        title: 'Read me',
        description: 'What this server is',
        mimeType: 'text/markdown',
        read: () => '# Hello\nfrom the server\x1b]0;pwned\x07',
      },
      { uri: 'docs://logo', name: 'logo', mimeType: 'image/png', read: () => PNG },
    ],
    resourceTemplates: [{ uriTemplate: 'docs://pages/{page}', name: 'pages', description: 'A page by name', read: (_u, { page }) => `page ${page}` }],
    prompts: [
      {
        name: 'code_review',
        description: 'Review code',
        arguments: [{ name: 'code', description: 'The code', required: true }, { name: 'language' }],
        get: ({ code, language }) => [
          { role: 'user', content: `Review this ${language ?? 'code'}:\n${code}` },
          { role: 'user', content: { type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' } },
        ],
      },
    ],
  });
  http = await serveHttp(server, { port: 0 });
});
afterAll(() => http.close());

describe('toolwright resources and read', () => {
  it('lists resources and templates for people, and as JSON', async () => {
    const { code, stdout } = await run('resources', http.url);
    expect(code).toBe(0);
    expect(stdout).toContain('RESOURCES (2)\ndocs://readme  Read me  text/markdown\n    What this server is\ndocs://logo  logo  image/png');
    expect(stdout).toContain('TEMPLATES (1)');
    expect(stdout).toContain('docs://pages/{page}  pages');
    const json = JSON.parse((await run('resources', http.url, '--json', '--era', 'legacy')).stdout);
    expect(json.resources.map((r: any) => r.uri)).toEqual(['docs://readme', 'docs://logo']);
    expect(json.resourceTemplates[0].uriTemplate).toBe('docs://pages/{page}');
  });

  it('prints a text resource, and reads through a template', async () => {
    const res = await run('read', http.url, 'docs://readme');
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('# Hello\nfrom the server\x1b]0;pwned\x07\n'); // not a terminal: the bytes as they are, for pipes
    expect((await run('read', http.url, 'docs://pages/intro')).stdout).toBe('page intro\n');
  });

  it('writes a blob to --output, and describes it otherwise', async () => {
    const file = join(tempDir('tw-cli-read-'), 'logo.png');
    const written = await run('read', http.url, 'docs://logo', '--output', file);
    expect(written.code).toBe(0);
    expect(readFileSync(file)).toEqual(PNG);
    const described = await run('read', http.url, 'docs://logo');
    expect(described.stdout).toContain('docs://logo  image/png  70 bytes (binary)');
    expect(described.stderr).toContain('--output');
  });

  it("fails with exit 2 and the server's message for a resource that does not exist", async () => {
    const res = await run('read', http.url, 'docs://nope');
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/Resource not found/);
  });
});

describe('toolwright prompts and prompt', () => {
  it('lists prompts with their arguments', async () => {
    const { code, stdout } = await run('prompts', http.url);
    expect(code).toBe(0);
    expect(stdout).toBe('code_review code language?\n    Review code\n    code: The code\n\n1 prompt\n');
  });

  it('gets a prompt with key=value arguments, media summarized', async () => {
    const { code, stdout } = await run('prompt', http.url, 'code_review', 'code=x = 1', 'language=python');
    expect(code).toBe(0);
    expect(stdout).toBe('Review code\n\n[user]\nReview this python:\nx = 1\n\n[user]\n(image, image/png, 70 bytes)\n');
    const json = JSON.parse((await run('prompt', http.url, 'code_review', 'code=y', '--json')).stdout);
    expect(json.messages[0].content.text).toBe('Review this code:\ny');
  });

  it("reports a missing required argument (the server's -32602) and malformed pairs", async () => {
    const missing = await run('prompt', http.url, 'code_review');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/code/);
    const malformed = await run('prompt', http.url, 'code_review', 'oops');
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toMatch(/key=value/);
  });
});
