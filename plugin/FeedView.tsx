import {Box, Card, Flex, Spinner, Stack, Text} from '@sanity/ui'
import {Code} from '@sanity/ui/code'
import {useEffect, useMemo, useState} from 'react'
import {getPublishedId, useClient, useDataset, useProjectId, useTranslation} from 'sanity'
import type {UserViewComponent} from 'sanity/structure'
import {STUDIO_API_VERSION} from '../schemas/fields.ts'
import {EPISODE_PREVIEW_QUERY, PODCAST_SETTINGS_QUERY, VOICES_BY_SLUG_QUERY} from '../server/content/queries.ts'
import {buildFeedPreview, voiceSlugsFor, type FeedPreview} from './feed-preview.ts'
import {CATALOG_NAMESPACE} from './i18n.ts'
import {previewSettings, type CatalogPluginOptions} from './preview-settings.ts'

type Loaded = {state: 'loading'} | {state: 'failed'; message: string} | {state: 'ready'; preview: FeedPreview}

/**
 * The "Feed" view of an episode: its `<item>` exactly as /feed.xml would serve it once published
 * (the server's mapper and the feed's own item writer over the version being edited, with the
 * published podcast settings), or what keeps it out of the feed. Re-read on every revision.
 */
export const FeedView: UserViewComponent<CatalogPluginOptions> = ({document, documentId, options}) => {
  const client = useClient({apiVersion: STUDIO_API_VERSION})
  const projectId = useProjectId()
  const dataset = useDataset()
  const settings = useMemo(() => previewSettings(options, {projectId, dataset}), [options, projectId, dataset])
  const {t} = useTranslation(CATALOG_NAMESPACE)
  const [loaded, setLoaded] = useState<Loaded>({state: 'loading'})
  const revision = document.displayed._rev

  useEffect(() => {
    const controller = new AbortController()
    const signal = controller.signal
    const read = async () => {
      const [episode, podcast] = await Promise.all([
        client.fetch<unknown>(EPISODE_PREVIEW_QUERY, {id: getPublishedId(documentId)}, {perspective: 'drafts', signal}),
        // The feed's channel is the published settings, whatever draft of them is open elsewhere.
        client.fetch<unknown>(PODCAST_SETTINGS_QUERY, {}, {perspective: 'published', signal}),
      ])
      const voices = await client.fetch<unknown[]>(
        VOICES_BY_SLUG_QUERY,
        {slugs: voiceSlugsFor(episode, podcast)},
        {perspective: 'published', signal},
      )
      return buildFeedPreview(episode, podcast, voices, settings)
    }
    read().then(
      (preview) => setLoaded({state: 'ready', preview}),
      (error: unknown) => {
        if (!signal.aborted)
          setLoaded({state: 'failed', message: error instanceof Error ? error.message : String(error)})
      },
    )
    return () => controller.abort()
  }, [client, documentId, revision, settings])

  if (loaded.state === 'loading')
    return (
      <Flex padding={4} justify="center">
        <Spinner muted />
      </Flex>
    )
  if (loaded.state === 'failed')
    return <Notice tone="critical" text={t('feed-view.query-failed', {message: loaded.message})} />
  const {preview} = loaded
  if (preview.status === 'scheduled') return <Notice tone="default" text={preview.notice} />
  if (preview.status === 'not-served') {
    return (
      <Box padding={4} dir="rtl">
        <Stack gap={3}>
          <Notice tone="critical" text={t('feed-view.not-served')} />
          {preview.reasons.map((reason) => (
            <Text key={reason} size={1}>
              • {reason}
            </Text>
          ))}
        </Stack>
      </Box>
    )
  }
  return (
    <Box padding={4}>
      <Stack gap={4}>
        <Text size={1} muted>{`GET ${settings.feedUrl}`}</Text>
        <Card padding={3} radius={2} tone="transparent" border>
          <Code language="xml" size={1}>
            {preview.xml}
          </Code>
        </Card>
      </Stack>
    </Box>
  )
}

function Notice({tone, text}: {tone: 'default' | 'critical'; text: string}) {
  return (
    <Card padding={3} radius={2} tone={tone} border dir="rtl">
      <Text size={1}>{text}</Text>
    </Card>
  )
}
