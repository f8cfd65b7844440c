// The layer order, written once: content -> api -> snapshot -> delivery -> operations -> app.
// A lower layer never imports a higher one, type-only imports included; what a lower layer needs
// from a higher one is passed in. `npm run lint` runs this, and so does CI.
const FOUNDATION = '^(server/(config|version|clock|errors|deadline|backoff|identity-memo)\\.ts|sanity\\.types\\.ts)$'
// The catalog core that the Studio and the server share (the contract and its mapping, text rules,
// GROQ queries, the feed item, the rules worded in Hebrew for editors): below every layer of both.
const CATALOG = '^catalog/'
const layers = [
  ['content', '^server/content/'],
  ['api', '^server/api/'],
  ['snapshot', '^server/snapshot/'],
  ['delivery', '^server/(http|outbound|mcp|discovery|export|feed|edge)/'],
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
      comment:
        'config.ts, version.ts, clock.ts, errors.ts, deadline.ts, backoff.ts and identity-memo.ts are read by every layer, so they import none (only each other)',
      severity: 'error',
      from: {path: FOUNDATION},
      to: {path: '^server/', pathNot: FOUNDATION},
    },
    ...backward,
    {
      name: 'outgoing-calls-are-not-http-serving',
      comment:
        "http/ serves requests and reads the edge's and the feed's status; the edge and the feed call other services through outbound/, never through http/ (that made a folder cycle)",
      severity: 'error',
      from: {path: '^server/(edge|feed|outbound)/'},
      to: {path: '^server/http/'},
    },
    {
      name: 'catalog-imports-only-catalog',
      comment:
        'catalog/ is shared by the Studio (in a browser) and the server: it imports npm packages and itself, never the server, the plugin, the schemas or a Node built-in',
      severity: 'error',
      from: {path: CATALOG},
      to: {path: '^(server|plugin|schemas|studio|client|test|bench|scripts|support)/'},
    },
    {
      name: 'catalog-imports-no-node-built-in',
      comment: 'catalog/ runs in the Studio too, where importing a Node built-in stops it loading',
      severity: 'error',
      from: {path: CATALOG},
      to: {dependencyTypes: ['core']},
    },
    {
      name: 'schemas-import-only-catalog',
      comment:
        'schemas/ is plain data: the document types, with the rules of catalog/; the plugin attaches its inputs itself',
      severity: 'error',
      from: {path: '^schemas/'},
      to: {path: '^(server|plugin|studio|client|test|bench|scripts|support)/'},
    },
    {
      name: 'plugin-imports-no-server-or-tools',
      comment:
        'The Studio plugin is its own package (plugin/package.json): it reads catalog/ and schemas/, never the server, the client, tests or tools',
      severity: 'error',
      from: {path: '^plugin/'},
      to: {path: '^(server|client|test|bench|scripts|support)/'},
    },
    {
      name: 'plugin-lib-imports-no-components',
      comment:
        "plugin/lib/ is the plugin's logic without React; plugin/components/ renders it, never the other way round",
      severity: 'error',
      from: {path: '^plugin/lib/'},
      to: {path: '^plugin/components/'},
    },
    {
      name: 'server-imports-no-tests-or-tools',
      comment: 'What is served never depends on tests, benchmarks, the Studio or the typed client',
      severity: 'error',
      from: {path: '^server/'},
      to: {path: '^(test|bench|plugin|schemas|studio|client)/'},
    },
    {
      name: 'client-imports-only-client',
      comment:
        'The typed client is its own package (@code-talks/catalog-client) with no dependency but fetch: no npm package, no Node module, nothing of the server, the Studio or the tests',
      severity: 'error',
      from: {path: '^client/'},
      to: {pathNot: '^client/'},
    },
    {
      name: 'support-imports-no-tests-or-tools',
      comment:
        'support/ (stand-ins, process starters, the grown dataset) serves tests, benchmarks and scripts alike, so it imports none of them',
      severity: 'error',
      from: {path: '^support/'},
      to: {path: '^(test|bench|scripts)/'},
    },
    {
      name: 'tests-and-benchmarks-do-not-import-each-other',
      comment: 'What both need lives in support/; a benchmark and a test each stand alone',
      severity: 'error',
      from: {path: '^(test|bench)/'},
      to: {path: '^(test|bench)/', pathNot: '^$1/'},
    },
    {
      name: 'scripts-import-no-tests-or-benchmarks',
      comment: 'A script an operator or editor runs (npm run studio:sample) never runs test code',
      severity: 'error',
      from: {path: '^scripts/'},
      to: {path: '^(test|bench)/'},
    },
  ],
  options: {
    doNotFollow: {path: 'node_modules'},
    tsPreCompilationDeps: true,
    tsConfig: {fileName: 'tsconfig.json'},
    enhancedResolveOptions: {extensions: ['.ts', '.tsx', '.js', '.json']},
  },
}
