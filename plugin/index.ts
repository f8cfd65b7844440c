import {definePlugin} from 'sanity'
import {schemaTypes} from '../schemas/index.ts'
import type {CatalogPluginOptions} from './preview-settings.ts'
import {DirectionalInput} from './DirectionalInput.tsx'

/**
 * The catalog's document types (episode, meetup, voice) with the contract's validation, Hebrew
 * slugs and right-to-left editing. Add `structureTool({structure: catalogStructure,
 * defaultDocumentNode: catalogDocumentNode(previewSettings(...))})` for the lists and the "API" view.
 */
export const catalogPlugin = definePlugin<CatalogPluginOptions>(() => ({
  name: 'code-talks-catalog',
  schema: {types: schemaTypes},
  form: {components: {input: DirectionalInput}},
}))

export {catalogDocumentNode, catalogStructure} from './structure.ts'
export {previewSettings, type CatalogPluginOptions} from './preview-settings.ts'
export {slugify} from './slugify.ts'
export type {PreviewSettings} from './api-preview.ts'
