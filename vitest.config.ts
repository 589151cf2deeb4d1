import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    // Set-ups start whole local stacks and run ingest cycles: generous on a shared 2-core machine.
    hookTimeout: 180_000,
    pool: 'forks',
  },
});
