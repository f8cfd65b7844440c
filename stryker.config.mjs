// Mutation testing of the catalog core and the projection server's core (`npm run mutate`). Slow, so not in CI; the
// latest score is in bench/results/mutation.md. Only the unit tests run (vitest.mutation.config.ts).
const config = {
  testRunner: 'vitest',
  vitest: {configFile: 'vitest.mutation.config.ts'},
  mutate: [
    'catalog/v1/**/*.ts',
    'server/api/**/*.ts',
    'server/snapshot/**/*.ts',
    'server/http/**/*.ts',
    'server/webhooks/**/*.ts',
    // A compile-time check of TypeGen's query results against the row schemas: no behaviour to test.
    '!server/api/v1/query-types.ts',
  ],
  coverageAnalysis: 'perTest',
  checkers: [],
  concurrency: 2,
  ignoreStatic: true,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: {fileName: 'reports/mutation/mutation.html'},
  jsonReporter: {fileName: 'reports/mutation/mutation.json'},
  tempDirName: '.stryker-tmp',
  // Reruns retest only mutants whose code or covering tests changed (reports/stryker-incremental.json).
  incremental: true,
}
export default config
