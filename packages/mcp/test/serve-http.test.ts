/**
 * `code-runtime serve --http` for a team with a keys file, driven over real HTTP by SDK 2's client
 * in both protocol revisions and by SDK 1.x's client, over two real upstream servers from npm:
 * principals and their sessions kept apart, approvals by elicitation for 2025-era sessions, the
 * audit trail, and the boundaries a hostile caller meets first (no key, a foreign Host or Origin,
 * an oversized body). The server is stopped with SIGTERM and must exit with 143.
 */
import assert from 'node:assert/strict'
import { chmod, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import {
  connectV1,
  connectV2,
  firstText,
  INITIALIZE_BODY,
  MCP_POST_HEADERS,
  rawRequest,
  runServeToEnd,
  sha256Hex,
  startHttpServe,
  writeKeysFile,
  type HttpServe,
  ALICE_KEY,
  BOB_KEY,
} from './serve-http-harness.js'
import { installedBin, makeTempDirectory } from './serve-harness.js'

function sessionOf(text: string): string {
  const handle = /\n\nsession: (s_[A-Za-z0-9_-]+)$/.exec(text)?.[1]
  assert.ok(handle !== undefined, `the result names its session: ${text}`)
  return handle
}

function memoryServer(path: string): { command: string; env: Record<string, string> } {
  return { command: installedBin('mcp-server-memory'), env: { MEMORY_FILE_PATH: path } }
}

describe('serve --http with a keys file', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  let serve: HttpServe
  let config: unknown

  before(async () => {
    temp = await makeTempDirectory('code-runtime-http-')
    const keysPath = await writeKeysFile(temp.path, { alice: ALICE_KEY, bob: BOB_KEY })
    config = {
      mcpServers: {
        memory: memoryServer(join(temp.path, 'memory.jsonl')),
        notes: memoryServer(join(temp.path, 'notes.jsonl')),
      },
    }
    serve = await startHttpServe(temp.path, config, [
      '--http',
      '0',
      '--auth-keys',
      keysPath,
      '--backend',
      'worker-thread',
      '--timeout-ms',
      '20000',
    ])
  })
  after(async () => {
    await serve?.stop('SIGKILL')
    await temp?.remove()
  })

  it('listens on loopback and says who may call', () => {
    assert.equal(serve.url.hostname, '127.0.0.1')
    assert.equal(serve.url.pathname, '/mcp')
    assert.match(serve.stderr(), /callers authenticate with a key of .*team\.keys/)
  })

  it('serves a 2026-07-28 client: run_code over both servers, variables kept in the session its result names', async () => {
    const client = await connectV2(serve.url, ALICE_KEY, 'modern')
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28')
      const { tools } = await client.listTools()
      assert.deepEqual(
        tools.map(tool => tool.name),
        ['run_code'],
      )
      assert.deepEqual(Object.keys(tools[0]?.inputSchema.properties ?? {}), ['code', 'description', 'reset', 'session'])
      assert.match(tools[0]?.description ?? '', /pass it back as `session`/)
      const first = firstText(
        await client.callTool({
          name: 'run_code',
          arguments: {
            code: [
              "await tools.memory_create_entities({ entities: [{ name: 'alpha', entityType: 'x', observations: [] }] })",
              "await tools.notes_create_entities({ entities: [{ name: 'beta', entityType: 'x', observations: [] }] })",
              'var seen = [(await tools.memory_read_graph()).entities[0].name, (await tools.notes_read_graph()).entities[0].name]',
              'return seen',
            ].join('\n'),
            description: 'write to both servers',
          },
        }),
      )
      assert.deepEqual(JSON.parse(first.slice(0, first.lastIndexOf('\n\nsession: '))), ['alpha', 'beta'])
      const handle = sessionOf(first)
      const again = firstText(
        await client.callTool({
          name: 'run_code',
          arguments: { code: 'return seen.join("+")', description: 'read a kept variable', session: handle },
        }),
      )
      assert.equal(again, `alpha+beta\n\nsession: ${handle}`)
      // Without a handle, a new session: the variable is not there.
      const fresh = firstText(
        await client.callTool({
          name: 'run_code',
          arguments: { code: 'return typeof seen', description: 'a new session' },
        }),
      )
      assert.match(fresh, /^undefined\n\nsession: s_/)
      assert.notEqual(sessionOf(fresh), handle)

      // Another principal sending alice's handle finds nothing, and nothing runs.
      const bob = await connectV2(serve.url, BOB_KEY, 'modern')
      try {
        const stolen = await bob.callTool({
          name: 'run_code',
          arguments: { code: 'return seen', description: 'use a session of someone else', session: handle },
        })
        assert.equal((stolen as { isError?: boolean }).isError, true)
        assert.match(firstText(stolen), /There is no session s_\S+ of yours .*nothing ran/)
      } finally {
        await bob.close()
      }
    } finally {
      await client.close()
    }
  })

  it('serves 2025-era clients (SDK 2 and SDK 1.x) in sessions of their own, apart from each other', async () => {
    const v2 = await connectV2(serve.url, ALICE_KEY, 'legacy')
    const v1 = await connectV1(serve.url, BOB_KEY)
    try {
      assert.equal(v2.getNegotiatedProtocolVersion(), '2025-11-25')
      const listed = await v1.listTools()
      assert.deepEqual(Object.keys(listed.tools[0]?.inputSchema.properties ?? {}), ['code', 'description', 'reset'])
      const run = (client: typeof v2 | typeof v1, code: string): Promise<string> =>
        client
          .callTool({ name: 'run_code', arguments: { code, description: 'legacy session' } })
          .then(result => firstText(result))
      assert.equal(await run(v2, 'var mine = "alice"; return mine'), 'alice')
      assert.equal(await run(v1, 'var mine = "bob"; return mine'), 'bob')
      assert.equal(await run(v2, 'return mine'), 'alice')
      assert.equal(await run(v1, 'return mine'), 'bob')
    } finally {
      await v2.close()
      await v1.close()
    }
  })

  it('asks a 2025-era client by elicitation before a destructive call, and runs only what is accepted', async () => {
    const questions: string[] = []
    let accept = true
    const client = await connectV2(serve.url, ALICE_KEY, 'legacy', message => {
      questions.push(message)
      return accept ? { action: 'accept', content: { allowRestOfRun: false } } : { action: 'decline' }
    })
    try {
      const seed =
        "await tools.memory_create_entities({ entities: [{ name: 'draft', entityType: 'doc', observations: [] }] })\n"
      const remove = "await tools.memory_delete_entities({ entityNames: ['draft'] })\n"
      const names = 'return (await tools.memory_read_graph()).entities.map(entity => entity.name).join(",")'
      accept = false
      const declined = await client.callTool({
        name: 'run_code',
        arguments: { code: `${seed}try { ${remove} } catch (error) { }\n${names}`, description: 'tidy up' },
      })
      assert.match(firstText(declined), /draft/)
      accept = true
      const accepted = await client.callTool({
        name: 'run_code',
        arguments: { code: `${remove}${names}`, description: 'tidy up' },
      })
      assert.doesNotMatch(firstText(accepted), /draft/)
      assert.equal(questions.length, 2)
      assert.match(questions[0] ?? '', /The program "tidy up" wants to call memory_delete_entities with:/)
    } finally {
      await client.close()
    }
  })

  it('leaves one audit line per run_code naming the principal and each call, without arguments or results', () => {
    const lines = serve.auditLines()
    const alice = lines.filter(line => line.principal === 'alice')
    const bob = lines.filter(line => line.principal === 'bob')
    assert.ok(alice.length >= 5 && bob.length >= 2, `audit lines: ${alice.length} of alice, ${bob.length} of bob`)
    const writes = alice.find(line => line.description === 'write to both servers') as
      { calls: { server: string; tool: string; outcome: string }[]; outcome: string } | undefined
    assert.ok(writes !== undefined)
    assert.equal(writes.outcome, 'ok')
    assert.deepEqual(
      writes.calls.map(call => `${call.server}/${call.tool}:${call.outcome}`),
      ['memory/create_entities:ok', 'notes/create_entities:ok', 'memory/read_graph:ok', 'notes/read_graph:ok'],
    )
    assert.doesNotMatch(JSON.stringify(lines), /alpha|beta/)
    const declined = alice.find(line => line.description === 'tidy up') as { calls: { approval?: string }[] }
    assert.equal(declined.calls.find(call => call.approval !== undefined)?.approval, 'declined')
  })

  it('answers a request without a key, or with a key it does not know, with 401, and runs nothing', async () => {
    const before = serve.auditLines().length
    for (const headers of [
      {},
      { authorization: 'Bearer not-a-key' },
      { authorization: `Bearer ${sha256Hex(ALICE_KEY)}` },
    ]) {
      const answer = await rawRequest(serve.url, {
        headers: { ...MCP_POST_HEADERS, ...headers },
        body: INITIALIZE_BODY,
      })
      assert.equal(answer.status, 401)
      assert.match(String(answer.headers['www-authenticate']), /^Bearer /)
    }
    await assert.rejects(connectV2(serve.url, 'not-a-key', 'modern'))
    assert.equal(serve.auditLines().length, before)
  })

  it('refuses a foreign Host (DNS rebinding) and a foreign Origin with 403, before any key is read', async () => {
    const authorization = `Bearer ${ALICE_KEY}`
    const host = await rawRequest(serve.url, {
      headers: { ...MCP_POST_HEADERS, authorization, host: 'attacker.example' },
      body: INITIALIZE_BODY,
    })
    assert.equal(host.status, 403)
    assert.match(host.body, /Invalid Host/)
    const origin = await rawRequest(serve.url, {
      headers: { ...MCP_POST_HEADERS, authorization, origin: 'https://attacker.example' },
      body: INITIALIZE_BODY,
    })
    assert.equal(origin.status, 403)
    const local = await rawRequest(serve.url, {
      headers: { ...MCP_POST_HEADERS, authorization, origin: `http://localhost:${serve.url.port}` },
      body: INITIALIZE_BODY,
    })
    assert.equal(local.status, 200, local.body)
  })

  it('refuses a 10 MB request body with 413 and a clear message, and keeps serving', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'run_code', arguments: { code: `return '${'x'.repeat(10 * 1024 * 1024)}'`, description: 'big' } },
    })
    const answer = await fetch(serve.url, {
      method: 'POST',
      headers: { ...MCP_POST_HEADERS, authorization: `Bearer ${ALICE_KEY}` },
      body,
    })
    assert.equal(answer.status, 413)
    assert.match(await answer.text(), /Payload Too Large: Request body must not exceed 4194304 bytes/)
    const client = await connectV2(serve.url, ALICE_KEY, 'modern')
    try {
      assert.match(
        firstText(await client.callTool({ name: 'run_code', arguments: { code: 'return 7', description: 'after' } })),
        /^7\n/,
      )
    } finally {
      await client.close()
    }
  })

  it('answers other paths with 404', async () => {
    const answer = await rawRequest(new URL('/other', serve.url), { method: 'GET' })
    assert.equal(answer.status, 404)
    assert.match(answer.body, /the MCP endpoint is \/mcp/)
  })

  it('stops on SIGTERM with exit code 143', async () => {
    assert.equal(await serve.stop('SIGTERM'), 143)
    assert.match(serve.stderr(), /shutting down \(SIGTERM\)/)
  })
})

describe('serve --http refuses a setup that would expose it', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  before(async () => {
    temp = await makeTempDirectory('code-runtime-http-setup-')
  })
  after(() => temp.remove())
  const config = { mcpServers: {} }

  it('a keys file others may read', async () => {
    const keysPath = join(temp.path, 'open.keys')
    await writeFile(keysPath, `alice ${sha256Hex(ALICE_KEY)}\n`)
    await chmod(keysPath, 0o644)
    const ended = await runServeToEnd(temp.path, config, ['--http', '0', '--auth-keys', keysPath])
    assert.equal(ended.code, 2)
    assert.match(ended.stderr, /may be read or written by others \(mode 644\); run chmod 600 on it/)
  })

  it('an address beyond loopback without authentication', async () => {
    const ended = await runServeToEnd(temp.path, config, ['--http', '0.0.0.0:0'])
    assert.equal(ended.code, 2)
    assert.match(ended.stderr, /beyond this machine without authentication/)
  })
})
