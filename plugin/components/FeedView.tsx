import {useCallback} from 'react'
import {getPublishedId, useClient, useTranslation} from 'sanity'
import type {UserViewComponent} from 'sanity/structure'
import {STUDIO_API_VERSION} from '../../schemas/fields.ts'
import {EPISODE_PREVIEW_QUERY, PODCAST_SETTINGS_QUERY, VOICES_BY_SLUG_QUERY} from '../../catalog/queries.ts'
import {buildFeedPreview, voiceSlugsFor} from '../lib/feed-preview.ts'
import {CATALOG_NAMESPACE} from '../lib/i18n.ts'
import {Loading, Notice, Reasons, Served, usePreview, usePreviewSettings} from './PreviewPane.tsx'
import type {CatalogPluginOptions} from '../lib/preview-settings.ts'

/**
 * The "Feed" view of an episode: its `<item>` exactly as /feed.xml would serve it once published
 * (the server's mapper and the feed's own item writer over the version being edited, with the
 * published podcast settings), or what keeps it out of the feed. Re-read on every revision.
 */
export const FeedView: UserViewComponent<CatalogPluginOptions> = ({document, documentId, options}) => {
  const client = useClient({apiVersion: STUDIO_API_VERSION})
  const settings = usePreviewSettings(options)
  const {t} = useTranslation(CATALOG_NAMESPACE)
  const read = useCallback(
    async (signal: AbortSignal) => {
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
    },
    [client, documentId, settings],
  )
  const loaded = usePreview(read, document.displayed._rev)

  if (loaded.state === 'loading') return <Loading />
  if (loaded.state === 'failed')
    return <Notice tone="critical" text={t('feed-view.query-failed', {message: loaded.message})} />
  const {preview} = loaded
  if (preview.status === 'scheduled') return <Notice tone="default" text={preview.notice} />
  if (preview.status === 'not-served') return <Reasons title={t('feed-view.not-served')} reasons={preview.reasons} />
  return <Served url={settings.feedUrl} language="xml" body={preview.xml} />
}
