#!/usr/bin/env node
// Runs the official MCP conformance suite against toolwright, once per protocol revision, each
// against its expected-failures baseline (conformance/expected-failures-<revision>.yaml for the
// server leg, conformance/client-expected-failures-<revision>.yaml for the client leg):
//
//   server leg: the suite acts as a client of toolwright's CLI serving the fixture tools;
//   client leg: the suite starts a scenario server per scenario and runs
//               examples/conformance/client.ts (built on toolwright/client) against it.
//
// Exits non-zero on any unexpected failure or stale baseline entry, in either leg.
// Usage: node scripts/conformance.mjs [--server-only|--client-only] [revision…]  (needs `npm run build`)
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const legs = args.includes('--server-only') ? ['server'] : args.includes('--client-only') ? ['client'] : ['server', 'client'];
const named = args.filter((a) => !a.startsWith('--'));
const revisions = named.length ? named : ['2026-07-28', '2025-11-25'];
const suiteDir = join(root, 'node_modules/@modelcontextprotocol/conformance');
const suite = join(suiteDir, 'dist/index.js');
// The suite's own code needs fs.globSync, which Node 20 lacks: this hook adds it.
const suiteNode = [process.execPath, '--import', join(root, 'scripts/node20/register.mjs'), suite];
// The command the suite runs per client scenario; the suite appends the scenario server's URL.
// `npx tsx examples/conformance/client.ts` runs the same program; loading tsx into one node
// process (rather than npx, then tsx's CLI, then node) costs a third of the CPU, and the suite
// starts every scenario's client at once (~40 at 2026-07-28), on CI's 2 cores.
const clientCommand = 'node --import tsx examples/conformance/client.ts';
// Each client's time, from its start; generous because they all start together on a busy machine.
const clientTimeoutMs = 90_000;

