// Every package as a user would get it: `npm pack` of each workspace (the framework adapters are checked as packed), the base tarballs installed
// with one `npm install` in a temporary project outside the checkout (so nothing resolves from
// the workspace's node_modules), then the installed `code-runtime` bin and the root README's
// library example run there. The other dependencies (the MCP SDK, the example servers, cordis,
// amaro, ajv) come from the registry or npm's cache. The slowest test of the suite: one
// `npm pack` and one `npm install` (about 20 s on an idle machine, with a warm npm cache).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { makeTempDirectory } from './serve-harness.js'

const REPOSITORY = fileURLToPath(new URL('../../../../', import.meta.url))
const PACKAGE_NAMES = [
  '@code-runtime/ai-sdk',
  '@code-runtime/code-mode',
  '@code-runtime/core',
  '@code-runtime/engine',
  '@code-runtime/langchain',
  '@code-runtime/mastra',
  '@code-runtime/mcp',
  '@code-runtime/nats',
  '@code-runtime/openai-agents',
  '@code-runtime/process',
  '@code-runtime/worker-thread',
]
/** The packages installed here; the framework adapters are packed and checked, and their own example tests run them. */
const INSTALLED_NAMES = [
  '@code-runtime/code-mode',
  '@code-runtime/core',
  '@code-runtime/engine',
  '@code-runtime/mcp',
  '@code-runtime/nats',
  '@code-runtime/process',
  '@code-runtime/worker-thread',
]

/** The one-file guest halves the build bundles (scripts/bundle-guest.mjs); a substrate loads nothing else of ours. */
const GUEST_BUNDLES: Readonly<Record<string, string>> = {
  '@code-runtime/worker-thread': 'dist/src/guest/worker-entry.cjs',
  '@code-runtime/process': 'dist/src/guest/child-entry.cjs',
}

/** The MCP server the test installs beside the packages, as a user would. */
const EXAMPLE_SERVER = '@modelcontextprotocol/server-filesystem'

