import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ToolClient } from '../../src/client.js';
import { startBuiltCli } from '../helpers/cli-process.js';
import { auditEnv, tempDir } from '../helpers/temp.js';

/**
 * A tools module whose tools say which version they are: `version`, `slow` (answers once a
 * `release` file appears, after writing `started`: a call held in flight across a reload), and
 * whatever `extra` adds. Its label comes from an imported file, so edits there reload it too.
 */
function toolsModule(extra = ''): string {
  return `import { existsSync, writeFileSync } from 'node:fs';
import { label } from './label.js';
const until = async (file: string) => { while (!existsSync(file)) await new Promise((r) => setTimeout(r, 20)); };
export default [
  { name: 'version', description: 'which version serves', inputSchema: { type: 'object' }, handler: async () => label },
  {
    name: 'slow', description: 'answers once released', inputSchema: { type: 'object' },
    handler: async () => { writeFileSync(${JSON.stringify('started')}, ''); await until('release'); return 'slow ' + label; },
  },
  ${extra}
];
`;
}
const labelModule = (label: string) => `export const label: string = ${JSON.stringify(label)};\n`;

const text = (result: unknown) => (result as { content: { type: string; text: string }[] }).content[0]!.text;

async function startDev(dir: string) {
  const dev = startBuiltCli(['dev', '--tools', 'tools.ts', '--port', '0', '--no-open'], { cwd: dir, env: auditEnv() });
  await dev.waitForStderr(/toolwright dev: watching/);
  const url = /serving \d+ tool\(s\) on (http:\/\/\S+)/.exec(dev.stderr())![1]!;
  const consoleUrl = /console on (http:\/\/\S+)/.exec(dev.stderr())![1]!;
  /** Resolves once the process has said `reloaded` (or failed) `count` times. */
  const reloads = (pattern: RegExp, count: number) =>
    expect.poll(() => dev.stderr().match(new RegExp(pattern, 'g'))?.length ?? 0, { timeout: 20_000, interval: 25 }).toBe(count);
  return { dev, url, consoleUrl, reloads };
}

async function connectBoth(url: string) {
  const legacyChanges: number[] = [];
  const sdk = new SdkClient({ name: 'sdk-legacy', version: '1.0.0' });
  sdk.setNotificationHandler(ToolListChangedNotificationSchema, () => void legacyChanges.push(Date.now()));
  await sdk.connect(new StreamableHTTPClientTransport(new URL(url)));
  onTestFinished(() => sdk.close());
  let modernChanges = 0;
  const modern = await ToolClient.connect({ url }, { era: 'modern', onToolsListChanged: () => modernChanges++ });
  onTestFinished(() => modern.close());
  return { sdk, modern, legacyChanges, modernChanges: () => modernChanges };
}

