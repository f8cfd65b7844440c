/** Resolves once `url` answers 2xx; polls every 200 ms and gives up after `timeoutMs`. */
export async function waitFor(url: string, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      if ((await fetch(url)).ok) return
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}
