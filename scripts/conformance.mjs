#!/usr/bin/env node
// Runs the official MCP conformance suite (server leg) against toolwright's CLI
// serving the fixture tools, once per protocol revision, each against its
// expected-failures baseline. Exits non-zero on any unexpected failure or stale entry.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const revisions = process.argv.slice(2).length ? process.argv.slice(2) : ['2026-07-28', '2025-11-25'];
const suite = join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

const port = await freePort();
// The suite's working files and the server's audit trail, removed at the end.
const workDir = mkdtempSync(join(tmpdir(), 'toolwright-conformance-'));
const server = spawn(process.execPath, [join(root, 'dist/cli/main.js'), 'serve', '--http', '--host', '127.0.0.1', '--port', String(port), '--tools', join(root, 'examples/conformance/tools.ts')], {
  stdio: ['ignore', 'inherit', 'pipe'],
  env: { ...process.env, TOOLWRIGHT_LOG_LEVEL: 'warn', TOOLWRIGHT_AUDIT_DIR: workDir },
});
let serverLog = '';
server.stderr.on('data', (d) => (serverLog += d));
const url = `http://localhost:${port}/mcp`;

let failed = false;
try {
  await waitForServer(url);
  for (const revision of revisions) {
    console.log(`\n▶ conformance server --requirements ${revision} (${url})`);
    const code = await run(process.execPath, [
      '--import', join(root, 'scripts/node20/register.mjs'),
      suite, 'server', '--url', url, '--requirements', revision,
      '--expected-failures', join(root, `conformance/expected-failures-${revision}.yaml`),
    ]);
    if (code !== 0) {
      failed = true;
      console.error(`✗ conformance ${revision}: unexpected failures or stale baseline entries (exit ${code})`);
    } else {
      console.log(`✓ conformance ${revision}: only the expected failures`);
    }
  }
} catch (err) {
  failed = true;
  console.error(`✗ conformance could not run: ${err.message}\n${serverLog}`);
} finally {
  server.kill('SIGTERM');
  // The server writes its audit trail into workDir until it has exited.
  if (server.exitCode === null && server.signalCode === null) await new Promise((resolve) => server.once('exit', resolve));
  rmSync(workDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

function run(cmd, args) {
  return new Promise((resolve) => {
    // The suite writes result folders into its cwd; keep them out of the repository.
    const child = spawn(cmd, args, { stdio: 'inherit', cwd: workDir });
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function waitForServer(target) {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`the server exited with code ${server.exitCode}`);
    try {
      const res = await fetch(target, { method: 'GET' });
      if (res.status > 0) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the server did not start within 20 s');
}
