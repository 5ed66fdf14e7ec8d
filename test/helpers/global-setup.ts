import { mkdtempSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Servers built in tests keep their default audit trail out of the repository
 * (and their per-user state out of the home directory): one temp dir for the
 * whole run, handed to the test workers (and the child processes they spawn)
 * as $TOOLWRIGHT_AUDIT_DIR and $XDG_STATE_HOME, and removed afterwards.
 * Vitest starts its workers with the main process's environment, read after
 * this setup has run. The TypeScript programs the tests start are bundled once
 * for the run (test/helpers/ts-program.ts) into $TOOLWRIGHT_TEST_BUNDLES, inside
 * the repository (so their packages resolve), removed afterwards too.
 */
/** The run's empty PostgreSQL cluster that test/helpers/postgres.ts copies, in /tmp; removed at the end. */
export const POSTGRES_TEMPLATE_PREFIX = 'toolwright-pg-template-';

export default function setup() {
  const previous = {
    audit: process.env.TOOLWRIGHT_AUDIT_DIR,
    state: process.env.XDG_STATE_HOME,
    bundles: process.env.TOOLWRIGHT_TEST_BUNDLES,
    extraCa: process.env.NODE_EXTRA_CA_CERTS,
  };
  // Node 20 reads every certificate NODE_EXTRA_CA_CERTS names when a process starts, used or not:
  // set to the system bundle (as on this project's machines), that is ~60 ms of CPU in each of the
  // run's ~700 Node processes, a tenth of the suite's CPU. No test reaches past 127.0.0.1, and the
  // tests that use TLS trust their own certificates explicitly. (scripts/test.mjs drops it for the
  // conformance run beside the tests.)
  delete process.env.NODE_EXTRA_CA_CERTS;
  const auditDir = mkdtempSync(join(tmpdir(), 'toolwright-test-audit-'));
  process.env.TOOLWRIGHT_AUDIT_DIR = auditDir;
  // A server started outside a project keeps its state in the per-user state dir: in the run's temp dir, not the user's home.
  process.env.XDG_STATE_HOME = join(auditDir, 'state');
  const bundles = join(fileURLToPath(new URL('../..', import.meta.url)), '.test-cache', `bundles-${process.pid}`);
  process.env.TOOLWRIGHT_TEST_BUNDLES = bundles;
  return () => {
    restore('TOOLWRIGHT_AUDIT_DIR', previous.audit);
    restore('XDG_STATE_HOME', previous.state);
    restore('TOOLWRIGHT_TEST_BUNDLES', previous.bundles);
    restore('NODE_EXTRA_CA_CERTS', previous.extraCa);
    rmSync(auditDir, { recursive: true, force: true });
    rmSync(join(tmpdir(), `${POSTGRES_TEMPLATE_PREFIX}${basename(auditDir)}`), { recursive: true, force: true });
    rmSync(bundles, { recursive: true, force: true });
    try {
      rmdirSync(dirname(bundles)); // .test-cache itself, unless another run is using it
    } catch {
      // not empty: another run's bundles
    }
  };
}

function restore(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}
