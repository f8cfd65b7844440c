import {map} from 'rxjs'
import type {DefaultDocumentNodeResolver, StructureResolver} from 'sanity/structure'
import {collectionOfDocumentType} from '../../catalog/v1/links.ts'
import {PODCAST_SETTINGS_ID} from '../../schemas/podcast-settings.ts'
import {ApiView} from './ApiView.tsx'
import {FeedView} from './FeedView.tsx'
import {CATALOG_NAMESPACE, catalogStrings} from '../lib/i18n.ts'
import type {CatalogPluginOptions} from '../lib/preview-settings.ts'
import {VOICE_LIST_QUERY, voicesInApiOrder} from '../lib/voice-order.ts'

/**
 * Episodes and meetups newest first; voices in the API's order (a Hebrew collator, kept live by
 * listening to the query), since GROQ's order() compares code points. Lists show drafts beside
 * published documents.
 */
export const catalogStructure: StructureResolver = (S, {documentStore, i18n}) => {
  const text = (key: keyof typeof catalogStrings) => i18n.t(key, {ns: CATALOG_NAMESPACE})
  /** One document type's list, newest first by the date the API sorts it by. */
  const newestFirst = (
    collection: 'episodes' | 'meetups',
    type: 'episode' | 'meetup',
    dateField: 'publishedAt' | 'talkDate',
  ) =>
    S.listItem()
      .id(collection)
      .title(text(`structure.${collection}`))
      .schemaType(type)
      .child(
        S.documentTypeList(type)
          .title(text(`structure.${collection}`))
          .defaultOrdering([{field: dateField, direction: 'desc'}]),
      )
  return S.list()
    .id('catalog')
    .title(text('structure.catalog'))
    .items([
      newestFirst('episodes', 'episode', 'publishedAt'),
      newestFirst('meetups', 'meetup', 'talkDate'),
      S.listItem()
        .id('voices')
        .title(text('structure.voices'))
        .schemaType('voice')
        .child(() =>
          documentStore.listenQuery(VOICE_LIST_QUERY, {}, {}).pipe(
            map((rows) =>
              S.list()
                .id('voice-list')
                .title(text('structure.voices'))
                .items(voicesInApiOrder(rows).map((id) => S.documentListItem().id(id).schemaType('voice')))
                .initialValueTemplates([S.initialValueTemplateItem('voice')])
                .canHandleIntent((intent, {type}) => type === 'voice' && (intent === 'edit' || intent === 'create')),
            ),
          ),
        ),
      S.divider(),
      // The settings are one document, opened directly: there is nothing to list or create.
      S.listItem()
        .id(PODCAST_SETTINGS_ID)
        .title(text('structure.podcast-settings'))
        .schemaType(PODCAST_SETTINGS_ID)
        .child(
          S.document()
            .schemaType(PODCAST_SETTINGS_ID)
            .documentId(PODCAST_SETTINGS_ID)
            .initialValueTemplate(PODCAST_SETTINGS_ID),
        ),
      ...S.documentTypeListItems().filter(
        (item) => !collectionOfDocumentType(item.getId() ?? '') && item.getId() !== PODCAST_SETTINGS_ID,
      ),
    ])
}

/** Catalog documents get the form and the "API" view; episodes also the "Feed" view beside it. */
export const catalogDocumentNode =
  (options: CatalogPluginOptions): DefaultDocumentNodeResolver =>
  (S, {schemaType, i18n}) => {
    if (!collectionOfDocumentType(schemaType)) return S.document()
    const title = (key: 'view.api' | 'view.feed') => i18n.t(key, {ns: CATALOG_NAMESPACE})
    const apiView = S.view.component(ApiView).id('api').options(options).title(title('view.api'))
    const feedView = S.view.component(FeedView).id('feed').options(options).title(title('view.feed'))
    return S.document().views(schemaType === 'episode' ? [S.view.form(), apiView, feedView] : [S.view.form(), apiView])
  }
