/**
 * Why a request is refused when a parameter it reads is given more than once (each is read once,
 * and a first copy read in silence would hide a client's mistake); undefined when none is.
 * `required` names the parameters that must be sent exactly once.
 */
export function repeatedParameter(
  params: URLSearchParams,
  names: readonly string[],
  required: readonly string[] = [],
): string | undefined {
  const repeated = names.find((name) => params.getAll(name).length > 1)
  if (repeated === undefined) return undefined
  return `${repeated} is given more than once; send it ${required.includes(repeated) ? 'once' : 'at most once'}`
}
