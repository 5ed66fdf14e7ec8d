import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// What `npm install toolwright` installs, read from the lock file as npm reads it (issue 33): the
// packages a default install gets are those neither development-only nor an optional peer's.
const root = new URL('../../', import.meta.url).pathname;
const lock = JSON.parse(readFileSync(`${root}package-lock.json`, 'utf8')) as {
  packages: Record<string, { dev?: boolean; devOptional?: boolean; optional?: boolean; peer?: boolean; hasInstallScript?: boolean }>;
};
const installed = Object.entries(lock.packages).filter(([path, entry]) => path !== '' && !entry.dev && !entry.devOptional && !entry.optional);
const nameOf = (path: string) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);

describe('a default install', () => {
  it('is at most 40 packages (the issue 33 goal; 28 besides toolwright today)', () => {
    expect(installed.length).toBeLessThanOrEqual(39);
  });

  it('runs no install script (no native build to approve)', () => {
    expect(installed.filter(([, entry]) => entry.hasInstallScript).map(([path]) => nameOf(path))).toEqual([]);
  });

  it('leaves out every backend: they are optional peer dependencies', () => {
    const names = new Set(installed.map(([path]) => nameOf(path)));
    for (const backend of [
      'pg',
      'ioredis',
      'rate-limiter-flexible',
      '@opentelemetry/sdk-node',
      '@octokit/core',
      'better-sqlite3',
      'tsx',
      'esbuild',
      'protobufjs',
    ])
      expect(names.has(backend), backend).toBe(false);
  });
});
