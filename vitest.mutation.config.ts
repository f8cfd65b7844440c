import {defineConfig} from 'vitest/config'

// The unit tests only, for mutation testing (`npm run mutate`, stryker.config.mjs): no integration
// tests (child processes, Redis, Varnish, nginx), wherever they sit (`*.integration.test.ts`), no
// browser tests (Chromium), no Studio or plugin tests, no `*.alone.test.ts` (peak RSS of whole
// processes, which npm test runs by themselves). Also left out: the slowest unit tests of folders
// that are not mutated (server/content, server/edge), which take seconds a run and would be run
// again for every mutant they reach.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [
      'node_modules/**',
      'test/integration/**',
      'test/**/*.integration.test.ts',
      'test/**/*.alone.test.ts',
      'test/browser/**',
      'test/studio/**',
      'test/plugin/**',
      'test/helpers/**',
      'test/docs.test.ts',
      'test/content/catalog-read.test.ts',
      'test/content/ndjson-file.test.ts',
      'test/edge/purge-providers.integration.test.ts',
    ],
    testTimeout: 15_000,
  },
})
