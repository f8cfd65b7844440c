/** The time as the server reads it; injected everywhere so tests can set it. */
export type Clock = () => Date
