// `npm start`'s own command line, read from package.json, so benchmarks run the server as it runs.
import {readFile} from 'node:fs/promises'
import {z} from 'zod'

const startScript = z
  .object({scripts: z.object({start: z.string()})})
  .parse(JSON.parse(await readFile('package.json', 'utf8'))).scripts.start

const words = startScript.split(' ')
const ASSIGNMENT = /^([A-Z_][A-Z0-9_]*)=(.*)$/
// `NAME=value` words before the command, as sh reads them.
const assignments = words.slice(
  0,
  words.findIndex((word) => !ASSIGNMENT.test(word)),
)

/** The variables the script sets before `node` (glibc's malloc settings), as an environment. */
export const START_ENV: Readonly<Record<string, string>> = Object.fromEntries(
  assignments.map((word) => {
    const [, name = '', value = ''] = ASSIGNMENT.exec(word) ?? []
    return [name, value]
  }),
)

/** The arguments after `node`: its flags, then the script. */
export const START_ARGUMENTS = words.slice(assignments.length + 1)

/** Only its Node flags (the young generation's size), for a benchmark that starts the script itself. */
export const START_FLAGS = START_ARGUMENTS.filter((word) => word.startsWith('--'))
