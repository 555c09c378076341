/**
 * The package's own name and version, read from its package.json so that what `--version`
 * prints and what MCP peers see in the handshake cannot drift from what was published.
 */
import { createRequire } from 'node:module'

const manifest = createRequire(import.meta.url)('../../package.json') as {
  readonly name: string
  readonly version: string
}

/** Name and version announced to MCP peers and printed by `code-runtime --version`. */
export const PACKAGE_INFO: { readonly name: string; readonly version: string } = Object.freeze({
  name: manifest.name,
  version: manifest.version,
})
