import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { generateApiKey } from '../../src/policy/auth/api-keys.js';
import { startBuiltCli } from '../helpers/cli-process.js';
import { REDIS_SERVER, TestRedis } from '../helpers/redis.js';
import { tempDir } from '../helpers/temp.js';
import { MODERN, modernMeta } from '../helpers/wire.js';

/**
 * examples/scale-out/compose.yaml is the containers' version of start.sh. No Docker engine runs
 * here, so the file is checked against what start.sh runs (the same config, the same serve
 * command, every variable the config names set alike on every instance), its image against the
 * checkout, and its instances' command is run as is (on this machine, not in a container) to
 * show `serve` accepts it. Where the docker CLI has compose, `docker compose config` checks the file too.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const example = join(root, 'examples/scale-out');
const read = (name: string) => readFileSync(join(example, name), 'utf8');
const compose = parse(read('compose.yaml'), { merge: true }) as { services: Record<string, Service> };
type Service = { build?: { context: string; dockerfile: string }; command?: string[]; environment?: Record<string, string>; image?: string };

const instances = Object.entries(compose.services).filter(([, s]) => s.command?.includes('serve'));
const [, first] = instances[0] ?? [];

/** start.sh's serve line: the variables it sets for the instance, and the arguments after `$TOOLWRIGHT`. */
function startShServe(): { env: string[]; args: string[] } {
  const line = read('start.sh')
    .split('\n')
    .find((l) => /\$TOOLWRIGHT serve /.test(l))!;
  const [before, after] = line.trim().split('$TOOLWRIGHT ');
  const args = after.split(/\s+(?:>|2>)/)[0].split(/\s+/);
  return {
    env: before
      .split(/\s+/)
      .filter(Boolean)
      .map((a) => a.split('=')[0]),
    args: args.map((a) => a.replace(/"/g, '')),
  };
}

/** The `${NAME}`s the example's config takes from the environment. */
const configVariables = [...read('toolwright.config.json').matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]);

/** Flags with their values (`--port 3000` → ['--port', '3000']), in order; the bare ones alone. */
function flags(args: string[]): Map<string, string | true> {
  const out = new Map<string, string | true>();
  for (let i = 0; i < args.length; i++) {
    const flag = args[i];
    if (!flag.startsWith('--')) continue;
    const next = args[i + 1];
    if (next !== undefined && !next.startsWith('--')) {
      out.set(flag, next);
      i++;
    } else out.set(flag, true);
  }
  return out;
}

describe('examples/scale-out/compose.yaml runs what start.sh runs', () => {
  it('three instances of one image built from this checkout (toolwright is not on the npm registry)', () => {
    expect(instances.map(([name]) => name)).toEqual(['toolwright-1', 'toolwright-2', 'toolwright-3']);
    for (const [, service] of instances) {
      expect(service.command!.join(' ')).not.toMatch(/npx|npm exec/);
      expect(service.build).toBeDefined();
      expect(resolve(example, service.build!.context)).toBe(resolve(root));
      expect(service.build!.dockerfile).toBe('examples/scale-out/Dockerfile');
      expect(service).toEqual(first);
    }
    const dockerfile = read('Dockerfile');
    // From a clean copy of the checkout: the lock file's dependencies, then the build.
    expect(dockerfile).toMatch(/^RUN npm ci\b/m);
    expect(dockerfile).toMatch(/^RUN npm run build\b/m);
    const workdirs = [...dockerfile.matchAll(/^WORKDIR (\S+)/gm)].map((m) => m[1]);
    const app = workdirs[0];
    // The command runs the image's build, in the example's folder (its config and tools.mjs).
    expect(first!.command!.slice(0, 2)).toEqual(['node', `${app}/dist/cli/main.js`]);
    expect(workdirs.at(-1)).toBe(`${app}/examples/scale-out`);
    // The build context leaves out what the image makes itself (and this checkout's node_modules link).
    expect(read('Dockerfile.dockerignore')).toMatch(/^\*\*\/node_modules$/m);
    expect(read('Dockerfile.dockerignore')).toMatch(/^dist$/m);
  });

  it("the same serve command and config as start.sh's, on all interfaces, with authentication and every variable the config names", () => {
    const sh = startShServe();
    const composed = flags(first!.command!.slice(2));
    const local = flags(sh.args);
    expect(first!.command![2]).toBe(sh.args[0]);
    // The one difference: a container listens on its network's address, not on loopback.
    expect(composed.get('--host')).toBe('0.0.0.0');
    expect([...composed.keys()].filter((k) => k !== '--host')).toEqual([...local.keys()]);
    expect(read('start.sh')).toMatch(/^config=toolwright\.config\.json$/m);
    expect(composed.get('--config')).toBe('toolwright.config.json');
    expect(composed.has('--allow-unauthenticated-network')).toBe(false);

    const config = JSON.parse(read('toolwright.config.json'));
    expect(config.server.auth.apiKeys.length).toBeGreaterThan(0);
    expect(configVariables).toEqual(expect.arrayContaining(['REDIS_URL', 'TOOLWRIGHT_REQUEST_STATE_SECRET', 'TOOLWRIGHT_API_KEY_HASH']));
    for (const name of configVariables) {
      // start.sh exports it; compose gives it to every instance, the secrets from one required variable.
      expect(read('start.sh')).toMatch(new RegExp(`^export ${name}\\b`, 'm'));
      for (const [, service] of instances) expect(service.environment?.[name]).toBe(first!.environment![name]);
      if (name !== 'REDIS_URL') expect(first!.environment![name]).toMatch(new RegExp(`^\\$\\{${name}:\\?.+\\}$`));
    }
    expect(first!.environment!.REDIS_URL).toBe('redis://redis:6379');
    for (const name of sh.env) expect(Object.keys(first!.environment!)).toContain(name);
  });

  it("nginx in compose proxies /mcp exactly as start.sh's nginx.conf does", () => {
    const location = (conf: string) =>
      /location \/mcp \{([^}]*)\}/
        .exec(conf)![1]
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean);
    expect(location(read('nginx.compose.conf'))).toEqual(location(read('nginx.conf')));
    const upstreams = [...read('nginx.compose.conf').matchAll(/server (\S+):(\d+)/g)].map((m) => m[1]);
    expect(upstreams).toEqual(instances.map(([name]) => name));
    const port = flags(first!.command!.slice(2)).get('--port');
    for (const m of read('nginx.compose.conf').matchAll(/server \S+:(\d+)/g)) expect(m[1]).toBe(port);
  });

  const composeCli = (() => {
    try {
      execFileSync('docker', ['compose', 'version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
  it.skipIf(!composeCli)('docker compose config accepts the file', () => {
    execFileSync('docker', ['compose', '-f', join(example, 'compose.yaml'), 'config', '--quiet'], {
      env: { ...process.env, TOOLWRIGHT_REQUEST_STATE_SECRET: 's'.repeat(64), TOOLWRIGHT_API_KEY_HASH: generateApiKey().hash },
    });
  });
});

describe.skipIf(!REDIS_SERVER)("compose's instance command, run on this machine against a real Redis", () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await TestRedis.create();
  }, 30_000);
  afterAll(() => redis?.destroy());

  it('serves on 0.0.0.0 (serve no longer refuses it), and only to a caller with the API key', async () => {
    const { key, hash } = generateApiKey();
    const args = first!.command!.slice(2).map((a, i, all) => (all[i - 1] === '--port' ? '0' : a));
    const env: Record<string, string> = {
      ...first!.environment!,
      REDIS_URL: redis.url,
      TOOLWRIGHT_REQUEST_STATE_SECRET: 's'.repeat(64),
      TOOLWRIGHT_API_KEY_HASH: hash,
      TOOLWRIGHT_AUDIT_DIR: tempDir('tw-compose-audit-'),
    };
    const serve = startBuiltCli(args, { cwd: example, env });
    const [, port] = await serve.waitForStderr(/serving \d+ tool\(s\) on http:\/\/0\.0\.0\.0:(\d+)\/mcp/);
    const where = (headers: Record<string, string>) =>
      fetch(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': MODERN,
          'mcp-method': 'tools/call',
          'mcp-name': 'where',
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'where', arguments: {}, _meta: modernMeta() } }),
      });
    expect((await where({})).status).toBe(401);
    const answered = await where({ authorization: `Bearer ${key}` });
    expect(answered.status).toBe(200);
    expect((await answered.json()).result.content[0].text).toMatch(/^instance \S+:3000$/);
    expect(existsSync(join(env.TOOLWRIGHT_AUDIT_DIR, '.toolwright', 'audit.db'))).toBe(true);
  }, 60_000);
});
