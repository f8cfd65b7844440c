/**
 * Retries `check` until it passes or `timeoutMs` runs out: for effects that follow a response (a
 * rebuild, a file watch). The default is a liveness bound that a loaded machine stays well inside.
 */
export async function eventually(check: () => Promise<void>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      await check()
      return
    } catch (error) {
      if (Date.now() > deadline) throw error
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
}
