/**
 * Upstreams from files: the config's `upstreams:` (checked against the published schema) and
 * `toolwright serve --upstreams .mcp.json`, a desktop client's servers file mounted as it stands.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { ToolClient } from '../../src/client.js';
import { validateConfig } from '../../src/config/validate.js';
import { startBuiltCli } from '../helpers/cli-process.js';
import { ExitCode } from '../../src/cli/errors.js';
import { runCliCaptured } from '../helpers/cli.js';
import { configProblems } from '../helpers/config.js';
import { EVERYTHING } from './helpers.js';
import { PetstoreApi, SECRETS } from './openapi/petstore-api.js';

const dir = mkdtempSync(join(tmpdir(), 'tw-gateway-serve-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the config file', () => {
  it('takes stdio, HTTP and OpenAPI upstreams with their mount options', () => {
    const config = {
      upstreams: {
        everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'], prefix: 'ev', exclude: ['get-env'], timeoutMs: 5000 },
        remote: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${REMOTE_TOKEN}' }, forwardAuthorization: false },
        petstore: { openapi: './petstore.yaml', baseUrl: 'https://petstore.example.com/v3', headers: { 'X-Api-Key': '${PETSTORE_KEY}' } },
        fs: { command: 'mcp-server-filesystem', tools: { write_file: { approval: 'always', annotations: { destructiveHint: true } } } },
      },
    };
    expect(configProblems(() => validateConfig(config, 'toolwright.config.json'))).toEqual([]);
  });

  it('refuses an upstream that is neither, and a misspelt option', () => {
    expect(configProblems(() => validateConfig({ upstreams: { x: { comand: 'oops' } } }, 'c.json')).join('\n')).toMatch(/upstreams/);
    expect(configProblems(() => validateConfig({ upstreams: { 'bad name': { command: 'x' } } }, 'c.json')).join('\n')).toMatch(/upstreams/);
  });
});

describe('toolwright serve', () => {
  it('--upstreams mounts every server of a .mcp.json, prefixed by its name', async () => {
    const file = join(dir, '.mcp.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { everything: { command: EVERYTHING }, off: { command: 'nope', disabled: true } } }));
    const cli = startBuiltCli(['serve', '--http', '--port', '0', '--upstreams', file], { cwd: dir });
    const [, url] = await cli.waitForStderr(/serving \d+ tool\(s\) on (\S+)/);
    const client = await ToolClient.connect({ url });
    try {
      const names = (await client.listTools()).map((t) => t.name);
      expect(names).toContain('everything_echo');
      const echo = await client.callTool('everything_echo', { message: 'from .mcp.json' });
      expect(echo.content).toEqual([{ type: 'text', text: 'Echo: from .mcp.json' }]);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('stops at start-up when two upstreams give the same name, naming both', async () => {
    const config = join(dir, 'clash.config.json');
    const scripted = { command: process.execPath, args: [resolve('test/gateway/fixtures/scripted-upstream.mjs')], prefix: false };
    writeFileSync(config, JSON.stringify({ upstreams: { one: scripted, two: scripted } }));
    const cli = startBuiltCli(['serve', '--http', '--port', '0', '--config', config], { cwd: dir });
    const { code } = await cli.exit;
    expect(code).not.toBe(0);
    expect(cli.stderr()).toMatch(/tool "echo" of upstream "(one|two)" clashes with upstream "(one|two)" tool/);
  }, 60_000);

  it('stops a stdio upstream with its whole process group at shutdown (what a launcher started goes too)', async () => {
    const record = join(dir, 'group.jsonl');
    const fixture = resolve('test/gateway/fixtures/scripted-upstream.mjs');
    const config = join(dir, 'group.config.json');
    // sh stays the parent (two commands), so the upstream server is its child: a grandchild of toolwright.
    const launcher = { command: 'sh', args: ['-c', `"${process.execPath}" "${fixture}"; true`], env: { RECORD_FILE: record, BEHAVIOUR: 'stubborn' } };
    writeFileSync(config, JSON.stringify({ upstreams: { launched: launcher } }));
    const cli = startBuiltCli(['serve', '--http', '--port', '0', '--config', config], { cwd: dir });
    await cli.waitForStderr(/serving \d+ tool\(s\) on/);
    const pid = (JSON.parse(readFileSync(record, 'utf8').split('\n')[0]) as { started: number }).started;
    // Should the test fail, the stubborn upstream must not outlive it.
    onTestFinished(() => void (alive(pid) && process.kill(pid, 'SIGKILL')));
    expect(alive(pid)).toBe(true);
    cli.child.kill('SIGTERM');
    expect((await cli.exit).code).toBe(0);
    await expect.poll(() => alive(pid), { timeout: 5_000 }).toBe(false);
  }, 60_000);
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('an OpenAPI upstream in the config', () => {
  it('is served by toolwright serve: its operations are prefixed tools that reach the API with the key from the environment', async () => {
    const api = await new PetstoreApi().start();
    onTestFinished(() => api.close());
    copyFileSync(resolve('test/gateway/openapi/fixtures/petstore.yaml'), join(dir, 'petstore.yaml'));
    const config = join(dir, 'openapi.config.yaml');
    const upstream = [
      'upstreams:',
      '  petstore:',
      '    openapi: ./petstore.yaml',
      "    baseUrl: '${PETSTORE_URL}/v3'",
      '    credentials:',
      "      api_key: '${PETSTORE_KEY}'",
      '    include: { tags: [pet] }',
    ];
    writeFileSync(config, `${upstream.join('\n')}\n`);
    const cli = startBuiltCli(['serve', '--http', '--port', '0', '--config', config], {
      cwd: dir,
      env: { PETSTORE_URL: api.url, PETSTORE_KEY: SECRETS.apiKey },
    });
    const [, url] = await cli.waitForStderr(/serving \d+ tool\(s\) on (\S+)/);
    const client = await ToolClient.connect({ url });
    try {
      const names = (await client.listTools()).map((t) => t.name);
      expect(names).toContain('petstore_getPetById');
      expect(names).not.toContain('petstore_placeOrder');
      const pet = await client.callTool('petstore_getPetById', { petId: 1 });
      expect(pet.isError).toBeFalsy();
      expect(pet.structuredContent).toMatchObject({ id: 1 });
      expect(api.received.at(-1)?.headers.api_key).toBe(SECRETS.apiKey);
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe('toolwright doctor --upstreams', () => {
  it('says which upstreams of a servers file work and which do not', async () => {
    const file = join(dir, 'doctor.mcp.json');
    const fixture = resolve('test/gateway/fixtures/scripted-upstream.mjs');
    writeFileSync(
      file,
      JSON.stringify({ mcpServers: { good: { command: process.execPath, args: [fixture] }, broken: { command: 'no-such-command-for-toolwright' } } }),
    );
    const { code, stdout } = await runCliCaptured('doctor', '--upstreams', file);
    expect(code).toBe(ExitCode.failure);
    expect(stdout).toContain('upstream good: works');
    expect(stdout).toContain('upstream broken: does not work');
    expect(stdout).toContain('1 of 2 upstream(s) work');
  }, 60_000);
});
