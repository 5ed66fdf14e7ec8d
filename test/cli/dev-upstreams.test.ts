import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ToolClient } from '../../src/client.js';
import { startBuiltCli } from '../helpers/cli-process.js';
import { auditEnv, tempDir } from '../helpers/temp.js';

/** A tools module of one tool, `version`, answering `label`, plus what `extra` adds. */
const toolsModule = (label: string, extra = '') =>
  `export default [\n  { name: 'version', description: 'which version serves', inputSchema: { type: 'object' }, handler: async () => ${JSON.stringify(label)} },\n  ${extra}\n];\n`;
const text = (result: unknown) => (result as { content: { type: string; text: string }[] }).content[0]!.text;

/**
 * `toolwright dev --upstreams .mcp.json`: the servers file mounted as `serve --upstreams` mounts
 * it, beside the module being edited; reloads replace the module's tools only, and the file
 * itself is served, not reloaded (said on the terminal).
 */
describe('toolwright dev --upstreams', () => {
  it("serves a servers file's upstreams beside the reloaded module, keeps them through reloads, and refuses a module tool that takes an upstream's name", async () => {
    const dir = tempDir('toolwright-dev-upstreams-');
    writeFileSync(join(dir, 'tools.ts'), toolsModule('v1'));
    const upstream = { command: process.execPath, args: [resolve('test/gateway/fixtures/scripted-upstream.mjs')] };
    writeFileSync(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { up: upstream } }));
    const dev = startBuiltCli(['dev', '--tools', 'tools.ts', '--upstreams', '.mcp.json', '--port', '0', '--no-open'], { cwd: dir, env: auditEnv() });
    await dev.waitForStderr(/toolwright dev: \.mcp\.json is served, not reloaded: restart to change the upstreams/);
    const url = /serving \d+ tool\(s\) on (http:\/\/\S+)/.exec(dev.stderr())![1]!;
    const client = await ToolClient.connect({ url });
    onTestFinished(() => client.close());
    expect((await client.listTools()).map((t) => t.name)).toEqual(expect.arrayContaining(['version', 'up_echo']));
    expect(text(await client.callTool('up_echo', { text: 'hello' }))).toContain('hello');

    // A module tool named as an upstream's is a clash: the reload is refused, both keep serving.
    writeFileSync(
      join(dir, 'tools.ts'),
      toolsModule('v2', `{ name: 'up_echo', description: 'mine', inputSchema: { type: 'object' }, handler: async () => 'mine' },`),
    );
    await dev.waitForStderr(/toolwright dev: reload failed/);
    expect(dev.stderr()).toMatch(/"up_echo".*already registered/);
    expect(text(await client.callTool('version'))).toBe('v1');
    expect(text(await client.callTool('up_echo', { text: 'still upstream' }))).toContain('still upstream');

    // A good edit replaces the module's tools and leaves the upstream's alone.
    writeFileSync(join(dir, 'tools.ts'), toolsModule('v3'));
    await dev.waitForStderr(/toolwright dev: reloaded tools\.ts \(1 tools?\)/);
    expect(text(await client.callTool('version'))).toBe('v3');
    const names = (await client.listTools()).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['version', 'up_echo', 'up_wait']));
  }, 90_000);
});
