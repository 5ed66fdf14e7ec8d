/**
 * `toolwright audit --upstream <name>` against a real gateway's trail: `toolwright serve` with a
 * config whose `upstreams:` holds another toolwright (stdio, started by the gateway) and whose
 * `tools:` holds a local tool. After one call of each, the filter lists only the relayed call,
 * and the table names the upstream beside it ('-' for the gateway's own tool).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolClient } from '../../src/client.js';
import { builtCli, startBuiltCli } from '../helpers/cli-process.js';
import { runCliCaptured } from '../helpers/cli.js';
import { auditEnv, tempDir } from '../helpers/temp.js';

const UPSTREAM_TOOLS = resolve('test/fixtures/cli/tools.mjs'); // `shout`

/** The gateway's folder: its config (an upstream named `loud` and a local tool) and its own SQLite trail. */
function gatewayFolder(): { config: string; db: string } {
  const dir = tempDir('tw-gateway-audit-');
  const upstreamState = join(dir, 'upstream-state');
  mkdirSync(upstreamState);
  writeFileSync(
    join(dir, 'local.mjs'),
    "export default [{ name: 'whisper', description: 'lower-cases text', inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, handler: ({ text }) => String(text).toLowerCase() }];\n",
  );
  const config = join(dir, 'toolwright.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      server: { audit: { sqlite: './audit.db' } },
      tools: ['./local.mjs'],
      upstreams: {
        // The upstream keeps its own trail elsewhere: the gateway's lists only what the gateway served.
        loud: {
          command: process.execPath,
          args: [builtCli, 'serve', '--stdio', '--tools', UPSTREAM_TOOLS],
          env: { ...auditEnv(), TOOLWRIGHT_AUDIT_DIR: upstreamState },
        },
      },
    }),
  );
  return { config, db: join(dir, 'audit.db') };
}

function jsonLines(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('toolwright audit --upstream on a gateway', () => {
  it('lists only the calls relayed to that upstream, and the table names the upstream', async () => {
    const { config, db } = gatewayFolder();
    const gateway = startBuiltCli(['serve', '--http', '--port', '0', '--config', config]);
    const [, url] = await gateway.waitForStderr(/serving \d+ tool\(s\) on (\S+)/);
    const client = await ToolClient.connect({ url });
    try {
      await expect.poll(async () => (await client.listTools({ refresh: true })).map((t) => t.name), { timeout: 20_000 }).toContain('loud_shout');
      expect((await client.callTool('loud_shout', { text: 'relayed' })).content).toEqual([{ type: 'text', text: 'RELAYED' }]);
      expect((await client.callTool('whisper', { text: 'LOCAL' })).content).toEqual([{ type: 'text', text: 'local' }]);
    } finally {
      await client.close();
    }
    gateway.child.kill('SIGTERM');
    await gateway.exit;

    const everything = await runCliCaptured('audit', '--db', db, '--json');
    expect(everything.code).toBe(0);
    const calls = jsonLines(everything.stdout).filter((r) => r.method === undefined || r.method === 'tools/call');
    expect(calls.map((r) => [r.tool, r.upstream])).toEqual([
      ['loud_shout', 'loud'],
      ['whisper', undefined],
    ]);

    const relayed = await runCliCaptured('audit', '--db', db, '--upstream', 'loud', '--json');
    expect(relayed.code).toBe(0);
    expect(jsonLines(relayed.stdout).map((r) => [r.tool, r.upstream, r.status])).toEqual([['loud_shout', 'loud', 'ok']]);

    // The same through the config, as an operator runs it; an upstream nothing went to matches nothing.
    const byConfig = await runCliCaptured('audit', '--config', config, '--upstream', 'loud', '--json');
    expect(jsonLines(byConfig.stdout).map((r) => r.tool)).toEqual(['loud_shout']);
    expect((await runCliCaptured('audit', '--db', db, '--upstream', 'quiet')).stdout).toBe('No recorded calls match.\n');

    const table = (await runCliCaptured('audit', '--db', db)).stdout.trimEnd().split('\n');
    expect(table[0]).toMatch(/^TIME\s+TOOL\s+UPSTREAM\s+STATUS\s+MS\s+PRINCIPAL\s+CLIENT\s+ARGUMENTS$/);
    expect(table.find((l) => l.includes('loud_shout'))).toMatch(/\bloud_shout\s+loud\s+ok\s/);
    expect(table.find((l) => l.includes('whisper'))).toMatch(/\bwhisper\s+-\s+ok\s/);
    expect((await runCliCaptured('audit', '--db', db, '--upstream', 'loud')).stdout).not.toContain('whisper');
  }, 60_000);
});
