// `npm start`'s own command line, read from package.json, so benchmarks run the server as it runs.
import {readFile} from 'node:fs/promises'
import {z} from 'zod'

const startScript = z
  .object({scripts: z.object({start: z.string()})})
  .parse(JSON.parse(await readFile('package.json', 'utf8'))).scripts.start

/** The arguments after `node`: its flags, then the script. */
export const START_ARGUMENTS = startScript.split(' ').slice(1)

/** Only its Node flags (the young generation's size), for a benchmark that starts the script itself. */
export const START_FLAGS = START_ARGUMENTS.filter((word) => word.startsWith('--'))