describe('toolwright dev', () => {
  it('applies an edited tools module to connected legacy and modern clients, in the same sessions, with list_changed', async () => {
    const dir = tempDir('toolwright-dev-');
    writeFileSync(join(dir, 'label.ts'), labelModule('v1'));
    writeFileSync(join(dir, 'tools.ts'), toolsModule());
    const { url, reloads } = await startDev(dir);
    const { sdk, modern, legacyChanges, modernChanges } = await connectBoth(url);
    expect(sdk.getServerCapabilities()?.tools).toEqual({ listChanged: true });
    expect(modern.era).toBe('modern');
    const sessionBefore = (sdk.transport as StreamableHTTPClientTransport).sessionId;
    expect(text(await sdk.callTool({ name: 'version', arguments: {} }))).toBe('v1');

    writeFileSync(
      join(dir, 'tools.ts'),
      toolsModule(`{ name: 'added', description: 'new', inputSchema: { type: 'object' }, handler: async () => 'added ' + label },`),
    );
    await reloads(/toolwright dev: reloaded tools\.ts \(3 tools\)/, 1);
    await expect.poll(() => [legacyChanges.length, modernChanges()], { timeout: 10_000 }).toEqual([1, 1]);
    expect((await sdk.listTools()).tools.map((t) => t.name)).toEqual(['version', 'slow', 'added']);
    expect(text(await sdk.callTool({ name: 'added', arguments: {} }))).toBe('added v1');
    expect((await modern.listTools()).map((t) => t.name)).toContain('added');
    expect(text(await modern.callTool('added'))).toBe('added v1');
    expect((sdk.transport as StreamableHTTPClientTransport).sessionId).toBe(sessionBefore);

    // A file the module imports is watched as well.
    writeFileSync(join(dir, 'label.ts'), labelModule('v2'));
    await reloads(/toolwright dev: reloaded tools\.ts/, 2);
    expect(text(await sdk.callTool({ name: 'version', arguments: {} }))).toBe('v2');
    expect(text(await modern.callTool('version'))).toBe('v2');
  }, 90_000);

  it('keeps the last good version serving through a broken edit, saying where the error is, in the terminal and to the console', async () => {
    const dir = tempDir('toolwright-dev-');
    writeFileSync(join(dir, 'label.ts'), labelModule('good'));
    writeFileSync(join(dir, 'tools.ts'), toolsModule());
    const { dev, url, consoleUrl, reloads } = await startDev(dir);
    const { sdk } = await connectBoth(url);

    writeFileSync(join(dir, 'label.ts'), 'export const label: string = ;\n');
    await reloads(/toolwright dev: reload failed/, 1);
    expect(dev.stderr()).toContain('still serving the last good version');
    expect(dev.stderr()).toMatch(/label\.ts:1:30: Unexpected ";"/);
    expect(text(await sdk.callTool({ name: 'version', arguments: {} }))).toBe('good');

    const token = new URL(consoleUrl).hash.replace('#token=', '');
    const status = async () => (await fetch(new URL('api/dev/reload', consoleUrl), { headers: { 'x-console-token': token } })).json();
    expect(await status()).toMatchObject({ reloads: 0, error: { message: expect.stringMatching(/^label\.ts:1:30: Unexpected ";"/) } });

    // An invalid schema is refused the same way.
    writeFileSync(join(dir, 'label.ts'), labelModule('good'));
    writeFileSync(join(dir, 'tools.ts'), toolsModule(`{ name: 'bad', description: 'x', inputSchema: { type: 'nonsense' }, handler: async () => 'x' },`));
    await dev.waitForStderr(/Invalid tool "bad": /);
    expect((await sdk.listTools()).tools.map((t) => t.name)).toEqual(['version', 'slow']);

    writeFileSync(join(dir, 'tools.ts'), toolsModule());
    await expect.poll(status, { timeout: 20_000 }).not.toHaveProperty('error');
    expect(await status()).toMatchObject({ reloads: expect.any(Number), lastReloadAt: expect.any(String) });
  }, 90_000);

  it('lets a call in flight during a reload finish on the code it started with', async () => {
    const dir = tempDir('toolwright-dev-');
    writeFileSync(join(dir, 'label.ts'), labelModule('old'));
    writeFileSync(join(dir, 'tools.ts'), toolsModule());
    const { url, reloads } = await startDev(dir);
    const { sdk, modern } = await connectBoth(url);

    const inFlight = sdk.callTool({ name: 'slow', arguments: {} });
    await expect.poll(() => existsSync(join(dir, 'started')), { timeout: 10_000 }).toBe(true);
    writeFileSync(join(dir, 'label.ts'), labelModule('new'));
    await reloads(/toolwright dev: reloaded tools\.ts/, 1);
    expect(text(await modern.callTool('version'))).toBe('new');
    writeFileSync(join(dir, 'release'), '');
    expect(text(await inFlight)).toBe('slow old');
  }, 90_000);

  // Never opens a real browser: on Linux with no opener on the PATH, opening fails as on a machine without one.
  it.skipIf(process.platform !== 'linux')(
    'keeps serving when no browser can be opened for the console, and says so',
    async () => {
      const dir = tempDir('toolwright-dev-');
      writeFileSync(join(dir, 'label.ts'), labelModule('v1'));
      writeFileSync(join(dir, 'tools.ts'), toolsModule());
      const dev = startBuiltCli(['dev', '--tools', 'tools.ts', '--port', '0'], { cwd: dir, env: { ...auditEnv(), PATH: dir, DISPLAY: ':404' } });
      await dev.waitForStderr(/no browser could be opened: open the console URL above/);
      const url = /serving \d+ tool\(s\) on (http:\/\/\S+)/.exec(dev.stderr())![1]!;
      const client = await ToolClient.connect({ url });
      onTestFinished(() => client.close());
      expect(text(await client.callTool('version'))).toBe('v1');
    },
    90_000,
  );
});
