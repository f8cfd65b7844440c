import type {ServiceIndex} from '../../../catalog/v1/contract.ts'
import type {Links} from '../../../catalog/v1/links.ts'

export interface ServiceIndexSettings {
  publicBaseUrl: string
  apiName: string
  feedUrl: string
  contactEmail?: string | undefined
}

/**
 * The `endpoints` map (its keys are "not shown" in the spec) uses the spec's operationIds as keys
 * and absolute URL templates with `{slug}` (or search's `{q}`) as values.
 */
export function buildServiceIndex(links: Links, settings: ServiceIndexSettings): ServiceIndex {
  return {
    name: settings.apiName,
    description:
      'Read-only catalog of podcast episodes, internal meetup talks and speaker profiles. Content text is Hebrew; tags and roles are English.',
    version: 'v1',
    language: 'he',
    authentication: 'none',
    auth_documentation: `${settings.publicBaseUrl}/auth.md`,
    documentation: `${settings.publicBaseUrl}/docs`,
    openapi: `${settings.publicBaseUrl}/api/openapi.json`,
    ...(settings.contactEmail ? {contact: settings.contactEmail} : {}),
    feed_url: settings.feedUrl,
    endpoints: {
      getServiceIndex: links.apiPath('index.json'),
      listEpisodes: links.apiPath('episodes.json'),
      getEpisode: links.apiPath('episodes/{slug}.json'),
      listMeetups: links.apiPath('meetups.json'),
      getMeetup: links.apiPath('meetups/{slug}.json'),
      listVoices: links.apiPath('voices.json'),
      getVoice: links.apiPath('voices/{slug}.json'),
      getEverything: links.apiPath('all.json'),
      searchCatalog: links.apiPath('search.json?q={q}'),
      getChanges: links.apiPath('changes.json?since={token}'),
      streamEvents: links.apiPath('events'),
    },
  }
}
