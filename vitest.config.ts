import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Two cores: forks keep native better-sqlite3 handles isolated per file.
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
