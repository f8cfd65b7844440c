import {configDefaults, defineConfig} from 'vitest/config'

// `*.alone.test.ts` measure whole processes (peak RSS, heap growth), which the suite's other files running beside
// them would disturb: npm test runs them in a second pass, by themselves (VITEST_ALONE=1), one file
// at a time, since two of them side by side disturb each other the same way.
const ALONE = 'test/**/*.alone.test.ts'
const alone = process.env.VITEST_ALONE === '1'

export default defineConfig({
  test: {
    include: alone ? [ALONE] : ['test/**/*.test.ts'],
    exclude: alone ? configDefaults.exclude : [...configDefaults.exclude, ALONE],
    fileParallelism: !alone,
    // Liveness bounds, not speed ones: at a load of 8 on two cores, tests that start processes or
    // read 15,000 documents ran past 15 s, and expect.poll's default second was too short for
    // effects that follow a response. A hang still fails; speed is for bench/.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    expect: {poll: {timeout: 10_000}},
  },
})
