import {watch} from 'node:fs'
import {basename, dirname} from 'node:path'

/**
 * Calls `onChange` shortly after `file` changes. Watches the folder, not the file, because
 * editors and `sanity dataset export` replace files rather than write into them.
 */
export function watchFile(file: string, onChange: () => void, debounceMs = 25): () => void {
  let timer: NodeJS.Timeout | undefined
  const watcher = watch(dirname(file), (_event, name) => {
    if (name !== basename(file)) return
    clearTimeout(timer)
    timer = setTimeout(onChange, debounceMs)
  })
  return () => {
    clearTimeout(timer)
    watcher.close()
  }
}
