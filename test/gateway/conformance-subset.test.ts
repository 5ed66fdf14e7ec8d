/**
 * A representative subset of the official conformance server scenarios, run against the gateway
 * (`toolwright serve --http` with only an `upstreams:` entry, `prefix: false`) in front of
 * examples/conformance's server: mixed content with an embedded resource, a missing client
 * capability (-32021, which the upstream decides from the caller's capabilities), an
 * input-required round with the upstream's own keys, a prompt that asks first, and a task's
 * lifecycle. The whole run is `node scripts/conformance.mjs --through-gateway` (~100 s).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServe } from '../helpers/serve-process.js';

const root = resolve('.');
const suite = [
  process.execPath,
  '--import',
  join(root, 'scripts/node20/register.mjs'),
  join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js'),
];
const SCENARIOS = [
  'tools-call-mixed-content',
  'server-stateless',
  'input-required-result-basic-elicitation',
  'input-required-result-non-tool-request',
  'tasks-lifecycle',
];

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tw-gateway-conformance-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The suite's checks for one scenario against `url` (the suite writes them under `out`). */
function runScenario(url: string, scenario: string, out: string): Promise<Array<{ id: string; status: string; errorMessage?: string }>> {
  return new Promise((done, fail) => {
    const child = spawn(suite[0], [...suite.slice(1), 'server', '--url', url, '--scenario', scenario, '--timeout', '60000', '-o', out], {
      cwd: dir,
      stdio: 'ignore',
    });
    child.once('error', fail);
    child.once('exit', () => {
      const folder = readdirSync(out).find((f) => f.includes(scenario));
      if (!folder) return fail(new Error(`the suite saved no results for ${scenario}`));
      done(JSON.parse(readFileSync(join(out, folder, 'checks.json'), 'utf8')));
    });
  });
}

describe('official conformance scenarios through the gateway', () => {
  it('passes a representative subset, as the fixture server does directly', async () => {
    const env = { TOOLWRIGHT_LOG_LEVEL: 'warn', TOOLWRIGHT_AUDIT_DIR: dir };
    const upstream = await startHttpServe(['--host', '127.0.0.1', '--tools', join(root, 'examples/conformance/tools.ts')], { cwd: dir, env });
    const config = join(dir, 'gateway.json');
    // The fixture's task modes (a modern upstream lists none), as scripts/conformance.mjs gives them.
    const tools = {
      slow_compute: { task: 'always' },
      failing_job: { task: 'required' },
      protocol_error_job: { task: 'always' },
      confirm_delete: { task: 'always' },
      multi_input: { task: 'always' },
      test_tool_with_task: { task: { afterMs: 300, required: true } },
    };
    writeFileSync(config, JSON.stringify({ upstreams: { conformance: { url: upstream.url, prefix: false, tools } } }));
    const gateway = await startHttpServe(['--host', '127.0.0.1', '--config', config], { cwd: dir, env: { ...env, TOOLWRIGHT_AUDIT_DIR: join(dir, 'g') } });
    // localhost, as in scripts/conformance.mjs: the suite's DNS-rebinding checks send their own Host.
    const url = gateway.url.replace('127.0.0.1', 'localhost');
    for (const scenario of SCENARIOS) {
      const checks = await runScenario(url, scenario, join(dir, 'out'));
      const failing = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING').map((c) => `${c.id}: ${c.errorMessage}`);
      expect(failing, scenario).toEqual([]);
      expect(checks.length, scenario).toBeGreaterThan(0);
    }
  }, 180_000);
});
