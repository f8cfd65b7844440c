import {copyFile, mkdtemp, readFile, rename, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {SAMPLE_DATASET} from '../../support/server.ts'

/** A new temporary folder holding a copy of the sample dataset, for a server that watches it and saves beside it. */
export async function copySampleDataset(prefix: string): Promise<{directory: string; datasetFile: string}> {
  const directory = await mkdtemp(join(tmpdir(), prefix))
  const datasetFile = join(directory, 'catalog.ndjson')
  await copyFile(SAMPLE_DATASET, datasetFile)
  return {directory, datasetFile}
}

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
