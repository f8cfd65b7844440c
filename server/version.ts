import packageJson from '../package.json' with {type: 'json'}

/** This server's version, as MCP server info and discovery documents state it. */
export const SERVER_VERSION: string = packageJson.version
