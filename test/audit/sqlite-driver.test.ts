import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteDriverError } from '../../src/audit/sqlite-driver.js';
import { SqliteAuditSink } from '../../src/audit/sqlite-sink.js';
import { ToolServer } from '../../src/server/server.js';
import { tempDir } from '../helpers/temp.js';

// better-sqlite3's native module is built by its install script, which npm 11 warns about and a
// coming npm skips unless the project approves it. A trail that cannot load it must say so when
// the server is built, naming the fix, not fail every call later. `nativeBinding` (the driver's
// own option) points the loader at a module that is not there, or is not a module.

function expectNamesTheFix(err: unknown, reason: RegExp): void {
  expect(err).toBeInstanceOf(SqliteDriverError);
  const message = (err as Error).message;
  expect(message).toMatch(/^the SQLite audit trail needs better-sqlite3's native module, which /);
  expect(message).toMatch(reason);
  expect(message).toContain('npm rebuild better-sqlite3');
  expect(message).toContain('npm install-scripts approve better-sqlite3');
  expect(message).toContain('server.audit: false');
  expect((err as Error).cause).toBeDefined(); // the driver's own words stay available
}

describe('a SQLite audit trail whose native module cannot load', () => {
  it('is refused when the sink is built (at start-up), with the fix in the message, and writes nothing', () => {
    const dir = tempDir('toolwright-driver-');
    const file = join(dir, 'audit.db');
    let error: unknown;
    try {
      new SqliteAuditSink(file, { nativeBinding: join(dir, 'build', 'Release', 'better_sqlite3.node') });
    } catch (err) {
      error = err;
    }
    expectNamesTheFix(error, /which is not built\./);
    expect(existsSync(file)).toBe(false);
  });

  it('a file that is not a native module for this machine is refused the same way', () => {
    const dir = tempDir('toolwright-driver-');
    const binding = join(dir, 'better_sqlite3.node');
    writeFileSync(binding, 'not a shared object');
    expect.assertions(8);
    try {
      new SqliteAuditSink(join(dir, 'audit.db'), { nativeBinding: binding });
    } catch (err) {
      expectNamesTheFix(err, /which (was built for another platform|cannot be loaded)/);
      expect((err as Error).message).not.toContain(dir); // the cause keeps the path, the message does not
    }
  });

  it('so a server built with it fails to start, before any call', () => {
    const dir = tempDir('toolwright-driver-');
    expect(() => new ToolServer({ audit: new SqliteAuditSink(join(dir, 'audit.db'), { nativeBinding: join(dir, 'missing.node') }) })).toThrow(
      SqliteDriverError,
    );
  });

  it('the driver that is installed loads, and a working sink is built as before', () => {
    const dir = tempDir('toolwright-driver-');
    expect(() => new SqliteAuditSink(join(dir, 'audit.db'))).not.toThrow();
  });
});
