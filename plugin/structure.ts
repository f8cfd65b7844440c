import type {DefaultDocumentNodeResolver, StructureResolver} from 'sanity/structure'
import {collectionOfDocumentType} from '../server/api/v1/links.ts'
import {ApiView} from './ApiView.tsx'
import type {CatalogPluginOptions} from './preview-settings.ts'

/**
 * Episodes and meetups newest first, voices by name (GROQ orders by code point, which for the
 * Hebrew alphabet is its order). Document lists show drafts beside published documents.
 */
export const catalogStructure: StructureResolver = (S) =>
  S.list()
    .title('Catalog')
    .items([
      S.listItem().title('Episodes').schemaType('episode').child(S.documentTypeList('episode').title('Episodes').defaultOrdering([{field: 'publishedAt', direction: 'desc'}])),
      S.listItem().title('Meetup talks').schemaType('meetup').child(S.documentTypeList('meetup').title('Meetup talks').defaultOrdering([{field: 'talkDate', direction: 'desc'}])),
      S.listItem().title('Voices').schemaType('voice').child(S.documentTypeList('voice').title('Voices').defaultOrdering([{field: 'name', direction: 'asc'}])),
      S.divider(),
      ...S.documentTypeListItems().filter((item) => !collectionOfDocumentType(item.getId() ?? '')),
    ])

/** Catalog documents get the form and the "API" view. */
export const catalogDocumentNode =
  (options: CatalogPluginOptions): DefaultDocumentNodeResolver =>
  (S, {schemaType}) =>
    collectionOfDocumentType(schemaType) ? S.document().views([S.view.form(), S.view.component(ApiView).options(options).title('API')]) : S.document()
