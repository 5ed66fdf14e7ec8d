import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildServer } from '../../src/config/build.js';
import { loadConfig } from '../../src/config/load.js';
import { configProblems } from '../helpers/config.js';
import { tempDir } from '../helpers/temp.js';

/** The security settings of the exec and http toolsets, as a config file spells them (issue 18 items 3 and 4). */
const configFile = (config: unknown) => {
  const folder = tempDir('toolwright-config-sec-');
  const file = join(folder, 'toolwright.config.json');
  writeFileSync(file, JSON.stringify(config));
  return { folder, file };
};

const problemsOf = configProblems;

describe('config: http.allowedPorts', () => {
  it('is accepted by the schema and reaches fetch_url', () => {
    const { file } = configFile({ server: { audit: false }, toolsets: { http: { allowedPorts: [443, 8443] } } });
    const loaded = loadConfig(file);
    const plan = buildServer(loaded.config, loaded.baseDir, '1.0.0');
    expect(plan.server.tools.get('fetch_url')?.tool.description).toContain('Ports: 443, 8443 only.');
  });

  it('refuses ports outside 1–65535 and an empty list', () => {
    expect(problemsOf(() => loadConfig(configFile({ toolsets: { http: { allowedPorts: [0] } } }).file)).join('\n')).toContain('allowedPorts');
    expect(problemsOf(() => loadConfig(configFile({ toolsets: { http: { allowedPorts: [] } } }).file)).join('\n')).toContain('allowedPorts');
  });
});

describe('config: exec commands[].hardening', () => {
  it('accepts "auto" and "git" and marks the command hardened in the tool description', () => {
    const { file } = configFile({
      server: { audit: false },
      toolsets: { exec: { root: '.', commands: { g: { path: '/bin/echo', args: ['.*'], hardening: 'git' }, e: { path: '/bin/echo', hardening: 'auto' } } } },
    });
    const loaded = loadConfig(file);
    const description = buildServer(loaded.config, loaded.baseDir, '1.0.0').server.tools.get('execute_command')?.tool.description ?? '';
    expect(description).toMatch(/^g: .*runs hardened/m);
    expect(description).not.toMatch(/^e: .*runs hardened/m);
  });

  it('refuses any other value', () => {
    const { file } = configFile({ toolsets: { exec: { root: '.', commands: { g: { path: '/usr/bin/git', hardening: 'none' } } } } });
    expect(problemsOf(() => loadConfig(file)).join('\n')).toContain('hardening');
  });
});
