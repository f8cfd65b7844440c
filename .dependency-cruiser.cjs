// The layer order, written once: content -> api -> snapshot -> delivery -> operations -> app.
// A lower layer never imports a higher one, type-only imports included; what a lower layer needs
// from a higher one is passed in. `npm run lint` runs this, and so does CI.
const FOUNDATION = '^(server/(config|version|clock)\\.ts|sanity\\.types\\.ts)$'
const layers = [
  ['content', '^server/content/'],
  ['api', '^server/api/'],
  ['snapshot', '^server/snapshot/'],
  ['delivery', '^server/(http|mcp|discovery|export|feed|edge)/'],
  ['operations', '^server/(webhooks|scaling|observability)/'],
  ['app', '^server/[^/]+\\.ts$'],
]

const backward = layers.slice(0, -1).map(([name, path], index) => ({
  name: `${name}-imports-no-higher-layer`,
  comment: `${name} sits below ${layers
    .slice(index + 1)
    .map(([higher]) => higher)
    .join(', ')}: pass in what it needs instead of importing it`,
  severity: 'error',
  from: {path},
  to: {path: layers.slice(index + 1).map(([, higher]) => higher), pathNot: FOUNDATION},
}))

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import cycle makes none of its modules readable, testable or replaceable alone',
      severity: 'error',
      from: {},
      to: {circular: true},
    },
    {
      name: 'foundation-imports-no-layer',
      comment: 'config.ts, version.ts and clock.ts are read by every layer, so they import none',
      severity: 'error',
      from: {path: FOUNDATION},
      to: {path: '^server/'},
    },
    ...backward,
    {
      name: 'server-imports-no-tests-or-tools',
      comment: 'What is served never depends on tests, benchmarks, the Studio or the typed client',
      severity: 'error',
      from: {path: '^server/'},
      to: {path: '^(test|bench|plugin|studio|client)/'},
    },
    {
      name: 'client-imports-only-client',
      comment:
        'The typed client is its own package (@code-talks/catalog-client) with no dependency but fetch: no npm package, no Node module, nothing of the server, the Studio or the tests',
      severity: 'error',
      from: {path: '^client/'},
      to: {pathNot: '^client/'},
    },
  ],
  options: {
    doNotFollow: {path: 'node_modules'},
    tsPreCompilationDeps: true,
    tsConfig: {fileName: 'tsconfig.json'},
    enhancedResolveOptions: {extensions: ['.ts', '.js', '.json']},
  },
}
