import {createHash} from 'node:crypto'
import {readFile, writeFile} from 'node:fs/promises'
import {z} from 'zod'

/** Rewrites a saved snapshot's key as other code would have written it; the header's checksum still holds. */
export async function asIfSavedByOtherCode(path: string): Promise<void> {
  const bytes = await readFile(path)
  const end = bytes.indexOf(0x0a)
  const line = bytes.subarray(0, end).toString('utf8')
  const header = z.looseObject({key: z.string()}).parse(JSON.parse(line.slice(line.indexOf(' ') + 1)))
  const rewritten = JSON.stringify({...header, key: 'a digest of other code'})
  const digest = createHash('sha256').update(rewritten).digest('base64url')
  await writeFile(path, Buffer.concat([Buffer.from(`${digest} ${rewritten}`), bytes.subarray(end)]))
}
