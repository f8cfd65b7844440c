// negotiator 1.x; @types/negotiator still describes 0.6, which lacks the `preferred` option used here.
declare module 'negotiator' {
  export default class Negotiator {
    constructor(request: {headers: Record<string, string | string[] | undefined>})
    encoding(available: readonly string[], options?: {preferred?: readonly string[]}): string | undefined
  }
}
