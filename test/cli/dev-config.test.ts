import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ToolClient } from '../../src/client.js';
import { startBuiltCli } from '../helpers/cli-process.js';
import { auditEnv, tempDir } from '../helpers/temp.js';

const prompt = (description: string) => `---\ndescription: ${description}\n---\nSay hello.\n`;
const config = (toolsets: string, extra = '') =>
  `tools: [./tools.mjs]\ntoolsets:\n${toolsets}\nprompts:\n  folder: ./prompts\nresources:\n  folders: [./notes]\nskills:\n  folder: ./skills\n${extra}`;
const skill = (description: string) => `---\nname: greeting\ndescription: ${description}\n---\n# Greeting\n`;
const tools = `export default [{ name: 'mine', description: 'mine', inputSchema: { type: 'object' }, handler: async () => 'mine' }];\n`;

describe('toolwright dev with a config', () => {
  it('applies prompt and resource folder edits and config edits to connected clients, and says what needs a restart', async () => {
    const dir = tempDir('toolwright-dev-config-');
    mkdirSync(join(dir, 'prompts'));
    mkdirSync(join(dir, 'notes'));
    writeFileSync(join(dir, 'prompts', 'hello.md'), prompt('first'));
    writeFileSync(join(dir, 'notes', 'a.md'), 'a');
    mkdirSync(join(dir, 'skills', 'greeting'), { recursive: true });
    writeFileSync(join(dir, 'skills', 'greeting', 'SKILL.md'), skill('Says hello'));
    writeFileSync(join(dir, 'tools.mjs'), tools);
    writeFileSync(join(dir, 'toolwright.config.yaml'), config('  math: {}'));
    const dev = startBuiltCli(['dev', '--port', '0', '--no-open'], { cwd: dir, env: auditEnv() });
    await dev.waitForStderr(/toolwright dev: watching tools\.mjs, toolwright\.config\.yaml and the folders prompts, notes, skills/);
    const url = /serving \d+ tool\(s\) on (http:\/\/\S+)/.exec(dev.stderr())![1]!;

    const legacy: string[] = [];
    const sdk = new SdkClient({ name: 'sdk-legacy', version: '1.0.0' });
    sdk.setNotificationHandler(PromptListChangedNotificationSchema, () => void legacy.push('prompts'));
    sdk.setNotificationHandler(ResourceListChangedNotificationSchema, () => void legacy.push('resources'));
    await sdk.connect(new StreamableHTTPClientTransport(new URL(url)));
    onTestFinished(() => sdk.close());
    const modern: string[] = [];
    const client = await ToolClient.connect({ url }, { era: 'modern', onPromptsListChanged: () => modern.push('prompts') });
    onTestFinished(() => client.close());

    writeFileSync(join(dir, 'prompts', 'bye.md'), prompt('second'));
    await expect.poll(() => [legacy.includes('prompts'), modern.includes('prompts')], { timeout: 20_000 }).toEqual([true, true]);
    expect((await sdk.listPrompts()).prompts.map((p) => p.name).sort()).toEqual(['bye', 'hello']);
    expect((await client.listPrompts()).map((p) => p.name).sort()).toEqual(['bye', 'hello']);

    writeFileSync(join(dir, 'notes', 'b.md'), 'b');
    await expect.poll(() => legacy.includes('resources'), { timeout: 20_000 }).toBe(true);
    expect((await sdk.listResources()).resources.map((r) => r.name).sort()).toEqual(['a.md', 'b.md', 'greeting', 'notes']);

    // A skill edited: listed with its new frontmatter and digest, and read as it now is (the digest check holds).
    const [listed] = await client.skills.list();
    writeFileSync(join(dir, 'skills', 'greeting', 'SKILL.md'), skill('Says hello, politely'));
    await expect.poll(async () => (await client.skills.list())[0]?.frontmatter.description, { timeout: 20_000 }).toBe('Says hello, politely');
    const [now] = await client.skills.list();
    const digest = (entry: typeof now) => (entry!.resources === 'dynamic' ? undefined : entry!.resources[0]!.digest);
    expect(digest(now)).toEqual(expect.any(String));
    expect(digest(now)).not.toBe(digest(listed));
    const read = await sdk.readResource({ uri: now!.uri });
    expect((read.contents[0] as { text: string }).text).toContain('politely');

    const before = (await sdk.listTools()).tools.map((t) => t.name);
    expect(before).toContain('mine');
    expect(before).not.toContain('get_current_time');
    writeFileSync(join(dir, 'toolwright.config.yaml'), config('  math: {}\n  time: {}', 'server:\n  timeoutMs: 5000\n'));
    await dev.waitForStderr(/reloaded toolwright\.config\.yaml/);
    expect(dev.stderr()).toMatch(/server changed in toolwright\.config\.yaml: restart toolwright dev to apply it/);
    const after = (await sdk.listTools()).tools.map((t) => t.name);
    expect(after).toEqual(expect.arrayContaining([...before, 'get_current_time']));
    expect(text(await sdk.callTool({ name: 'mine', arguments: {} }))).toBe('mine');

    // A config that no longer validates changes nothing.
    writeFileSync(join(dir, 'toolwright.config.yaml'), 'toolsets: [not, a, map]\n');
    await dev.waitForStderr(/reload failed; still serving the last good version:\n.*toolwright\.config\.yaml/);
    expect((await sdk.listTools()).tools.map((t) => t.name)).toEqual(after);
  }, 90_000);
});

const text = (result: unknown) => (result as { content: { type: string; text: string }[] }).content[0]!.text;
