// Lists the tools of the four offline reference MCP servers through the official SDK client over
// stdio and writes them to test/fixtures/corpus/<server>.json, the real schemas the SDK emitter's
// golden and size tests run on. Run from anywhere: `node packages/code-mode/scripts/extract-corpus.mjs`.
// Output is deterministic (tools sorted by name, fixed key order, two-space JSON) so a re-run
// against the same server versions changes nothing.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

const require = createRequire(import.meta.url)
const corpusDirectory = fileURLToPath(new URL('../test/fixtures/corpus/', import.meta.url))

/** The server's bin script, found through its package.json so no shell or PATH is involved. */
async function resolveServerBin(packageName) {
  const manifestPath = require.resolve(`${packageName}/package.json`)
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8'))
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin)[0]
  return { path: join(dirname(manifestPath), bin), version: manifest.version }
}

/** How each server is started; `prepare` makes whatever scratch state it needs. */
const SERVERS = [
  {
    name: 'filesystem',
    packageName: '@modelcontextprotocol/server-filesystem',
    // The server refuses to start without an allowed directory; any empty one will do.
    prepare: scratch => ({ args: [scratch], env: {} }),
  },
  {
    name: 'memory',
    packageName: '@modelcontextprotocol/server-memory',
    // Without MEMORY_FILE_PATH the server writes beside its own source inside node_modules.
    prepare: scratch => ({ args: [], env: { MEMORY_FILE_PATH: join(scratch, 'memory.jsonl') } }),
  },
  {
    name: 'everything',
    packageName: '@modelcontextprotocol/server-everything',
    prepare: () => ({ args: ['stdio'], env: {} }),
  },
  {
    name: 'sequential-thinking',
    packageName: '@modelcontextprotocol/server-sequential-thinking',
    prepare: () => ({ args: [], env: {} }),
  },
]

/** Keeps only the descriptive fields, in a fixed order, dropping absent ones. */
function describeTool(tool) {
  const described = { name: tool.name }
  if (tool.description !== undefined) described.description = tool.description
  described.inputSchema = tool.inputSchema
  if (tool.outputSchema !== undefined) described.outputSchema = tool.outputSchema
  if (tool.annotations !== undefined) described.annotations = tool.annotations
  return described
}

async function listServerTools(server) {
  const scratch = await mkdtemp(join(tmpdir(), `code-mode-corpus-${server.name}-`))
  const bin = await resolveServerBin(server.packageName)
  const { args, env } = server.prepare(scratch)
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin.path, ...args],
    env,
    cwd: scratch,
    stderr: 'ignore',
  })
  const client = new Client({ name: 'code-mode-corpus-extractor', version: '0.0.0' })
  try {
    await client.connect(transport)
    const tools = []
    let cursor
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor })
      tools.push(...page.tools)
      cursor = page.nextCursor
    } while (cursor !== undefined)
    const described = tools.map(describeTool).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    // A scratch path leaking into a description would make the fixture differ on every run.
    const text = JSON.stringify(described)
    if (text.includes(scratch)) throw new Error(`${server.name}: a tool definition mentions the scratch directory`)
    return { server: server.name, package: server.packageName, version: bin.version, tools: described }
  } finally {
    await client.close()
    await rm(scratch, { recursive: true, force: true })
  }
}

for (const server of SERVERS) {
  const corpus = await listServerTools(server)
  const target = join(corpusDirectory, `${server.name}.json`)
  await writeFile(target, `${JSON.stringify(corpus, null, 2)}\n`)
  console.log(`${server.name}: ${corpus.tools.length} tools → ${target}`)
}
