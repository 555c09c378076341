// `code-runtime serve` type-checks a program before it runs: a real MCP client, the built bin, the
// filesystem and memory servers from npm. The program's first two calls have side effects (an
// entity in the memory graph, a file on disk); its third has a misspelled field. Refused, it
// leaves neither behind; with `--type-check off` it runs, and fails at the third call after both.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { installedBin, makeTempDirectory, startServe, textOf, type ServeSession } from './serve-harness.js'

/** Line 3 reads `pth` where the tool takes `path`. */
const MISSPELLED = [
  "await tools.memory_create_entities({ entities: [{ name: 'Ada Lovelace', entityType: 'person', observations: ['wrote the note'] }] })",
  "await tools.files_write_file({ path: 'note.txt', content: 'The Analytical Engine weaves algebraic patterns.' })",
  "const { content } = await tools.files_read_text_file({ pth: 'note.txt' })",
  'return content',
].join('\n')
const FIXED = MISSPELLED.replace('pth:', 'path:')
/** Where TypeScript puts the error: at the misspelled field, 1-based. */
const MISSPELLED_COLUMN = (MISSPELLED.split('\n')[2] as string).indexOf('pth') + 1

/** Starts serve over a fresh directory of files and a fresh memory graph. */
async function serveFilesAndMemory(
  prefix: string,
  extraArgs: readonly string[] = [],
): Promise<{ serve: ServeSession; files: string; remove(): Promise<void> }> {
  const temp = await makeTempDirectory(prefix)
  const files = join(temp.path, 'files')
  await mkdir(files)
  const serve = await startServe(
    temp.path,
    {
      mcpServers: {
        // The programs write files: the config says writes need no approval (this client cannot give one).
        files: { command: installedBin('mcp-server-filesystem'), args: ['files'], autoApprove: ['write_file'] },
        memory: {
          command: installedBin('mcp-server-memory'),
          env: { MEMORY_FILE_PATH: join(temp.path, 'memory.jsonl') },
        },
      },
    },
    extraArgs,
  )
  return {
    serve,
    files,
    remove: async () => {
      await serve.close().catch(() => undefined)
      await temp.remove()
    },
  }
}

/** The names of the entities in the memory graph, read through the server. */
async function entityNames(serve: ServeSession): Promise<unknown> {
  return serve.runJson(
    'const graph = await tools.memory_read_graph()\nreturn graph.entities.map((entity) => entity.name)',
  )
}

describe('code-runtime serve checks programs before they run (--type-check calls, the default)', () => {
  let setup: Awaited<ReturnType<typeof serveFilesAndMemory>>
  before(async () => {
    setup = await serveFilesAndMemory('code-runtime-type-check-')
  })
  after(() => setup?.remove())

  it('refuses a program whose third call has a misspelled field, with line and column, and calls no tool', async () => {
    const result = await setup.serve.runCode(MISSPELLED)
    assert.equal(result.isError, true)
    const text = textOf(result)
    assert.match(text, /^The program was refused before it ran \(no tool was called\): 1 type error/)
    assert.ok(text.includes(`line 3, column ${MISSPELLED_COLUMN}: `), text)
    assert.match(text, /'pth'/)
    assert.match(text, /'path'/, "TypeScript's suggestion is passed on")
    assert.equal(existsSync(join(setup.files, 'note.txt')), false, 'the second call did not write its file')
    assert.deepEqual(await entityNames(setup.serve), [], 'the first call did not add its entity')
  })

  it('runs the same program once the field is spelled right', async () => {
    const result = await setup.serve.runCode(FIXED)
    assert.equal(result.isError, false, textOf(result))
    assert.equal(textOf(result), 'The Analytical Engine weaves algebraic patterns.')
    assert.deepEqual(await entityNames(setup.serve), ['Ada Lovelace'])
  })

  it('says in its log which mode it checks with', () => {
    assert.match(
      setup.serve.stderr(),
      /^code-runtime: serving \d+ tools of 2 server\(s\) .*; type check calls; variables persist between calls\)\.$/m,
    )
  })
})

describe('code-runtime serve --type-check off', () => {
  let setup: Awaited<ReturnType<typeof serveFilesAndMemory>>
  before(async () => {
    setup = await serveFilesAndMemory('code-runtime-type-check-off-', ['--type-check', 'off'])
  })
  after(() => setup?.remove())

  it('runs the misspelled program, which fails at its third call after the first two took effect', async () => {
    const result = await setup.serve.runCode(MISSPELLED)
    assert.equal(result.isError, true)
    assert.match(textOf(result), /^code run failed \(exception\): ToolCallError: tools\.files_read_text_file: args\./)
    assert.equal(
      await readFile(join(setup.files, 'note.txt'), 'utf8'),
      'The Analytical Engine weaves algebraic patterns.',
    )
    assert.deepEqual(await entityNames(setup.serve), ['Ada Lovelace'])
  })
})
