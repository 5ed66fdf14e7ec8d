import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildServer } from '../../src/config/build.js';
import { loadConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/config/validate.js';
import { tempDir } from '../helpers/temp.js';
import { wire } from '../helpers/wire.js';

const load = (config: unknown) => {
  const folder = tempDir('toolwright-config-');
  const file = join(folder, 'toolwright.config.json');
  writeFileSync(file, JSON.stringify(config));
  return loadConfig(file);
};

/** Calls `calculate` n times, 50 at a time; the texts of refusals. */
async function refusals(config: Parameters<typeof buildServer>[0], n: number): Promise<string[]> {
  const { server } = buildServer(config, tempDir('toolwright-config-'), '1.0.0');
  const w = wire(server);
  const texts: string[] = [];
  for (let at = 0; at < n; at += 50) {
    const answers = await Promise.all(
      Array.from({ length: Math.min(50, n - at) }, () => w.modern('tools/call', { name: 'calculate', arguments: { expression: '1+1' } })),
    );
    for (const a of answers) if (a.result.isError) texts.push(a.result.content[0].text);
  }
  return texts;
}

describe('server.limits.rateLimit in the config', () => {
  it('is on by default for `toolwright serve`', async () => {
    const texts = await refusals({ server: { audit: false }, toolsets: { math: {} } }, 1201);
    expect(texts).toEqual([expect.stringMatching(/^Rate limit exceeded for this caller \(1200 calls per 60 s\)/)]);
  });

  it('false switches it off; a rule may be false alone', async () => {
    expect(load({ server: { limits: { rateLimit: false } } }).config.server?.limits?.rateLimit).toBe(false);
    expect(load({ server: { limits: { rateLimit: { perPrincipal: false, tools: { exec: false } } } } }).config.server?.limits?.rateLimit).toEqual({
      perPrincipal: false,
      tools: { exec: false },
    });
    expect(await refusals({ server: { audit: false, limits: { rateLimit: false } }, toolsets: { math: {} } }, 1250)).toEqual([]);
  });

  it('refuses a rule that is neither a rule nor false', () => {
    expect(() => load({ server: { limits: { rateLimit: { perTool: true } } } })).toThrow(ConfigError);
    expect(() => load({ server: { limits: { rateLimit: { perTool: { points: 0, durationSeconds: 60 } } } } })).toThrow(ConfigError);
  });
});
