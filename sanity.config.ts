import {visionTool} from '@sanity/vision'
import {defineConfig} from 'sanity'
import {catalogPlugin} from './plugin/index.ts'
import {STUDIO_API_VERSION} from './schemas/fields.ts'

// SANITY_STUDIO_* variables are read at build time (Vite inlines them). Without a project id the
// Studio still builds, against a placeholder project, so CI needs no account.
const projectId = process.env.SANITY_STUDIO_PROJECT_ID || 'placeholder'
const dataset = process.env.SANITY_STUDIO_DATASET || 'production'
// Set only by `npm run studio:sample`, for its local stand-in of Sanity's API.
const apiHost = process.env.SANITY_STUDIO_API_HOST
const catalog = {
  publicBaseUrl: process.env.SANITY_STUDIO_API_BASE_URL || 'http://localhost:3000',
  siteUrl: process.env.SANITY_STUDIO_SITE_URL || 'https://codetalks.example',
}

export default defineConfig({
  name: 'code-talks',
  title: 'Code Talks catalog',
  projectId,
  dataset,
  ...(apiHost ? {apiHost} : {}),
  plugins: [catalogPlugin(catalog), visionTool({defaultApiVersion: STUDIO_API_VERSION})],
})
