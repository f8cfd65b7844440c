import {defineCliConfig} from 'sanity/cli'

// The Studio and the CLI read the project from the environment; the placeholder lets `sanity
// schema validate`, `sanity build` and typegen run without an account (see README, "Sanity Studio").
export const PLACEHOLDER_PROJECT_ID = 'placeholder'

export default defineCliConfig({
  api: {
    projectId: process.env.SANITY_STUDIO_PROJECT_ID || PLACEHOLDER_PROJECT_ID,
    dataset: process.env.SANITY_STUDIO_DATASET || 'production',
  },
  schemaExtraction: {path: 'studio/schema.json', enforceRequiredFields: true},
  typegen: {
    path: ['./catalog/**/*.ts', './server/**/*.ts', './plugin/**/*.{ts,tsx}'],
    schema: 'studio/schema.json',
    generates: 'sanity.types.ts',
    overloadClientMethods: false,
  },
})
