import {definePlugin} from 'sanity'
import {structureTool} from 'sanity/structure'
import {schemaTypes} from '../schemas/index.ts'
import {PODCAST_SETTINGS_ID} from '../schemas/podcast-settings.ts'
import {podcastGuidOf} from '../catalog/feed/podcast-guid.ts'
import {CatalogInput} from './components/CatalogInput.tsx'
import {episodeAudioPlugin} from './components/AudioFileInput.tsx'
import {DirectionalTitles} from './components/DirectionalTitles.tsx'
import {episodeNumberInput} from './components/EpisodeNumberInput.tsx'
import {episodeSoundbitesPlugin} from './components/SoundbitesInput.tsx'
import {episodeTranscriptPlugin} from './components/TranscriptInput.tsx'
import {catalogLocaleBundle, validationLocaleBundle} from './lib/i18n.ts'
import {feedUrlOf, type CatalogPluginOptions} from './lib/preview-settings.ts'
import {catalogDocumentNode, catalogStructure} from './components/structure.ts'

/**
 * Everything the catalog's editors need, configured by its options alone: the document types
 * (episode, meetup, voice) with the contract's validation, Hebrew slugs, right-to-left editing
 * and titles, and a structure tool with the catalog's lists and each document's "API" view. A team
 * with its own structure passes `structure: false` and wires `catalogStructure` and
 * `catalogDocumentNode(options)` into its own `structureTool`.
 */
export const catalogPlugin = definePlugin<CatalogPluginOptions>((options) => ({
  name: 'code-talks-catalog',
  schema: {
    types: schemaTypes,
    // The settings singleton starts with its podcast:guid, computed once from the feed's address and
    // then kept: a later move of the feed does not change it.
    templates: (templates) => [
      ...templates.filter((template) => template.id !== PODCAST_SETTINGS_ID),
      {
        id: PODCAST_SETTINGS_ID,
        title: 'הגדרות הפודקאסט',
        schemaType: PODCAST_SETTINGS_ID,
        value: {
          guid: podcastGuidOf(feedUrlOf(options)),
          explicit: false,
          showType: 'episodic',
          locked: true,
          medium: 'podcast',
        },
      },
    ],
  },
  document: {
    // Only the singleton item opens the settings; "create new" would make a second one.
    newDocumentOptions: (items) => items.filter((item) => item.templateId !== PODCAST_SETTINGS_ID),
  },
  form: {components: {input: CatalogInput}},
  studio: {components: {layout: DirectionalTitles}},
  i18n: {bundles: [catalogLocaleBundle, validationLocaleBundle]},
  plugins: [
    episodeNumberInput(),
    episodeAudioPlugin(),
    episodeTranscriptPlugin(),
    episodeSoundbitesPlugin(),
    ...(options.structure === false
      ? []
      : [structureTool({structure: catalogStructure, defaultDocumentNode: catalogDocumentNode(options)})]),
  ],
}))

export {catalogDocumentNode, catalogStructure} from './components/structure.ts'
export {previewSettings, type CatalogPluginOptions} from './lib/preview-settings.ts'
export {slugify} from '../catalog/editor-rules/slugify.ts'
export type {PreviewSettings} from './lib/api-preview.ts'
