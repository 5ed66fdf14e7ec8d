#!/usr/bin/env node
// Runs the official MCP conformance suite against toolwright, once per protocol revision, each
// against its expected-failures baseline (conformance/expected-failures-<revision>.yaml for the
// server leg, conformance/client-expected-failures-<revision>.yaml for the client leg):
//
//   server leg: the suite acts as a client of toolwright's CLI serving the fixture tools;
//   client leg: the suite starts a scenario server per scenario and runs
//               examples/conformance/client.ts (built on toolwright/client) against it.
//
// The server leg also runs the `authorization` command's metadata scenario against the OAuth
// facade (server.auth.proxy) of `toolwright serve` (its browser-driven grant scenario is in vitest).
// Exits non-zero on any unexpected failure or stale baseline entry, in either leg.
// Both legs run at once, each in a process of its own whose output is printed whole when it ends
// (--serial runs them one after the other in this process, printing as they go).
//
// --through-gateway runs the server leg against a gateway: `toolwright serve --http` with only an
// `upstreams:` entry (`prefix: false`) in front of the same fixture server, judged against
// conformance/gateway-expected-failures-<revision>.yaml (what passes directly but not yet through it).
// Usage: node scripts/conformance.mjs [--server-only|--client-only|--serial|--through-gateway] [revision…]  (needs `npm run build`)
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { parse as parseYaml } from 'yaml';
import { authorizationServerScenarios } from './conformance/authorization.mjs';
import { startSlotServer } from './conformance/slots.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const throughGateway = args.includes('--through-gateway');
const legs = throughGateway || args.includes('--server-only') ? ['server'] : args.includes('--client-only') ? ['client'] : ['server', 'client'];
const named = args.filter((a) => !a.startsWith('--'));
const revisions = named.length ? named : ['2026-07-28', '2025-11-25'];
const suiteDir = join(root, 'node_modules/@modelcontextprotocol/conformance');
const suite = join(suiteDir, 'dist/index.js');
// The suite's own code needs fs.globSync, which Node 20 lacks: this hook adds it. fetch-cause.mjs
// puts the network cause into the suite's "fetch failed" messages.
const suiteNode = [
  process.execPath,
  '--import',
  join(root, 'scripts/node20/register.mjs'),
  '--import',
  join(root, 'scripts/conformance/fetch-cause.mjs'),
  suite,
];
// The suite starts every client scenario's command at once (~40 at 2026-07-28). On a busy 2-core
// machine, 25 clients loading TypeScript through tsx at once starved each other and the suite's
// scenario servers until requests timed out. So the client is compiled once, ahead of the run,
// into one plain JavaScript file (no tsx in any client), and each scenario's command goes through
// scripts/conformance/run-client.mjs, which waits for one of CLIENT_SLOTS slots before it runs it.
const CLIENT_SLOTS = Math.max(2, 2 * availableParallelism()); // clients mostly wait on the suite's servers
// One client's time from when it has its slot: a hung client fails its scenario after this.
const clientRunLimitMs = 90_000;
// The suite's own per-client timeout counts from the command's start, queue included: a
// backstop only (the queue's wait is bounded by the run limits of the clients ahead in it).
const suiteClientTimeoutMs = 30 * 60_000;
// The server leg runs its scenarios one at a time; the suite's 30 s default per scenario is tight on a loaded machine.
const serverScenarioTimeoutMs = 120_000;

// The Skills extension (SEP-2640): no revision's requirements name its scenarios, so they are run
// by name, the server ones against a server of examples/conformance/skills (its own config), once.
const SKILLS_SERVER_SCENARIOS = ['sep-2640-skills-directory', 'sep-2640-skills-enumeration', 'sep-2640-skills-manifest'];
const SKILLS_CLIENT_SCENARIOS = [
  'sep-2640-client-no-prefetch',
  'sep-2640-client-verify-digest',
  'sep-2640-client-verify-size',
  'sep-2640-client-verify-frontmatter',
];

// Each leg keeps about one core busy (the suite, then toolwright or a client, in turn): run together
// they took 51 s one after the other on two quiet cores.
const started = Date.now();
if (legs.length > 1 && !args.includes('--serial')) process.exit(await legsAtOnce());

