// A recurrence rule as RFC 5545 (3.3.10) writes it, checked by its grammar: `podcast:updateFrequency`
// carries one in its `rrule` attribute, and an app that cannot parse it ignores the schedule.
// The Studio and the server check with this one function; nothing here expands a rule.

const FREQUENCIES = 'SECONDLY|MINUTELY|HOURLY|DAILY|WEEKLY|MONTHLY|YEARLY'
const WEEKDAY = '(?:SU|MO|TU|WE|TH|FR|SA)'
const list = (item: string) => new RegExp(`^${item}(?:,${item})*$`)
const signed = (digits: string) => `[+-]?(?:${digits})`

/** Each rule part's value, by the grammar's productions (`recur-rule-part`). */
const PART_VALUES: Readonly<Record<string, RegExp>> = {
  FREQ: new RegExp(`^(?:${FREQUENCIES})$`),
  // RFC 5545's date or date-time, or the ISO 8601 form the namespace's own examples use.
  UNTIL: /^(?:\d{8}(?:T\d{6}Z?)?|\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z)?)$/,
  COUNT: /^[1-9]\d*$/,
  INTERVAL: /^[1-9]\d*$/,
  BYSECOND: list('(?:[0-5]?\\d|60)'),
  BYMINUTE: list('[0-5]?\\d'),
  BYHOUR: list('(?:[01]?\\d|2[0-3])'),
  BYDAY: list(`(?:[+-]?(?:[1-9]|[1-4]\\d|5[0-3]))?${WEEKDAY}`),
  BYMONTHDAY: list(signed('[1-9]|[12]\\d|3[01]')),
  BYYEARDAY: list(signed('[1-9]\\d?|[12]\\d\\d|3[0-5]\\d|36[0-6]')),
  BYWEEKNO: list(signed('[1-9]|[1-4]\\d|5[0-3]')),
  BYMONTH: list('(?:[1-9]|1[0-2])'),
  BYSETPOS: list(signed('[1-9]\\d{0,2}')),
  WKST: new RegExp(`^${WEEKDAY}$`),
}

/** Why `rule` is not an RFC 5545 recurrence rule, or undefined when it is one. */
export function rruleProblem(rule: string): string | undefined {
  const seen = new Set<string>()
  for (const part of rule.split(';')) {
    const [name = '', value, ...rest] = part.split('=')
    const pattern = PART_VALUES[name]
    if (!pattern || value === undefined || rest.length > 0) return `"${part}" is not a rule part of RFC 5545`
    if (seen.has(name)) return `${name} is given twice`
    if (!pattern.test(value)) return `${name}=${value} is not a valid value`
    seen.add(name)
  }
  if (!seen.has('FREQ')) return 'FREQ is missing'
  if (seen.has('COUNT') && seen.has('UNTIL')) return 'COUNT and UNTIL cannot both be given'
  return undefined
}
