import {definePlugin} from 'sanity'
import {structureTool} from 'sanity/structure'
import {schemaTypes} from '../schemas/index.ts'
import {DirectionalInput} from './DirectionalInput.tsx'
import {DirectionalTitles} from './DirectionalTitles.tsx'
import {catalogLocaleBundle, validationLocaleBundle} from './i18n.ts'
import type {CatalogPluginOptions} from './preview-settings.ts'
import {catalogDocumentNode, catalogStructure} from './structure.ts'

/**
 * Everything the catalog's editors need, configured by its options alone: the document types
 * (episode, meetup, voice) with the contract's validation, Hebrew slugs, right-to-left editing
 * and titles, and a structure tool with the catalog's lists and each document's "API" view. A team
 * with its own structure passes `structure: false` and wires `catalogStructure` and
 * `catalogDocumentNode(options)` into its own `structureTool`.
 */
export const catalogPlugin = definePlugin<CatalogPluginOptions>((options) => ({
  name: 'code-talks-catalog',
  schema: {types: schemaTypes},
  form: {components: {input: DirectionalInput}},
  studio: {components: {layout: DirectionalTitles}},
  i18n: {bundles: [catalogLocaleBundle, validationLocaleBundle]},
  plugins: options.structure === false ? [] : [structureTool({structure: catalogStructure, defaultDocumentNode: catalogDocumentNode(options)})],
}))

export {catalogDocumentNode, catalogStructure} from './structure.ts'
export {previewSettings, type CatalogPluginOptions} from './preview-settings.ts'
export {slugify} from './slugify.ts'
export type {PreviewSettings} from './api-preview.ts'
