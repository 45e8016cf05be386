import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    env: { TZ: 'UTC', ASTRO_TELEMETRY_DISABLED: '1' },
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
  },
});
