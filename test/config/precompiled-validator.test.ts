import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { builtCli } from '../helpers/cli-process.js';

/**
 * The config schema is compiled at build time (dist/schema/config.cjs, scripts/build-meta-validators.mjs)
 * and used by the built CLI; run from source it is compiled at first use. Both must judge a config the
 * same way, error for error: the messages and "did you mean" of src/config/validate.ts read them.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const precompiled = createRequire(import.meta.url)(join(root, 'dist', 'schema', 'config.cjs')) as ValidateFunction;
const schema = JSON.parse(readFileSync(join(root, 'schema', 'toolwright.config.schema.json'), 'utf8')) as object;
const atRunTime = new Ajv2020({ allErrors: true, verbose: true, strict: false }).compile(schema);

/** What validate.ts reads of an error, with the parent schema's property names in place of the object. */
const seen = (errors: ErrorObject[] | null | undefined) =>
  (errors ?? []).map(({ instancePath, schemaPath, keyword, params, message, parentSchema }) => ({
    instancePath,
    schemaPath,
    keyword,
    params,
    message,
    allowed: Object.keys((parentSchema as { properties?: object } | undefined)?.properties ?? {}),
  }));

const configs: Record<string, unknown> = {
  'a valid one': { server: { name: 'x' }, toolsets: { fs: { root: '.' } } },
  'a misspelt top-level key': { servr: {} },
  'a misspelt nested key and a wrong type': { server: { nmae: 'x', port: 'eighty' } },
  'an upstream of neither kind, misspelt': { upstreams: { a: { url: 'http://127.0.0.1:1/mcp', prefx: true } } },
  'wrong types throughout': { toolsets: 'fs', tools: 3, server: [], audit: { sqlite: 7 } },
};

describe('the config schema compiled at build time', () => {
  for (const [what, config] of Object.entries(configs)) {
    it(`judges ${what} as Ajv does at run time`, () => {
      const ok = precompiled(config);
      expect(ok).toBe(atRunTime(config));
      expect(seen(precompiled.errors)).toEqual(seen(atRunTime.errors));
    });
  }

  it('is what the built CLI checks a config file with', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tw-precompiled-config-'));
    try {
      writeFileSync(join(dir, 'bad.json'), JSON.stringify({ server: { nmae: 'x' } }));
      const run = spawnSync(process.execPath, [builtCli, 'serve', '--config', join(dir, 'bad.json')], { cwd: dir, encoding: 'utf8', input: '' });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('config.server.nmae: unexpected field (not allowed by the schema); did you mean "name"?');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
