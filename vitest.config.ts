import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests start real servers on ephemeral loopback ports; keep them quick to fail.
    testTimeout: 15_000,
  },
})
