import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/config/build.js';
import { loadConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/config/validate.js';
import { hashApiKey } from '../../src/policy/auth/api-keys.js';
import { defineResource } from '../../src/server/primitives/resources/index.js';
import type { ToolServer } from '../../src/server/server.js';
import { startHttp } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';

const load = (yaml: string) => {
  const file = join(tempDir('toolwright-primitive-scopes-'), 'toolwright.config.yaml');
  writeFileSync(file, yaml);
  return { ...loadConfig(file), file };
};

let server: ToolServer | undefined;
let http: Awaited<ReturnType<typeof startHttp>> | undefined;
afterEach(async () => {
  await http?.close();
  server?.close();
  http = server = undefined;
});

describe('server.auth scope keys for resources and prompts', () => {
  it('names a bad scope under resourceScopes, promptVisibility and defaultScopes.prompts', () => {
    let problems: string[] = [];
    try {
      load(
        [
          'server:',
          '  auth:',
          `    apiKeys: [{ hash: "${hashApiKey('k'.repeat(32))}", principal: ci }]`,
          '    resourceScopes: { "docs://a": ["has space"] }',
          '    promptVisibility: { p: [1] }',
          '    defaultScopes: { prompts: ["q\\""] }',
        ].join('\n'),
      );
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems = err.problems;
    }
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^config\.server\.auth\.resourceScopes\["docs:\/\/a"\]\[0\]: must match pattern/),
        expect.stringMatching(/^config\.server\.auth\.promptVisibility\.p\[0\]/),
        expect.stringMatching(/^config\.server\.auth\.defaultScopes\.prompts\[0\]: must match pattern/),
      ]),
    );
  });

  it('enforces resourceScopes from the config file over HTTP', async () => {
    const key = 'reader-key-'.padEnd(40, 'x');
    const { config, baseDir, file } = load(
      [
        'server:',
        '  audit: false',
        '  auth:',
        `    apiKeys: [{ hash: "${hashApiKey(key)}", principal: reader, scopes: [docs] }]`,
        '    resourceScopes: { "docs://guide": [docs], "docs://admin": [admin] }',
        '    resourceVisibility: { "docs://admin": [admin] }',
      ].join('\n'),
    );
    server = buildServer(config, baseDir, '0.0.0', file).server;
    server.resources.add(
      defineResource({ uri: 'docs://guide', name: 'guide', read: () => 'guide' }),
      defineResource({ uri: 'docs://admin', name: 'admin', read: () => 'admin' }),
    );
    http = await startHttp(server, { auth: config.server!.auth });
    const authorization = `Bearer ${key}`;
    const list = await (await http.modern('resources/list', {}, { authorization })).json();
    expect(list.result.resources.map((r: { uri: string }) => r.uri)).toEqual(['docs://guide']);
    const hidden = await (await http.modern('resources/read', { uri: 'docs://admin' }, { authorization })).json();
    expect(hidden.error).toEqual({ code: -32602, message: 'Resource not found', data: { uri: 'docs://admin' } });
    expect((await (await http.modern('resources/read', { uri: 'docs://guide' }, { authorization })).json()).result.contents[0].text).toBe('guide');
  });
});
