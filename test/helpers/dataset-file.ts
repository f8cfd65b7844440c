import {readFile, rename, writeFile} from 'node:fs/promises'

/**
 * Retitles an episode in an NDJSON dataset file as an editor's export would: a new file renamed
 * over the old one, so a server watching the file rebuilds what changed.
 */
export async function retitleEpisode(datasetFile: string, slug: string, title: string): Promise<void> {
  const lines = (await readFile(datasetFile, 'utf8'))
    .split('\n')
    .map((line) =>
      line.includes(`"current":"${slug}"`) && line.includes('"_type":"episode"')
        ? JSON.stringify({...JSON.parse(line), title})
        : line,
    )
  await writeFile(`${datasetFile}.new`, lines.join('\n'))
  await rename(`${datasetFile}.new`, datasetFile)
}
