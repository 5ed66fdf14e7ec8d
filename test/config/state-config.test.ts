import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildServer } from '../../src/config/build.js';
import { loadConfig } from '../../src/config/load.js';
import { requestStateSecretOf, stateOf } from '../../src/config/state.js';
import { ConfigError } from '../../src/config/validate.js';
import { ToolServer } from '../../src/server/server.js';
import { configProblems } from '../helpers/config.js';
import { tempDir } from '../helpers/temp.js';

function configIn(server: unknown): string {
  const file = join(tempDir('toolwright-config-state-'), 'toolwright.config.json');
  writeFileSync(file, JSON.stringify({ server: { audit: false, tasks: false, ...(server as object) }, toolsets: { math: {} } }));
  return file;
}

function build(server: unknown) {
  const loaded = loadConfig(configIn(server));
  return buildServer(loaded.config, loaded.baseDir, '1.0.0', loaded.file).server;
}

describe('server.state and server.requestStateSecret', () => {
  it('expands ${NAME} in the Redis URL and the secret from the environment', () => {
    expect(stateOf({ redis: '${R}', keyPrefix: 'app', onFailure: 'open' }, { R: 'redis://:pw@cache:6380/2' })).toEqual({
      redis: 'redis://:pw@cache:6380/2',
      keyPrefix: 'app',
      onFailure: 'open',
    });
    expect(requestStateSecretOf('${S}', { S: 'shared-secret' })).toBe('shared-secret');
    expect(requestStateSecretOf(undefined, {})).toBeUndefined();
  });

  it('builds a server whose shared state is the URL without its password', () => {
    // Port 1 refuses at once; nothing is asked of it here.
    const server = build({ state: { redis: 'redis://user:hunter2@127.0.0.1:1', keyPrefix: 'prod' }, requestStateSecret: 'x' });
    try {
      expect(server.stateLocation).toBe('redis://127.0.0.1:1 (keys prod:*)');
      expect(server.stateLocation).not.toContain('hunter2');
    } finally {
      server.close();
    }
  });

  it('refuses an unset variable, a URL that is not redis://, a bad prefix or policy, naming the key and never the password', () => {
    const name = `TW_TEST_UNSET_${process.pid}`;
    expect(() => build({ state: { redis: `\${${name}}` } })).toThrow(ConfigError);
    expect(() => build({ state: { redis: `\${${name}}` } })).toThrow(`server.state.redis: \${${name}} is not set in the environment`);
    expect(() => build({ requestStateSecret: `\${${name}}` })).toThrow(`server.requestStateSecret: \${${name}} is not set in the environment`);
    expect(() => stateOf({ redis: '${X}' }, { X: 'http://:secret@h' })).toThrow('server.state.redis must be a redis:// or rediss:// URL');
    const problems = (server: unknown) => configProblems(() => loadConfig(configIn(server))).join('\n');
    expect(problems({ state: { redis: 'memcached://h' } })).toContain('state');
    expect(problems({ state: { redis: 'redis://h', onFailure: 'maybe' } })).toContain('onFailure');
    expect(problems({ state: { redis: 'redis://h', keyPrefix: 'has space' } })).toContain('keyPrefix');
    expect(problems({ state: {} })).toContain('redis');
    expect(problems({ requestStateSecret: '' })).toContain('requestStateSecret');
  });

  it('refuses shared state without a shared requestStateSecret, naming the key and how to give it', () => {
    // Each instance would sign input-required rounds with a random key of its own: a retry landing elsewhere is refused.
    const refusal = (() => {
      try {
        build({ state: { redis: 'redis://127.0.0.1:1' } });
      } catch (err) {
        return err;
      }
    })();
    expect(refusal).toBeInstanceOf(ConfigError);
    expect((refusal as ConfigError).problems.join('\n')).toMatch(/server\.requestStateSecret.*"\$\{TOOLWRIGHT_REQUEST_STATE_SECRET\}"/);
  });

  it('a ToolServer built in code refuses state without requestStateSecret too', () => {
    expect(() => new ToolServer({ audit: false, tasks: false, state: { redis: 'redis://127.0.0.1:1' } })).toThrow(/requestStateSecret/);
    expect(() => new ToolServer({ audit: false, tasks: false, state: { redis: 'redis://127.0.0.1:1' }, requestStateSecret: '' })).toThrow(/requestStateSecret/);
  });
});