/** The version range `packages/mcp` develops against. */
async function workspaceDevDependencyVersion(name: string): Promise<string> {
  const manifest = JSON.parse(await readFile(join(REPOSITORY, 'packages', 'mcp', 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>
  }
  return manifest.devDependencies[name] ?? assert.fail(`packages/mcp has no devDependency ${name}`)
}

/** One step of npm or node may wait for the registry or a loaded machine; none waits for speed. */
const STEP_LIMIT_MS = 600_000

/**
 * The machine's own settings for reaching the registry (a proxy, or a TLS-intercepting proxy's
 * certificate authority), which a user's shell on this machine has too. Without them npm's
 * lookups of the `@code-runtime/*` names fail TLS and are retried with backoff for minutes.
 */
const NETWORK_VARIABLES = [
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'HTTPS_PROXY',
  'https_proxy',
  'HTTP_PROXY',
  'http_proxy',
  'NO_PROXY',
  'no_proxy',
] as const

/**
 * Only what a user's shell would have: no `npm_config_*` of an enclosing `npm test` (its
 * workspace settings), no NODE_PATH. HOME keeps npm's cache, so a warm cache avoids the network.
 */
function userEnvironment(): NodeJS.ProcessEnv {
  const network = Object.fromEntries(
    NETWORK_VARIABLES.flatMap(name => (process.env[name] === undefined ? [] : [[name, process.env[name]]])),
  )
  return {
    ...network,
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  }
}

interface Outcome {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

function run(file: string, args: readonly string[], cwd: string): Promise<Outcome> {
  return new Promise(resolve => {
    execFile(
      file,
      args,
      { cwd, env: userEnvironment(), timeout: STEP_LIMIT_MS, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr })
      },
    )
  })
}

interface PackedFile {
  readonly path: string
}
interface PackedPackage {
  readonly name: string
  readonly filename: string
  readonly files: readonly PackedFile[]
}

/** The code block under `## Use it as a library` in the root README. */
async function readmeLibrarySnippet(): Promise<string> {
  const readme = await readFile(join(REPOSITORY, 'README.md'), 'utf8')
  const section =
    readme.split('\n## Use it as a library\n')[1] ?? assert.fail('the root README has a "Use it as a library" section')
  const block = /```js\n([\s\S]*?)```/.exec(section)?.[1] ?? assert.fail('that section has a js code block')
  return block
}

/** What the snippet's comment says it prints: the `// ` lines after `console.log(...)`, joined. */
function expectedOutput(snippet: string): string {
  const lines = snippet.split('\n')
  const logLine = lines.findIndex(line => line.startsWith('console.log('))
  assert.ok(logLine >= 0, 'the snippet prints its result')
  const comment: string[] = []
  for (const line of lines.slice(logLine + 1)) {
    if (!line.startsWith('//')) break
    comment.push(line.replace(/^\/\/ ?/, '').trim())
  }
  return comment.join('')
}

/** Times and sizes that change from run to run, written `…` as the README does. */
function maskVaryingNumbers(text: string): string {
  return text.replace(/"(wallMs|busyMs|endHeapBytes|startMs|durationMs)":[\d.e+-]+/g, '"$1":…')
}

describe('the packed packages, installed outside the checkout', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  let project: string
  let packed: PackedPackage[]

  before(
    async () => {
      temp = await makeTempDirectory('code-runtime-packed-')
      assert.ok(relative(REPOSITORY, temp.path).startsWith('..'), 'the project is outside the checkout')
      const tarballs = join(temp.path, 'tarballs')
      project = join(temp.path, 'project')
      await mkdir(tarballs)
      await mkdir(project)
      const pack = await run('npm', ['pack', '--workspaces', '--pack-destination', tarballs, '--json'], REPOSITORY)
      assert.equal(pack.code, 0, pack.stderr)
      packed = JSON.parse(pack.stdout) as PackedPackage[]
      await writeFile(
        join(project, 'package.json'),
        JSON.stringify({ name: 'try-code-runtime', private: true, type: 'module' }),
      )
      // The example MCP server is not a dependency of the packages: a user installs it beside them,
      // at the version the checkout's tests use.
      const exampleServer = `${EXAMPLE_SERVER}@${await workspaceDevDependencyVersion(EXAMPLE_SERVER)}`
      const install = await run(
        'npm',
        [
          'install',
          '--prefer-offline',
          '--no-audit',
          '--no-fund',
          ...packed.filter(entry => INSTALLED_NAMES.includes(entry.name)).map(entry => join(tarballs, entry.filename)),
          exampleServer,
        ],
        project,
      )
      assert.equal(install.code, 0, install.stderr)
    },
    { timeout: 2 * STEP_LIMIT_MS },
  )

  after(() => temp.remove())

  it('packs each package with what its package.json points to, its README, and no tests', async () => {
    assert.deepEqual(packed.map(entry => entry.name).sort(), PACKAGE_NAMES)
    for (const entry of packed) {
      const paths = new Set(entry.files.map(file => file.path))
      assert.ok(paths.has('README.md') && paths.has('package.json'), entry.name)
      assert.deepEqual(
        [...paths].filter(path => path.includes('.test.')),
        [],
        `${entry.name} ships no tests`,
      )
      // An adapter is not installed here (its framework is a peer); npm packs its manifest as written.
      const manifestPath = INSTALLED_NAMES.includes(entry.name)
        ? join(project, 'node_modules', entry.name, 'package.json')
        : join(REPOSITORY, 'packages', entry.name.replace('@code-runtime/', ''), 'package.json')
      const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as {
        exports: Record<string, Record<string, string> | string>
        bin?: Record<string, string>
      }
      const targets = [
        ...Object.values(manifest.exports).flatMap(target =>
          typeof target === 'string' ? [target] : Object.values(target),
        ),
        ...Object.values(manifest.bin ?? {}),
      ]
      for (const target of targets) assert.ok(paths.has(target.replace(/^\.\//, '')), `${entry.name} ships ${target}`)
      const bundle = GUEST_BUNDLES[entry.name]
      if (bundle !== undefined) assert.ok(paths.has(bundle), `${entry.name} ships its guest bundle ${bundle}`)
    }
  })

  it('resolves every @code-runtime dependency from the tarballs, not the registry', async () => {
    const lock = JSON.parse(await readFile(join(project, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { resolved?: string }>
    }
    const codeRuntime = Object.entries(lock.packages).filter(([path]) => path.includes('node_modules/@code-runtime/'))
    assert.deepEqual(
      codeRuntime.map(([path]) => path).sort(),
      INSTALLED_NAMES.map(name => `node_modules/${name}`),
    )
    for (const [path, entry] of codeRuntime) assert.match(entry.resolved ?? '', /^file:/, path)
  })

  it('runs a program with the installed code-runtime bin, on the default backend', async () => {
    await writeFile(
      join(project, 'weather.ts'),
      'const { cities } = await tools.demo_list_cities()\nconsole.log(`${cities.length} cities`)\nreturn cities.at(-1) as string',
    )
    assert.deepEqual(await run(join(project, 'node_modules', '.bin', 'code-runtime'), ['run', 'weather.ts'], project), {
      code: 0,
      stdout: '5 cities\nTokyo\n',
      stderr: '',
    })
  })

  it('declares the example servers as development dependencies and @code-runtime/process as an optional peer', async () => {
    const manifest = JSON.parse(
      await readFile(join(project, 'node_modules', '@code-runtime', 'mcp', 'package.json'), 'utf8'),
    ) as {
      dependencies: Record<string, string>
      peerDependencies?: Record<string, string>
      peerDependenciesMeta?: Record<string, { optional?: boolean }>
    }
    assert.deepEqual(
      Object.keys(manifest.dependencies).filter(name => name.startsWith('@modelcontextprotocol/server-')),
      [],
    )
    assert.equal(manifest.dependencies['@code-runtime/process'], undefined)
    assert.ok(manifest.peerDependencies?.['@code-runtime/process'] !== undefined)
    assert.equal(manifest.peerDependenciesMeta?.['@code-runtime/process']?.optional, true)
  })

  it('runs a program against an MCP server installed beside the packages', async () => {
    await mkdir(join(project, 'notes'))
    await writeFile(join(project, 'notes', 'todo.md'), '- pack\n- install\n')
    await writeFile(
      join(project, 'servers.json'),
      JSON.stringify({ mcpServers: { notes: { command: 'mcp-server-filesystem', args: ['notes'] } } }),
    )
    await writeFile(
      join(project, 'todo.ts'),
      'const { content } = await tools.notes_read_text_file({ path: "todo.md" })\nreturn content.split("\\n").filter(Boolean).length',
    )
    assert.deepEqual(
      await run(
        join(project, 'node_modules', '.bin', 'code-runtime'),
        ['run', 'todo.ts', '--config', 'servers.json'],
        project,
      ),
      { code: 0, stdout: '2\n', stderr: '' },
    )
  })

  it("runs the root README's library example and prints what its comment says", async () => {
    const snippet = await readmeLibrarySnippet()
    await writeFile(join(project, 'library.mjs'), snippet)
    const outcome = await run(process.execPath, ['library.mjs'], project)
    assert.equal(outcome.code, 0, outcome.stderr)
    assert.equal(maskVaryingNumbers(outcome.stdout.trim()), expectedOutput(snippet))
    const workerThreadReadme = await readFile(join(REPOSITORY, 'packages', 'worker-thread', 'README.md'), 'utf8')
    assert.ok(workerThreadReadme.includes(snippet), 'the worker-thread README shows the same example')
  })
})
