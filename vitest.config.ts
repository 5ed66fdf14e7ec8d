import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Two cores: real child processes and servers in tests need room to breathe.
    maxWorkers: 2,
    // Each worker keeps the modules it has loaded from one test file to the next instead of
    // loading src/ again for every file: that loading was a quarter of the suite's CPU (142 s of
    // 536 s on two quiet cores; 20 s without it, the whole run 371 s). Test files leave no global
    // state behind them: environment variables, the working directory and the OpenTelemetry
    // globals are restored by the tests that change them (test/helpers/otel.ts).
    isolate: false,
    // Sets $TOOLWRIGHT_AUDIT_DIR to a temp dir for the run, and removes it after.
    globalSetup: ['test/helpers/global-setup.ts'],
  },
});
