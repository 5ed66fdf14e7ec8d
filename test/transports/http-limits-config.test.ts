import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/config/build.js';
import { loadConfig } from '../../src/config/load.js';
import { DEFAULT_HTTP_LIMITS, resolveHttpLimits } from '../../src/transports/http-limits.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http-server.js';
import { configProblems } from '../helpers/config.js';
import { tempDir } from '../helpers/temp.js';

let handle: HttpServerHandle | undefined;
afterEach(async () => {
  await handle?.close();
  handle = undefined;
});

function configIn(http: unknown): string {
  const file = join(tempDir('toolwright-config-http-'), 'toolwright.config.json');
  writeFileSync(file, JSON.stringify({ server: { http, audit: false }, toolsets: { math: {} } }));
  return file;
}

const problems = (file: string): string[] => configProblems(() => loadConfig(file));

describe('server.http limits in the config', () => {
  it('accepts every limit, and refuses unknown keys and bad values', () => {
    const all = {
      headersTimeoutMs: 5000,
      requestTimeoutMs: 20000,
      keepAliveTimeoutMs: 2000,
      maxConnections: 10,
      maxConnectionsPerAddress: 5,
      maxStreams: 4,
      maxStreamsPerPrincipal: 2,
      authFailureLimit: { points: 5, durationSeconds: 30 },
      trustProxy: true,
    };
    expect(problems(configIn(all))).toEqual([]);
    expect(problems(configIn({ authFailureLimit: false }))).toEqual([]);
    expect(problems(configIn({ maxConnection: 3 })).join()).toMatch(/maxConnections/);
    expect(problems(configIn({ headersTimeoutMs: 0 }))).not.toEqual([]);
    expect(problems(configIn({ authFailureLimit: { points: 0, durationSeconds: 1 } }))).not.toEqual([]);
  });

  it('reaches the HTTP server: a connection past the configured per-address cap is answered 503', async () => {
    const loaded = loadConfig(configIn({ maxConnectionsPerAddress: 1 }));
    const plan = buildServer(loaded.config, loaded.baseDir, '0.0.0', loaded.file);
    handle = await serveHttp(plan.server, { ...plan.http, port: 0 });
    const first = connect(handle.port, '127.0.0.1');
    first.on('error', () => {});
    await new Promise((r) => first.once('connect', r));
    await new Promise((r) => setTimeout(r, 50));
    const second = connect(handle.port, '127.0.0.1');
    second.on('error', () => {});
    let received = '';
    second.on('data', (d) => (received += d));
    await new Promise((r) => second.once('close', r));
    first.destroy();
    expect(received).toMatch(/^HTTP\/1\.1 503/);
  });

  it('fills in defaults and refuses a header deadline past the request deadline', () => {
    expect(resolveHttpLimits({})).toEqual(DEFAULT_HTTP_LIMITS);
    expect(resolveHttpLimits({ requestTimeoutMs: 4000 }).headersTimeoutMs).toBe(4000);
    expect(() => resolveHttpLimits({ headersTimeoutMs: 5000, requestTimeoutMs: 4000 })).toThrow(/must not exceed "requestTimeoutMs"/);
    expect(() => resolveHttpLimits({ maxStreams: 0 })).toThrow(/"maxStreams" must be a positive integer/);
    expect(() => resolveHttpLimits({ authFailureLimit: { points: 1.5, durationSeconds: 1 } })).toThrow(/authFailureLimit/);
  });
});
