import {configDefaults, defineConfig} from 'vitest/config'

// `*.alone.test.ts` measure whole processes (peak RSS), which the suite's other files running beside
// them would disturb: npm test runs them in a second pass, by themselves (VITEST_ALONE=1).
const ALONE = 'test/**/*.alone.test.ts'
const alone = process.env.VITEST_ALONE === '1'

export default defineConfig({
  test: {
    include: alone ? [ALONE] : ['test/**/*.test.ts'],
    exclude: alone ? configDefaults.exclude : [...configDefaults.exclude, ALONE],
    // Integration tests start real servers on ephemeral loopback ports; keep them quick to fail.
    testTimeout: 15_000,
  },
})
