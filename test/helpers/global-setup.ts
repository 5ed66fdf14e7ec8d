import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Servers built in tests keep their default audit trail out of the repository:
 * one temp dir for the whole run, handed to the test workers (and the child
 * processes they spawn) as $TOOLWRIGHT_AUDIT_DIR, and removed afterwards.
 * Vitest starts its workers with the main process's environment, read after
 * this setup has run.
 */
export default function setup() {
  const previous = process.env.TOOLWRIGHT_AUDIT_DIR;
  const auditDir = mkdtempSync(join(tmpdir(), 'toolwright-test-audit-'));
  process.env.TOOLWRIGHT_AUDIT_DIR = auditDir;
  return () => {
    if (previous === undefined) delete process.env.TOOLWRIGHT_AUDIT_DIR;
    else process.env.TOOLWRIGHT_AUDIT_DIR = previous;
    rmSync(auditDir, { recursive: true, force: true });
  };
}
