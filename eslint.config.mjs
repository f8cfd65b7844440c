// typescript-eslint's strict, type-checked rules over everything tsc checks: the server, the bench,
// the tests (tsconfig.json) and the Studio plugin and schemas (tsconfig.studio.json).
// Formatting is Prettier's (npm run lint:format), so no stylistic rules here.
import js from '@eslint/js'
import {defineConfig} from 'eslint/config'
import tseslint from 'typescript-eslint'

export default defineConfig(
  {
    ignores: [
      'node_modules/',
      'studio/dist/',
      'client/dist/',
      '.sanity/',
      'reports/',
      'data/',
      '.stryker-tmp/',
      '**/*.cjs',
      '**/*.mjs',
    ],
  },
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {project: ['./tsconfig.json', './tsconfig.studio.json'], tsconfigRootDir: import.meta.dirname},
    },
    rules: {
      // A number prints the same in every locale-free template; only objects, nullish values and the like are mistakes.
      '@typescript-eslint/restrict-template-expressions': ['error', {allowNumber: true}],
      // `() => expect(x)` and `() => resolve()` are the idiom of every callback API (vitest, events, timers).
      // ...and `return send(response, …)` as an early exit from a handler that itself returns nothing.
      '@typescript-eslint/no-confusing-void-expression': [
        'error',
        {ignoreArrowShorthand: true, ignoreVoidReturningFunctions: true},
      ],
      // `const {_rev, ...rest} = document` is how a field is left out.
      '@typescript-eslint/no-unused-vars': ['error', {ignoreRestSiblings: true}],
    },
  },
  {
    // support/ holds the tests' stand-ins and process starters, which benchmarks and scripts share.
    files: ['test/**', 'support/**'],
    rules: {
      // Tests read JSON bodies of unknown shape on purpose and check them with expect(), which is their type check.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      // Test helpers (run, eventually, stand-in servers) take async callbacks; one that needs no await keeps that shape.
      '@typescript-eslint/require-await': 'off',
      // Setup in beforeAll can fail part way, so teardown checks variables whose types say they are set.
      '@typescript-eslint/no-unnecessary-condition': 'off',
      // Stand-in servers take async handlers; a failure there fails the request the test makes.
      '@typescript-eslint/no-misused-promises': ['error', {checksVoidReturn: {arguments: false}}],
    },
  },
)
