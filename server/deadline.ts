/**
 * `work`, or a rejection with `Error(late)` once `ms` have passed, whichever comes first. The
 * timer is cleared when `work` settles, and a result after the deadline is dropped. Used where a
 * client stops timing a call once it is sent (node-redis), so a peer that hangs would hold it forever.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, late: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(late)), ms)
  })
  return Promise.race([work, expired]).finally(() => clearTimeout(timer))
}
