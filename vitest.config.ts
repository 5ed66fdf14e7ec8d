import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Two cores: real child processes and servers in tests need room to breathe.
    maxWorkers: 2,
  },
});
