import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

// npm's own range logic (semver is installed with better-sqlite3's prebuild-install): the same
// rule `npm install` applies when it warns EBADENGINE.
const semver = createRequire(import.meta.url)('semver') as {
  minVersion(range: string): { version: string } | null;
  satisfies(version: string, range: string): boolean;
};

const root = new URL('../../', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(`${root}package-lock.json`, 'utf8')) as {
  packages: Record<string, { version?: string; dev?: boolean; devOptional?: boolean; engines?: { node?: string } | string[] }>;
};

/**
 * Development-only packages allowed to want a newer Node than this one, and why that is harmless:
 * pipenet (mcp-proxy's tunnel, through the fastmcp benchmark baseline) is loaded only by
 * mcp-proxy's own CLI, which nothing here runs, and no version of it declares Node 20.
 */
const DEV_ONLY_EXCEPTIONS = new Set(['pipenet']);

const nameOf = (path: string) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
const nodeRange = (entry: (typeof lock.packages)[string]) => (Array.isArray(entry.engines) ? undefined : entry.engines?.node);

describe('Node versions the dependencies declare', () => {
  it('every runtime dependency in the lock file declares the oldest Node toolwright claims (no EBADENGINE for users)', () => {
    const floor = semver.minVersion(pkg.engines.node)!.version;
    const refusing = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && !entry.dev && !entry.devOptional)
      .filter(([, entry]) => nodeRange(entry) !== undefined && !semver.satisfies(floor, nodeRange(entry)!))
      .map(([path, entry]) => `${nameOf(path)}@${entry.version} wants node ${nodeRange(entry)}, toolwright claims ${pkg.engines.node}`);
    expect(refusing).toEqual([]);
  });

  it('every development dependency declares the Node running the tests (no EBADENGINE on npm install here)', () => {
    const refusing = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && (entry.dev || entry.devOptional) && !DEV_ONLY_EXCEPTIONS.has(nameOf(path)))
      .filter(([, entry]) => nodeRange(entry) !== undefined && !semver.satisfies(process.version, nodeRange(entry)!))
      .map(([path, entry]) => `${nameOf(path)}@${entry.version} wants node ${nodeRange(entry)}, this is ${process.version}`);
    expect(refusing).toEqual([]);
  });
});
