// What the "API" and "Feed" views share: their settings, their read of the edited version and how they show it.
import {Box, Card, Flex, Spinner, Stack, Text} from '@sanity/ui'
import {Code} from '@sanity/ui/code'
import {useEffect, useMemo, useState, type ReactNode} from 'react'
import {useDataset, useProjectId} from 'sanity'
import type {PreviewSettings} from '../lib/api-preview.ts'
import {previewSettings, type CatalogPluginOptions} from '../lib/preview-settings.ts'

type Loaded<T> = {state: 'loading'} | {state: 'failed'; message: string} | {state: 'ready'; preview: T}

/** The plugin's options with the Studio's project and dataset, as the server makes image URLs. */
export function usePreviewSettings(options: CatalogPluginOptions): PreviewSettings {
  const projectId = useProjectId()
  const dataset = useDataset()
  return useMemo(() => previewSettings(options, {projectId, dataset}), [options, projectId, dataset])
}

/**
 * Runs `read` again whenever it or the revision changes, and drops the answer of a read that a newer
 * one replaced. Without a `read` (nothing to preview) it stays loading.
 */
export function usePreview<T>(
  read: ((signal: AbortSignal) => Promise<T>) | undefined,
  revision: string | undefined,
): Loaded<T> {
  const [loaded, setLoaded] = useState<Loaded<T>>({state: 'loading'})
  useEffect(() => {
    if (!read) return
    const controller = new AbortController()
    read(controller.signal).then(
      (preview) => setLoaded({state: 'ready', preview}),
      (error: unknown) => {
        if (!controller.signal.aborted)
          setLoaded({state: 'failed', message: error instanceof Error ? error.message : String(error)})
      },
    )
    return () => controller.abort()
  }, [read, revision])
  return loaded
}

export function Loading() {
  return (
    <Flex padding={4} justify="center">
      <Spinner muted />
    </Flex>
  )
}

export function Notice({tone, text}: {tone: 'default' | 'caution' | 'critical'; text: string}) {
  return (
    <Card padding={3} radius={2} tone={tone} border dir="rtl">
      <Text size={1}>{text}</Text>
    </Card>
  )
}

/** Why the document is not served: a heading and one line a reason. */
export function Reasons({title, reasons}: {title: string; reasons: readonly string[]}) {
  return (
    <Box padding={4} dir="rtl">
      <Stack gap={3}>
        <Notice tone="critical" text={title} />
        {reasons.map((reason) => (
          <Text key={reason} size={1}>
            • {reason}
          </Text>
        ))}
      </Stack>
    </Box>
  )
}

/** What a GET of `url` would serve, with any notes (`children`) above it. */
export function Served({
  url,
  language,
  body,
  children,
}: {
  url: string
  language: 'json' | 'xml'
  body: string
  children?: ReactNode
}) {
  return (
    <Box padding={4}>
      <Stack gap={4}>
        <Text size={1} muted>{`GET ${url}`}</Text>
        {children}
        <Card padding={3} radius={2} tone="transparent" border>
          <Code language={language} size={1}>
            {body}
          </Code>
        </Card>
      </Stack>
    </Box>
  )
}
