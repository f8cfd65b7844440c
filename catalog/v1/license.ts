import {z} from 'zod'
import {FETCHED_URL_PATTERN, NAMESPACE_TEXT_MAX_CHARACTERS} from './contract.ts'

// podcast:license (podcast-namespace docs/tags/license.md), for the show (the podcast settings)
// and for an episode that overrides it: the rule the Studio and the server share. The node value
// is a lower-cased license identifier from the namespace's list (docs/examples/license/licenses.json)
// or SPDX's; any other is a custom license, which the namespace allows only with the URL of its text.
// A license that breaks the rule is left out (reported), never the channel or the episode.

/** The identifiers taken without a URL: the namespace's list and the Creative Commons 4.0 family in SPDX. */
export const KNOWN_LICENSES = [
  'arr',
  'cc0-1.0',
  'cc-by-4.0',
  'cc-by-sa-4.0',
  'cc-by-nc-4.0',
  'cc-by-nc-sa-4.0',
  'cc-by-nd-4.0',
  'cc-by-nc-nd-4.0',
  'pod-v4v-1.0',
] as const

/** The namespace: a value past 128 characters may be cut by aggregators. */
export const LICENSE_MAX_CHARACTERS = NAMESPACE_TEXT_MAX_CHARACTERS
/** An SPDX-style identifier, lower-cased as the namespace asks: letters, digits, `.`, `-` and `+`. */
export const LICENSE_IDENTIFIER_PATTERN = /^[a-z0-9][a-z0-9.+-]*$/

const licenseRowSchema = z.object({identifier: z.string().nullish(), url: z.string().nullish()})

export type LicenseFault =
  | {kind: 'not-a-license'}
  | {kind: 'identifier-missing'}
  | {kind: 'identifier-form'; identifier: string}
  | {kind: 'too-long'; length: number}
  | {kind: 'unknown-without-url'; identifier: string}
  | {kind: 'url'; url: string}

const isKnown = (identifier: string) => (KNOWN_LICENSES as readonly string[]).includes(identifier)

/** Every rule a license breaks; none for a license not set (no identifier and no URL). */
export function licenseFaults(raw: unknown): LicenseFault[] {
  if (raw === null || raw === undefined) return []
  const parsed = licenseRowSchema.safeParse(raw)
  if (!parsed.success) return [{kind: 'not-a-license'}]
  const identifier = parsed.data.identifier?.trim() ?? ''
  const url = parsed.data.url?.trim() ?? ''
  if (!identifier && !url) return []
  const faults: LicenseFault[] = []
  if (!identifier) faults.push({kind: 'identifier-missing'})
  else if (identifier.length > LICENSE_MAX_CHARACTERS) faults.push({kind: 'too-long', length: identifier.length})
  else if (!LICENSE_IDENTIFIER_PATTERN.test(identifier)) faults.push({kind: 'identifier-form', identifier})
  else if (!isKnown(identifier) && !url) faults.push({kind: 'unknown-without-url', identifier})
  if (url && !FETCHED_URL_PATTERN.test(url)) faults.push({kind: 'url', url})
  return faults
}

function describeLicenseFault(fault: LicenseFault): string {
  switch (fault.kind) {
    case 'not-a-license':
      return 'not a license object'
    case 'identifier-missing':
      return 'a URL without a license identifier'
    case 'identifier-form':
      return `"${fault.identifier}" is not a lower-case license identifier (letters, digits, . - +)`
    case 'too-long':
      return `an identifier of ${fault.length} characters, more than ${LICENSE_MAX_CHARACTERS}`
    case 'unknown-without-url':
      return `"${fault.identifier}" is not a known license (${KNOWN_LICENSES.join(', ')}), and a custom license needs the URL of its text`
    case 'url':
      return `"${fault.url}" is not an https URL in printable ASCII`
  }
}

export interface License {
  identifier: string
  url: string | null
}

/** The license as served, or null when none is set or it breaks the rule (then with a warning). */
export function mapLicense(raw: unknown, field: string): {license: License | null; warnings: string[]} {
  const faults = licenseFaults(raw)
  if (faults.length > 0)
    return {license: null, warnings: [`${field}: left out: ${faults.map(describeLicenseFault).join('; ')}`]}
  const row = licenseRowSchema.safeParse(raw)
  const identifier = row.success ? row.data.identifier?.trim() : undefined
  if (!row.success || !identifier) return {license: null, warnings: []}
  return {license: {identifier, url: row.data.url?.trim() || null}, warnings: []}
}
