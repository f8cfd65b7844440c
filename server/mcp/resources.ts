import {COLLECTION_NAMES, type CollectionName} from '../../catalog/v1/links.ts'
import type {ResourceDefinition} from './resource-list.ts'

/** Resources are the API's own documents, addressed by their API URLs, with the served bytes. */
export function catalogResources(publicBaseUrl: string): ResourceDefinition[] {
  const api = (path: string) => `${publicBaseUrl}/api/v1/${path}`
  return [
    {
      name: 'service-index',
      title: 'Service index',
      description: 'What the API is and where its endpoints are.',
      uri: api('index.json'),
      template: false,
    },
    {
      name: 'everything',
      title: 'The whole catalog',
      description: 'Episodes, meetups and voices in one document.',
      uri: api('all.json'),
      template: false,
    },
    ...COLLECTION_NAMES.map((name): ResourceDefinition => ({
      name,
      title: `All ${name}`,
      description: `The ${name} list (first page).`,
      uri: api(`${name}.json`),
      template: false,
    })),
    ...COLLECTION_NAMES.map((name): ResourceDefinition => ({
      name: `${name}-item`,
      title: `One of ${name}`,
      description: `One item of ${name} by slug; the slug completes.`,
      uri: api(`${name}/{slug}.json`),
      template: name,
    })),
    {
      name: 'api-document',
      title: 'Any API document',
      description:
        'Any document under /api/v1/ by its path, whatever host you reach this server by (127.0.0.1, localhost or its public name).',
      uri: '{+origin}/api/v1/{+document}',
      template: 'any',
    },
  ]
}

/** The URI of one item's resource (the item's API URL), as `resources/list` lists it. */
export function itemResourceUri(publicBaseUrl: string, collection: CollectionName, slug: string): string {
  return `${publicBaseUrl}/api/v1/${collection}/${slug}.json`
}
