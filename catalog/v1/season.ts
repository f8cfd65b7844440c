import {NAMESPACE_TEXT_MAX_CHARACTERS} from './contract.ts'

// The season's name, podcast:season's `name` attribute (podcast-namespace docs/tags/season.md):
// the rule the Studio and the server share. A name goes with a season number (the tag's value), so
// a name without one, or past the namespace's 128 characters, is left out (reported), never the episode.

export const SEASON_NAME_MAX_CHARACTERS = NAMESPACE_TEXT_MAX_CHARACTERS

export type SeasonNameFault = {kind: 'without-season'} | {kind: 'too-long'; length: number}

/** What is wrong with a season name, if anything; a blank name is no name. */
export function seasonNameFault(name: string | null | undefined, season: unknown): SeasonNameFault | undefined {
  const trimmed = name?.trim() ?? ''
  if (!trimmed) return undefined
  if (trimmed.length > SEASON_NAME_MAX_CHARACTERS) return {kind: 'too-long', length: trimmed.length}
  return typeof season === 'number' && Number.isSafeInteger(season) && season > 0 ? undefined : {kind: 'without-season'}
}

/** The name as served: null when there is none or it breaks the rule (then with a warning). */
export function mapSeasonName(
  name: string | null,
  season: number | null,
): {seasonName: string | null; warnings: string[]} {
  const fault = seasonNameFault(name, season)
  if (!fault) return {seasonName: name?.trim() || null, warnings: []}
  const why =
    fault.kind === 'too-long'
      ? `${fault.length} characters, more than ${SEASON_NAME_MAX_CHARACTERS}`
      : 'the episode has no season number for it to name'
  return {seasonName: null, warnings: [`season_name: left out: ${why}`]}
}
