/** The version a server serves now: the `Catalog-Version` of its service index (a change-feed token). */
export async function catalogVersionAt(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/api/v1/index.json`)
  await response.arrayBuffer()
  return response.headers.get('catalog-version') ?? ''
}
