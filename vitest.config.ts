import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Two cores: real child processes and servers in tests need room to breathe.
    maxWorkers: 2,
    // Sets $TOOLWRIGHT_AUDIT_DIR to a temp dir for the run, and removes it after.
    globalSetup: ['test/helpers/global-setup.ts'],
  },
});
