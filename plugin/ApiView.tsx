import {Box, Card, Flex, Spinner, Stack, Text} from '@sanity/ui'
import {Code} from '@sanity/ui/code'
import {useEffect, useMemo, useState} from 'react'
import {isObjectSchemaType} from '@sanity/types'
import {getPublishedId, useClient, useDataset, useProjectId, useSchema, useTranslation} from 'sanity'
import type {UserViewComponent} from 'sanity/structure'
import {STUDIO_API_VERSION} from '../schemas/fields.ts'
import {collectionOfDocumentType} from '../server/api/v1/links.ts'
import {buildApiPreview, PREVIEW_QUERIES, type ApiPreview} from './api-preview.ts'
import {CATALOG_NAMESPACE} from './i18n.ts'
import {previewSettings, type CatalogPluginOptions} from './preview-settings.ts'

type Loaded = {state: 'loading'} | {state: 'failed'; message: string} | {state: 'ready'; preview: ApiPreview}

/**
 * The "API" view of a catalog document: the JSON the v1 API would serve once it is published,
 * built by the server's own GROQ projection and mapper over the version being edited, with the
 * contract's objections beside it. Re-read on every revision.
 */
export const ApiView: UserViewComponent<CatalogPluginOptions> = ({document, documentId, options}) => {
  const client = useClient({apiVersion: STUDIO_API_VERSION})
  const projectId = useProjectId()
  const dataset = useDataset()
  const settings = useMemo(() => previewSettings(options, {projectId, dataset}), [options, projectId, dataset])
  const schema = useSchema()
  const {t} = useTranslation(CATALOG_NAMESPACE)
  const [loaded, setLoaded] = useState<Loaded>({state: 'loading'})
  const type = document.displayed._type
  const revision = document.displayed._rev
  const collection = type === undefined ? undefined : collectionOfDocumentType(type)
  // Objections name fields as the form does.
  const fieldTitle = useMemo(() => {
    const schemaType = type === undefined ? undefined : schema.get(type)
    const fields = isObjectSchemaType(schemaType) ? schemaType.fields : []
    return (name: string) => fields.find((field) => field.name === name)?.type.title
  }, [schema, type])

  useEffect(() => {
    if (!collection) return
    const controller = new AbortController()
    client
      .fetch(
        PREVIEW_QUERIES[collection],
        {id: getPublishedId(documentId)},
        {perspective: 'drafts', signal: controller.signal},
      )
      .then(
        (row: unknown) => setLoaded({state: 'ready', preview: buildApiPreview(collection, row, settings, fieldTitle)}),
        (error: unknown) => {
          if (!controller.signal.aborted)
            setLoaded({state: 'failed', message: error instanceof Error ? error.message : String(error)})
        },
      )
    return () => controller.abort()
  }, [client, collection, documentId, revision, settings, fieldTitle])

  if (!collection) return <Notice tone="caution" text={t('api-view.not-in-catalog')} />
  if (loaded.state === 'loading')
    return (
      <Flex padding={4} justify="center">
        <Spinner muted />
      </Flex>
    )
  if (loaded.state === 'failed')
    return <Notice tone="critical" text={t('api-view.query-failed', {message: loaded.message})} />
  const {preview} = loaded
  if (preview.status === 'missing') return <Notice tone="default" text={t('api-view.missing')} />
  if (preview.status === 'scheduled') return <Notice tone="default" text={preview.notice} />
  if (preview.status === 'rejected') {
    return (
      <Box padding={4} dir="rtl">
        <Stack gap={3}>
          <Notice tone="critical" text={t('api-view.rejected')} />
          {preview.problems.map((problem) => (
            <Text key={problem} size={1}>
              • {problem}
            </Text>
          ))}
        </Stack>
      </Box>
    )
  }
  return (
    <Box padding={4}>
      <Stack gap={4}>
        <Text size={1} muted>{`GET ${settings.publicBaseUrl}${preview.path}`}</Text>
        {preview.warnings.map((warning) => (
          <Notice key={warning} tone="caution" text={warning} />
        ))}
        <Card padding={3} radius={2} tone="transparent" border>
          <Code language="json" size={1}>
            {preview.json}
          </Code>
        </Card>
      </Stack>
    </Box>
  )
}

function Notice({tone, text}: {tone: 'default' | 'caution' | 'critical'; text: string}) {
  return (
    <Card padding={3} radius={2} tone={tone} border dir="rtl">
      <Text size={1}>{text}</Text>
    </Card>
  )
}
