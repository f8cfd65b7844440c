// The catalog search moved to the snapshot layer, where the HTTP API's /search.json shares it.
export {searchCatalog} from '../snapshot/search.ts'
