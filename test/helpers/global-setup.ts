import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Servers built in tests keep their default audit trail out of the repository
 * (and their per-user state out of the home directory): one temp dir for the
 * whole run, handed to the test workers (and the child processes they spawn)
 * as $TOOLWRIGHT_AUDIT_DIR and $XDG_STATE_HOME, and removed afterwards.
 * Vitest starts its workers with the main process's environment, read after
 * this setup has run.
 */
export default function setup() {
  const previous = { audit: process.env.TOOLWRIGHT_AUDIT_DIR, state: process.env.XDG_STATE_HOME };
  const auditDir = mkdtempSync(join(tmpdir(), 'toolwright-test-audit-'));
  process.env.TOOLWRIGHT_AUDIT_DIR = auditDir;
  // A server started outside a project keeps its state in the per-user state dir: in the run's temp dir, not the user's home.
  process.env.XDG_STATE_HOME = join(auditDir, 'state');
  return () => {
    restore('TOOLWRIGHT_AUDIT_DIR', previous.audit);
    restore('XDG_STATE_HOME', previous.state);
    rmSync(auditDir, { recursive: true, force: true });
  };
}

function restore(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}