// The suite's working files and the server's audit trail, removed at the end.
const workDir = mkdtempSync(join(tmpdir(), 'toolwright-conformance-'));
const started = Date.now();
let failed = false;
try {
  if (legs.includes('server')) failed = (await serverLeg()) || failed;
  if (legs.includes('client')) failed = (await clientLeg()) || failed;
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
console.log(`\nconformance: ${legs.join(' + ')} leg${legs.length > 1 ? 's' : ''} at ${revisions.join(', ')} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(failed ? 1 : 0);

/** The suite as a client of `toolwright serve --http`; true when something unexpected failed. */
async function serverLeg() {
  const port = await freePort();
  const server = spawn(process.execPath, [join(root, 'dist/cli/main.js'), 'serve', '--http', '--host', '127.0.0.1', '--port', String(port), '--tools', join(root, 'examples/conformance/tools.ts')], {
    stdio: ['ignore', 'inherit', 'pipe'],
    env: { ...process.env, TOOLWRIGHT_LOG_LEVEL: 'warn', TOOLWRIGHT_AUDIT_DIR: workDir },
  });
  let serverLog = '';
  server.stderr.on('data', (d) => (serverLog += d));
  const url = `http://localhost:${port}/mcp`;
  let bad = false;
  try {
    await waitForServer(server, url);
    for (const revision of revisions) {
      console.log(`\n▶ conformance server --requirements ${revision} (${url})`);
      const out = join(workDir, `server-${revision}`);
      const code = await run(suiteNode, ['server', '--url', url, '--requirements', revision, '--expected-failures', baselineFile('server', revision), '-o', out], workDir);
      bad = report('server', revision, code) || bad;
      // The extensions' scenarios (tasks-*) run unscored: judged here by the same baseline rule.
      bad = judgeUnscored(revision, out, 'server') || bad;
    }
  } catch (err) {
    bad = true;
    console.error(`✗ conformance (server leg) could not run: ${err.message}\n${serverLog}`);
  } finally {
    server.kill('SIGTERM');
    // The server writes its audit trail into workDir until it has exited.
    if (server.exitCode === null && server.signalCode === null) await new Promise((resolve) => server.once('exit', resolve));
  }
  return bad;
}

/**
 * The suite's scenario servers against examples/conformance/client.ts. The suite judges the
 * scenarios a revision scores against the baseline; the ones it runs without scoring
 * (extensions, later additions) are judged here, by the same rule, from the checks it saved.
 */
async function clientLeg() {
  let bad = false;
  for (const revision of revisions) {
    const out = join(workDir, `client-${revision}`);
    console.log(`\n▶ conformance client --requirements ${revision} --command "${clientCommand}"`);
    const code = await run(suiteNode, ['client', '--command', clientCommand, '--timeout', String(clientTimeoutMs), '--requirements', revision, '--expected-failures', baselineFile('client', revision), '-o', out], root);
    bad = report('client', revision, code) || bad;
    bad = judgeUnscored(revision, out) || bad;
  }
  return bad;
}

/** Applies the client baseline to the scenarios the revision runs but does not score. */
function judgeUnscored(revision, out, leg = 'client') {
  const requirements = parseYaml(readFileSync(join(suiteDir, `requirements/${revision}.yaml`), 'utf8'));
  const unscored = new Set((requirements.not_scored ?? []).filter((e) => e.leg === leg).map((e) => e.scenario));
  const baseline = new Set((parseYaml(readFileSync(baselineFile(leg, revision), 'utf8'))?.[leg] ?? []).map(String));
  // The suite names a server scenario's folder server-<scenario>-<time>.
  const results = readResults(out, leg === 'server' ? 'server-' : '');
  const unexpected = [];
  const stale = [];
  for (const [scenario, checks] of results) {
    if (!unscored.has(scenario)) continue;
    const failing = checks.some((c) => c.status === 'FAILURE' || c.status === 'WARNING');
    if (failing && !baseline.has(scenario)) unexpected.push(scenario);
    if (!failing && baseline.has(scenario)) stale.push(scenario);
  }
  // An entry must name a scenario this run judged: a typo or a renamed scenario would otherwise sit unnoticed.
  const unknown = [...baseline].filter((entry) => !results.has(entry.split(':')[0]));
  for (const s of unexpected) console.error(`  ✗ ${s}: failed, and it is not in the baseline (unscored at ${revision}, judged here)`);
  for (const s of stale) console.error(`  ✗ ${s}: passes now; remove it from ${relative(root, baselineFile(leg, revision))}`);
  for (const s of unknown) console.error(`  ✗ baseline entry ${s} names no ${leg} scenario this run judged`);
  const bad = unexpected.length + stale.length + unknown.length > 0;
  console.log(bad ? `✗ conformance ${leg} ${revision}: unscored scenarios broke the baseline` : `✓ conformance ${leg} ${revision}: unscored scenarios match the baseline (${[...unscored].filter((s) => results.has(s)).length} judged)`);
  return bad;
}

/** scenario → checks, from the suite's result folders (<out>/<scenario>-<timestamp>/checks.json). */
function readResults(out, prefix = '') {
  const results = new Map();
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name === 'checks.json') {
        let scenario = relative(out, dirname(path)).split(sep).join('/').replace(/-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/, '');
        if (prefix && scenario.startsWith(prefix)) scenario = scenario.slice(prefix.length);
        results.set(scenario, JSON.parse(readFileSync(path, 'utf8')));
      }
    }
  };
  walk(out);
  return results;
}

function report(leg, revision, code) {
  if (code === 0) {
    console.log(`✓ conformance ${leg} ${revision}: only the expected failures`);
    return false;
  }
  console.error(`✗ conformance ${leg} ${revision}: unexpected failures or stale baseline entries (exit ${code})`);
  return true;
}

function baselineFile(leg, revision) {
  return join(root, `conformance/${leg === 'client' ? 'client-' : ''}expected-failures-${revision}.yaml`);
}

function run([cmd, ...pre], args, cwd) {
  return new Promise((resolve) => {
    // The server leg's suite writes result folders into its cwd; the client leg's go to -o.
    const child = spawn(cmd, [...pre, ...args], { stdio: 'inherit', cwd });
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

async function waitForServer(server, target) {
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