// The suite's working files and the server's audit trail, removed at the end.
const workDir = mkdtempSync(join(tmpdir(), 'toolwright-conformance-'));
let failed = false;
try {
  if (legs.includes('server')) failed = (await serverLeg()) || failed;
  if (legs.includes('client')) failed = (await clientLeg()) || failed;
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
console.log(
  `\nconformance: ${legs.join(' + ')} leg${legs.length > 1 ? 's' : ''} at ${revisions.join(', ')} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
);
process.exit(failed ? 1 : 0);

/** The suite as a client of `toolwright serve --http`; true when something unexpected failed. */
async function serverLeg() {
  // Port 0: the server picks a free port and names it when it is listening (no probe-then-bind race).
  const server = spawn(
    process.execPath,
    [join(root, 'dist/cli/main.js'), 'serve', '--http', '--host', '127.0.0.1', '--port', '0', '--tools', join(root, 'examples/conformance/tools.ts')],
    {
      stdio: ['ignore', 'inherit', 'pipe'],
      env: { ...process.env, TOOLWRIGHT_LOG_LEVEL: 'warn', TOOLWRIGHT_AUDIT_DIR: workDir },
    },
  );
  let serverLog = '';
  server.stderr.on('data', (d) => (serverLog += d));
  let bad = false;
  let gateway;
  try {
    let url = await serverUrl(server);
    if (throughGateway) {
      gateway = startGateway(url);
      gateway.stderr.on('data', (d) => (serverLog += d));
      url = await serverUrl(gateway);
    }
    for (const revision of revisions) {
      console.log(`\n▶ conformance server --requirements ${revision} (${url}${throughGateway ? ', through the gateway' : ''})`);
      const out = join(workDir, `server-${revision}`);
      const code = await run(
        suiteNode,
        [
          'server',
          '--url',
          url,
          '--timeout',
          String(serverScenarioTimeoutMs),
          '--requirements',
          revision,
          '--expected-failures',
          baselineFile('server', revision),
          '-o',
          out,
        ],
        workDir,
      );
      // The extensions' scenarios (tasks-*) run unscored: judged here by the same baseline rule.
      const scoredBad = report('server', revision, code);
      const revisionBad = judgeUnscored(revision, out, 'server') || scoredBad;
      bad =
        (revisionBad &&
          (await failedOnlyUnderLoad('server', revision, out, (scenario, retryOut) =>
            run(suiteNode, ['server', '--url', url, '--timeout', String(serverScenarioTimeoutMs), '--scenario', scenario, '-o', retryOut], workDir),
          ))) ||
        bad;
    }
    bad = (await skillsServerScenarios()) || bad;
    if (!throughGateway) bad = (await authorizationServerScenarios({ root, workDir, suiteNode, run, report, serverUrl })) || bad;
  } catch (err) {
    bad = true;
    console.error(`✗ conformance (server leg) could not run: ${err.message}\n${serverLog}`);
  } finally {
    if (gateway) {
      gateway.kill('SIGTERM');
      if (gateway.exitCode === null && gateway.signalCode === null) await new Promise((resolve) => gateway.once('exit', resolve));
    }
    server.kill('SIGTERM');
    // The server writes its audit trail into workDir until it has exited.
    if (server.exitCode === null && server.signalCode === null) await new Promise((resolve) => server.once('exit', resolve));
  }
  return bad;
}

/** `toolwright serve --http` whose only tools are the fixture server's, mounted unprefixed from `upstreamUrl`. */
function startGateway(upstreamUrl) {
  const config = join(workDir, 'gateway.config.json');
  // A modern upstream lists no task marker (the tasks extension leaves it to the server): the
  // gateway is told the fixture's task modes (examples/conformance/task-tools.ts), as an operator would.
  const tools = {
    slow_compute: { task: 'always' },
    failing_job: { task: 'required' },
    protocol_error_job: { task: 'always' },
    confirm_delete: { task: 'always' },
    multi_input: { task: 'always' },
    test_tool_with_task: { task: { afterMs: 300, required: true } },
  };
  writeFileSync(config, JSON.stringify({ upstreams: { conformance: { url: upstreamUrl, prefix: false, tools } } }));
  return spawn(process.execPath, [join(root, 'dist/cli/main.js'), 'serve', '--http', '--host', '127.0.0.1', '--port', '0', '--config', config], {
    cwd: workDir,
    stdio: ['ignore', 'inherit', 'pipe'],
    env: { ...process.env, TOOLWRIGHT_LOG_LEVEL: 'warn', TOOLWRIGHT_AUDIT_DIR: join(workDir, 'gateway') },
  });
}

/**
 * The Skills extension's server scenarios, by name, against `toolwright serve --config` of a copy
 * of examples/conformance/skills.config.yaml and its skills folder in workDir (where the
 * server's state goes: beside its config). True when one failed.
 */
async function skillsServerScenarios() {
  const dir = join(workDir, 'skills-server');
  cpSync(join(root, 'examples/conformance/skills'), join(dir, 'skills'), { recursive: true });
  cpSync(join(root, 'examples/conformance/skills.config.yaml'), join(dir, 'toolwright.config.yaml'));
  const server = spawn(
    process.execPath,
    [join(root, 'dist/cli/main.js'), 'serve', '--http', '--host', '127.0.0.1', '--port', '0', '--config', join(dir, 'toolwright.config.yaml')],
    { stdio: ['ignore', 'inherit', 'pipe'], env: { ...process.env, TOOLWRIGHT_LOG_LEVEL: 'warn', TOOLWRIGHT_AUDIT_DIR: dir } },
  );
  let bad = false;
  try {
    const url = await serverUrl(server);
    for (const scenario of SKILLS_SERVER_SCENARIOS) {
      console.log(`\n▶ conformance server --scenario ${scenario} (${url})`);
      const code = await run(
        suiteNode,
        ['server', '--url', url, '--timeout', String(serverScenarioTimeoutMs), '--scenario', scenario, '-o', join(dir, scenario)],
        dir,
      );
      bad = report('server', scenario, code) || bad;
    }
  } finally {
    server.kill('SIGTERM');
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
  const client = await compileClient();
  const slots = await startSlotServer(CLIENT_SLOTS);
  // The suite splits the command at spaces and runs it through a shell, appending the scenario server's URL.
  const clientCommand = ['node', 'scripts/conformance/run-client.mjs', String(slots.port), String(clientRunLimitMs), shellQuote(client)].join(' ');
  let bad = false;
  try {
    for (const revision of revisions) {
      const out = join(workDir, `client-${revision}`);
      console.log(`\n▶ conformance client --requirements ${revision} (examples/conformance/client.ts, ${CLIENT_SLOTS} at a time)`);
      const code = await run(
        suiteNode,
        [
          'client',
          '--command',
          clientCommand,
          '--timeout',
          String(suiteClientTimeoutMs),
          '--requirements',
          revision,
          '--expected-failures',
          baselineFile('client', revision),
          '-o',
          out,
        ],
        root,
      );
      const scoredBad = report('client', revision, code);
      const revisionBad = judgeUnscored(revision, out) || scoredBad;
      bad =
        (revisionBad &&
          (await failedOnlyUnderLoad('client', revision, out, (scenario, retryOut) =>
            run(suiteNode, ['client', '--command', clientCommand, '--timeout', String(suiteClientTimeoutMs), '--scenario', scenario, '-o', retryOut], root),
          ))) ||
        bad;
    }
    for (const scenario of SKILLS_CLIENT_SCENARIOS) {
      console.log(`\n▶ conformance client --scenario ${scenario}`);
      const code = await run(
        suiteNode,
        ['client', '--command', clientCommand, '--timeout', String(suiteClientTimeoutMs), '--scenario', scenario, '-o', join(workDir, `client-${scenario}`)],
        root,
      );
      bad = report('client', scenario, code) || bad;
    }
  } finally {
    await slots.close();
  }
  return bad;
}

/**
 * examples/conformance/client.ts and everything it imports (toolwright/client from dist/, and
 * its packages) as one ES module in workDir: each client is then `node` loading one file.
 */
async function compileClient() {
  const outfile = join(workDir, 'conformance-client.mjs');
  await build({
    entryPoints: [join(root, 'examples/conformance/client.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    alias: { 'toolwright/client': join(root, 'dist/client.js') },
    // CommonJS packages in the bundle call require() for Node's built-ins.
    banner: { js: "import { createRequire as __toolwrightCreateRequire } from 'node:module'; const require = __toolwrightCreateRequire(import.meta.url);" },
    logLevel: 'warning',
  });
  return outfile;
}

function shellQuote(value) {
  return /^[\w./:@%+=-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * After a revision's run broke its baseline: false when every scenario that failed passes when run
 * again alone, true otherwise (or when what broke was not a failing scenario: a stale entry).
 *
 * Why: the legs run beside the test files at a low priority, and a scenario that waits on a
 * deadline of the suite's own (a notification, a stream's retry) can miss it on a starved machine.
 * A failure that holds alone is a defect and fails the run; one that does not is printed whole
 * (its failing checks and their messages) with "⚠ flaky", so it is seen and can be pursued.
 */
async function failedOnlyUnderLoad(leg, revision, out, runAlone) {
  const baseline = new Set((parseYaml(readFileSync(baselineFile(leg, revision), 'utf8'))?.[leg] ?? []).map((e) => String(e).split(':')[0]));
  const failed = [...readResults(out, leg === 'server' ? 'server-' : '')]
    .filter(([scenario, checks]) => !baseline.has(scenario) && checks.some((c) => c.status === 'FAILURE' || c.status === 'WARNING'))
    .map(([scenario, checks]) => ({ scenario, checks: checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING') }));
  if (!failed.length) return true;
  let held = false;
  for (const { scenario, checks } of failed) {
    console.log(`\n▶ conformance ${leg} --scenario ${scenario} again, alone (it failed in the ${revision} run)`);
    const retryOut = join(workDir, `${leg}-${revision}-again-${scenario.replaceAll('/', '-')}`);
    const code = await runAlone(scenario, retryOut);
    const again = [...readResults(retryOut, leg === 'server' ? 'server-' : '').values()].flat();
    const passes = code === 0 && again.length > 0 && again.every((c) => c.status !== 'FAILURE' && c.status !== 'WARNING');
    const what = checks.map((c) => `${c.status} ${c.id ?? c.name}: ${(c.errorMessage ?? c.description ?? '').slice(0, 300)}`).join('; ');
    if (passes) console.log(`⚠ flaky: conformance ${leg} ${revision} ${scenario} failed in the full run and passed alone; it had: ${what}`);
    else {
      held = true;
      console.error(`✗ conformance ${leg} ${revision} ${scenario} fails alone too; it had: ${what}`);
    }
  }
  return held;
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
  console.log(
    bad
      ? `✗ conformance ${leg} ${revision}: unscored scenarios broke the baseline`
      : `✓ conformance ${leg} ${revision}: unscored scenarios match the baseline (${[...unscored].filter((s) => results.has(s)).length} judged)`,
  );
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
        let scenario = relative(out, dirname(path))
          .split(sep)
          .join('/')
          .replace(/-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/, '');
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
  const kind = leg === 'client' ? 'client-' : throughGateway ? 'gateway-' : '';
  return join(root, `conformance/${kind}expected-failures-${revision}.yaml`);
}

function run([cmd, ...pre], args, cwd) {
  return new Promise((resolve) => {
    // The server leg's suite writes result folders into its cwd; the client leg's go to -o.
    const child = spawn(cmd, [...pre, ...args], { stdio: 'inherit', cwd });
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

/**
 * The URL the suite should test, once `toolwright serve --http` says it is listening
 * ("toolwright: serving N tool(s) on http://127.0.0.1:<port>/mcp" on stderr). No deadline of
 * its own: on a loaded machine start-up takes what it takes; a server that dies rejects.
 */
function serverUrl(server) {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk) => {
      seen += chunk;
      const listening = /serving \d+ tool\(s\) on http:\/\/[^/\s]+:(\d+)(\/\S*)/.exec(seen);
      if (!listening) return;
      server.stderr.off('data', onData);
      server.off('exit', onExit);
      // localhost, as a client configured by hand would: the suite's DNS-rebinding scenario sends its own Host.
      resolve(`http://localhost:${listening[1]}${listening[2]}`);
    };
    const onExit = (code, signal) => reject(new Error(`the server exited (${signal ?? `code ${code}`}) before it was listening`));
    server.stderr.on('data', onData);
    server.once('exit', onExit);
  });
}

/** This script once per leg, at the same time; each one's output is printed whole as it ends. Exit 1 if either failed. */
async function legsAtOnce() {
  const runs = legs.map(
    (leg) =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [fileURLToPath(import.meta.url), `--${leg}-only`, ...named], {
          cwd: process.cwd(),
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        const output = [];
        child.stdout.on('data', (d) => output.push(d));
        child.stderr.on('data', (d) => output.push(d));
        child.on('close', (code) => {
          process.stdout.write(Buffer.concat(output));
          resolve(code ?? 1);
        });
      }),
  );
  const codes = await Promise.all(runs);
  console.log(`\nconformance: ${legs.join(' + ')} legs at once at ${revisions.join(', ')} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return codes.every((code) => code === 0) ? 0 : 1;
}
