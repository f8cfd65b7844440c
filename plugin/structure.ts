import {map} from 'rxjs'
import type {DefaultDocumentNodeResolver, StructureResolver} from 'sanity/structure'
import {collectionOfDocumentType} from '../server/api/v1/links.ts'
import {ApiView} from './ApiView.tsx'
import type {CatalogPluginOptions} from './preview-settings.ts'
import {VOICE_LIST_QUERY, voicesInApiOrder} from './voice-order.ts'

/**
 * Episodes and meetups newest first; voices in the API's order (a Hebrew collator, kept live by
 * listening to the query), since GROQ's order() compares code points. Lists show drafts beside
 * published documents.
 */
export const catalogStructure: StructureResolver = (S, {documentStore}) =>
  S.list()
    .title('Catalog')
    .items([
      S.listItem().title('Episodes').schemaType('episode').child(S.documentTypeList('episode').title('Episodes').defaultOrdering([{field: 'publishedAt', direction: 'desc'}])),
      S.listItem().title('Meetup talks').schemaType('meetup').child(S.documentTypeList('meetup').title('Meetup talks').defaultOrdering([{field: 'talkDate', direction: 'desc'}])),
      S.listItem()
        .title('Voices')
        .schemaType('voice')
        .child(() =>
          documentStore.listenQuery(VOICE_LIST_QUERY, {}, {}).pipe(
            map((rows) =>
              S.list()
                .title('Voices')
                .items(voicesInApiOrder(rows).map((id) => S.documentListItem().id(id).schemaType('voice')))
                .initialValueTemplates([S.initialValueTemplateItem('voice')])
                .canHandleIntent((intent, {type}) => type === 'voice' && (intent === 'edit' || intent === 'create')),
            ),
          ),
        ),
      S.divider(),
      ...S.documentTypeListItems().filter((item) => !collectionOfDocumentType(item.getId() ?? '')),
    ])

/** Catalog documents get the form and the "API" view. */
export const catalogDocumentNode =
  (options: CatalogPluginOptions): DefaultDocumentNodeResolver =>
  (S, {schemaType}) =>
    collectionOfDocumentType(schemaType) ? S.document().views([S.view.form(), S.view.component(ApiView).options(options).title('API')]) : S.document()
