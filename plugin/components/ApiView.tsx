import {useMemo} from 'react'
import {isObjectSchemaType} from '@sanity/types'
import {getPublishedId, useClient, useSchema, useTranslation} from 'sanity'
import type {UserViewComponent} from 'sanity/structure'
import {STUDIO_API_VERSION} from '../../schemas/fields.ts'
import {collectionOfDocumentType} from '../../catalog/v1/links.ts'
import {buildApiPreview, PREVIEW_QUERIES} from '../lib/api-preview.ts'
import {CATALOG_NAMESPACE} from '../lib/i18n.ts'
import {Loading, Notice, Reasons, Served, usePreview, usePreviewSettings} from './PreviewPane.tsx'
import type {CatalogPluginOptions} from '../lib/preview-settings.ts'

/**
 * The "API" view of a catalog document: the JSON the v1 API would serve once it is published,
 * built by the server's own GROQ projection and mapper over the version being edited, with the
 * contract's objections beside it. Re-read on every revision.
 */
export const ApiView: UserViewComponent<CatalogPluginOptions> = ({document, documentId, options}) => {
  const client = useClient({apiVersion: STUDIO_API_VERSION})
  const settings = usePreviewSettings(options)
  const schema = useSchema()
  const {t} = useTranslation(CATALOG_NAMESPACE)
  const type = document.displayed._type
  const collection = type === undefined ? undefined : collectionOfDocumentType(type)
  // Objections name fields as the form does.
  const fieldTitle = useMemo(() => {
    const schemaType = type === undefined ? undefined : schema.get(type)
    const fields = isObjectSchemaType(schemaType) ? schemaType.fields : []
    return (name: string) => fields.find((field) => field.name === name)?.type.title
  }, [schema, type])
  const read = useMemo(
    () =>
      collection === undefined
        ? undefined
        : async (signal: AbortSignal) => {
            const row: unknown = await client.fetch(
              PREVIEW_QUERIES[collection],
              {id: getPublishedId(documentId)},
              {perspective: 'drafts', signal},
            )
            return buildApiPreview(collection, row, settings, fieldTitle)
          },
    [client, collection, documentId, settings, fieldTitle],
  )
  const loaded = usePreview(read, document.displayed._rev)

  if (!collection) return <Notice tone="caution" text={t('api-view.not-in-catalog')} />
  if (loaded.state === 'loading') return <Loading />
  if (loaded.state === 'failed')
    return <Notice tone="critical" text={t('api-view.query-failed', {message: loaded.message})} />
  const {preview} = loaded
  if (preview.status === 'missing') return <Notice tone="default" text={t('api-view.missing')} />
  if (preview.status === 'scheduled') return <Notice tone="default" text={preview.notice} />
  if (preview.status === 'rejected') return <Reasons title={t('api-view.rejected')} reasons={preview.problems} />
  return (
    <Served url={`${settings.publicBaseUrl}${preview.path}`} language="json" body={preview.json}>
      {preview.warnings.map((warning) => (
        <Notice key={warning} tone="caution" text={warning} />
      ))}
    </Served>
  )
}
