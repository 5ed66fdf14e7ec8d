import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// Servers built in tests keep their default audit trail out of the repository.
const auditDir = mkdtempSync(join(tmpdir(), 'toolwright-test-audit-'));

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Two cores: real child processes and servers in tests need room to breathe.
    maxWorkers: 2,
    env: { TOOLWRIGHT_AUDIT_DIR: auditDir },
  },
});
