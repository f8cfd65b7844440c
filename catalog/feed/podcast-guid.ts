import {v5 as uuidV5} from 'uuid'

/** The Podcasting 2.0 namespace for podcast:guid (the UUIDv5 of "https://podcastindex.org/namespace/1.0"). */
const PODCAST_GUID_NAMESPACE = 'ead4c236-bf58-58c6-a2c6-a6b28d128cb6'

/**
 * podcast:guid as the Podcasting 2.0 spec derives it: the UUIDv5 of the feed URL without its
 * scheme and without trailing slashes. The Studio stores it once; this is its first value.
 */
export function podcastGuidOf(feedUrl: string): string {
  return uuidV5(feedUrl.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/\/+$/, ''), PODCAST_GUID_NAMESPACE)
}
