/** A `_key` for an item the Studio adds to an array: twelve hex digits, unique within any list. */
export const newArrayKey = () => crypto.randomUUID().replaceAll('-', '').slice(0, 12)
