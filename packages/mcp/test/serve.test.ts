// `code-runtime serve` end to end: a real MCP client starts the built bin over stdio, in front of
// real MCP servers from npm (filesystem, memory, everything), our flaky fixture server and a
// server whose command does not exist.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { LoggingMessageNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import {
  cancelHangingUpstreamCall,
  FLAKY_SERVER_PATH,
  installedBin,
  isAlive,
  makeTempDirectory,
  readLines,
  startServe,
  textOf,
  waitFor,
  type ServeSession,
} from './serve-harness.js'

describe('code-runtime serve', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  let serve: ServeSession
  let flakyLog: string
  let listChanges = 0
  const logNotifications: unknown[] = []

  before(async () => {
    temp = await makeTempDirectory('code-runtime-serve-')
    const files = join(temp.path, 'files')
    await mkdir(files)
    await writeFile(join(files, 'team.txt'), 'Ada Lovelace\nGrace Hopper\n')
    flakyLog = join(temp.path, 'flaky.log')
    serve = await startServe(temp.path, {
      mcpServers: {
        files: { command: installedBin('mcp-server-filesystem'), args: ['files'] },
        memory: {
          command: installedBin('mcp-server-memory'),
          env: { MEMORY_FILE_PATH: join(temp.path, 'memory.jsonl') },
        },
        everything: {
          command: installedBin('mcp-server-everything'),
          args: ['stdio'],
          include: ['echo', 'get-sum', 'get-tiny-image'],
        },
        flaky: { command: process.execPath, args: [FLAKY_SERVER_PATH], env: { FIXTURE_LOG: flakyLog } },
        ghost: { command: 'no-such-mcp-server' },
      },
    })
    serve.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      listChanges++
    })
    serve.client.setNotificationHandler(LoggingMessageNotificationSchema, notification => {
      logNotifications.push(notification.params.data)
    })
  })

  after(async () => {
    await serve?.close().catch(() => undefined)
    await temp?.remove()
  })

  it('lists run_code with the SDK of every server that started, and names the one that did not', async () => {
    const { tools } = await serve.client.listTools()
    assert.deepEqual(
      tools.map(tool => tool.name),
      ['run_code'],
    )
    const description = tools[0]?.description ?? ''
    assert.match(description, /files_read_text_file\(args: /)
    assert.match(description, /memory_create_entities\(args: \{ entities: Entity\[\] \}\)/)
    assert.match(description, /everything_get_sum\(/)
    assert.doesNotMatch(description, /everything_get_env/, 'include leaves other tools out')
    assert.match(description, /flaky_crash\(\)/)
    assert.match(description, /^Unavailable \(failed to start, no tools\): ghost\.$/m)
  })

  it('reports a missing upstream command on stderr, on one line, while the other servers work', async () => {
    assert.match(
      serve.stderr(),
      /^code-runtime: server "ghost": command "no-such-mcp-server" was not found on PATH or in node_modules\/\.bin; install it or fix "command"\.$/m,
    )
    assert.deepEqual(
      await serve.runJson('return await tools.everything_get_sum({ a: 2, b: 3 })'),
      'The sum of 2 and 3 is 5.',
    )
  })

  it("sends the program's logs as logging notifications once the client asked for them (logging/setLevel)", async () => {
    await serve.client.setLoggingLevel('info')
    logNotifications.length = 0
    const value = await serve.runJson(`
      console.log('starting')
      const sum = await tools.everything_get_sum({ a: 1, b: 2 })
      console.log('got', sum)
      return 'done'
    `)
    assert.equal(value, 'starting\ngot The sum of 1 and 2 is 3.\ndone', 'the result text still carries the logs')
    // Lines printed close together share a notification; together they are the logs, in order.
    await waitFor(
      () => logNotifications.join('\n') === 'starting\ngot The sum of 1 and 2 is 3.',
      'the logs as logging notifications',
    )
  })

  it('runs a program that uses two servers in one run', async () => {
    const value = await serve.runJson(`
      const { content } = await tools.files_read_text_file({ path: 'team.txt' })
      const names = content.split('\\n').filter(Boolean)
      await tools.memory_create_entities({ entities: names.map((name) => ({ name, entityType: 'person', observations: ['listed in team.txt'] })) })
      const found = await tools.memory_search_nodes({ query: 'team.txt' })
      return { names, stored: found.entities.map((entity) => entity.name).sort() }
    `)
    assert.deepEqual(value, { names: ['Ada Lovelace', 'Grace Hopper'], stored: ['Ada Lovelace', 'Grace Hopper'] })
  })

  it('turns an upstream tool error into a ToolCallError the program catches', async () => {
    const value = await serve.runJson(`
      try {
        await tools.files_read_text_file({ path: 'missing.txt' })
        return 'no error'
      } catch (error) {
        return { isToolCallError: error instanceof ToolCallError, toolName: error.toolName, mentionsFile: error.message.includes('missing.txt') }
      }
    `)
    assert.deepEqual(value, { isToolCallError: true, toolName: 'files_read_text_file', mentionsFile: true })
    const fixture = await serve.runJson(
      `try { await tools.flaky_fail({ message: 'quota exceeded' }) } catch (error) { return error.message }`,
    )
    assert.equal(fixture, 'quota exceeded')
  })

  it('keeps the error and the value of a run whose logs are past the result size, cutting the logs in the middle', async () => {
    // 3 000 lines of about 40 characters: three times the 40 000 characters a result holds.
    const printing = 'for (let i = 0; i < 3000; i++) console.log(`step ${i} of the long loop, still going`)\n'
    const failed = await serve.runCode(`${printing}await tools.files_read_text_file({ path: 'missing.txt' })`)
    assert.equal(failed.isError, true)
    const failure = textOf(failed)
    assert.ok(failure.length <= 40_000, `${failure.length} characters`)
    assert.ok(failure.startsWith('step 0 of the long loop, still going\n'), 'the first lines are kept')
    assert.match(
      failure,
      /\nstep 2999 of the long loop, still going\ncode run failed \(exception\): [^\n]*missing\.txt[^\n]*$/,
    )
    assert.match(failure, /\n\[\.\.\. \d+ log lines left out here \(\d+ characters\); log less to see them all\]\n/)
    const returned = textOf(await serve.runCode(`${printing}return { files: 2, summary: 'all read' }`))
    assert.ok(returned.length <= 40_000, `${returned.length} characters`)
    assert.ok(
      returned.endsWith('\nstep 2999 of the long loop, still going\n{\n  "files": 2,\n  "summary": "all read"\n}'),
      'the value comes last, whole',
    )
  })

  it('checks arguments against the input schema before calling the server', async () => {
    // Arguments of type any: the type check lets them through, so the runtime check is what stops them.
    const value = await serve.runJson(
      `try { await tools.files_read_text_file(JSON.parse('{}')) } catch (error) { return error.message }`,
    )
    assert.equal(value, 'tools.files_read_text_file: args.path is required.')
  })

  it('returns images produced by tools as content blocks of the result', async () => {
    const result = await serve.runCode(
      'const a = await tools.everything_get_tiny_image()\nconst b = await tools.flaky_pixel()\nreturn b',
    )
    assert.equal(result.isError, false)
    const images = result.content.filter(block => block.type === 'image')
    assert.deepEqual(
      images.map(block => block.mimeType),
      ['image/png', 'image/png'],
    )
    assert.match(textOf(result), /^a pixel\n\[2 content blocks from tools attached: image\/png, image\/png\]$/)
  })

  it('fails only the call whose server crashed, and starts that server again on the next call', async () => {
    const value = await serve.runJson(`
      let crash = ''
      try { await tools.flaky_crash() } catch (error) { crash = error.toolName + ': ' + error.message }
      const sum = await tools.everything_get_sum({ a: 1, b: 1 })
      const echo = await tools.flaky_echo({ text: 'back again' })
      return { crash, sum, echo }
    `)
    assert.deepEqual(value, {
      crash:
        'flaky_crash: Server "flaky" stopped while answering (its connection closed); the next call starts it again.',
      sum: 'The sum of 1 and 1 is 2.',
      echo: 'back again',
    })
    const readyLines = (await readLines(flakyLog)).filter(line => line.startsWith('ready '))
    assert.equal(readyLines.length, 2, 'the fixture server was started a second time')
  })

  it('cancels the run and its in-flight upstream call when the client cancels', async () => {
    await cancelHangingUpstreamCall((code, options) => serve.runCode(code, options), flakyLog)
    assert.equal(await serve.runJson('return await tools.flaky_echo({ text: "still serving" })'), 'still serving')
  })

  it('regenerates the SDK and tells the client when an upstream tool list changes', async () => {
    const before = listChanges
    assert.equal(await serve.runJson(`return await tools.flaky_add_tool({ name: 'late_tool' })`), 'added late_tool')
    await waitFor(() => listChanges > before, 'notifications/tools/list_changed')
    const { tools } = await serve.client.listTools()
    assert.match(tools[0]?.description ?? '', /flaky_late_tool\(\)/)
    assert.equal(await serve.runJson('return await tools.flaky_late_tool()'), 'late_tool')
  })

  it('leaves no upstream process behind when the client closes', async () => {
    const children = serve.childPids()
    // The four upstream servers, plus the code runtime's own child spawned ahead (process backend).
    assert.ok(children.length >= 4, 'filesystem, memory, everything and flaky run as children')
    await serve.close()
    for (const pid of children) assert.equal(isAlive(pid), false, `upstream process ${pid} is gone`)
  })
})

describe('code-runtime serve with small budgets', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  let serve: ServeSession
  let flakyLog: string

  before(async () => {
    temp = await makeTempDirectory('code-runtime-budgets-')
    flakyLog = join(temp.path, 'flaky.log')
    await mkdir(join(temp.path, 'files'))
    serve = await startServe(
      temp.path,
      {
        mcpServers: {
          files: { command: installedBin('mcp-server-filesystem'), args: ['files'] },
          memory: {
            command: installedBin('mcp-server-memory'),
            env: { MEMORY_FILE_PATH: join(temp.path, 'memory.jsonl') },
          },
          flaky: { command: process.execPath, args: [FLAKY_SERVER_PATH], env: { FIXTURE_LOG: flakyLog } },
        },
      },
      ['--timeout-ms', '1500', '--max-sdk-chars', '500'],
    )
  })

  after(async () => {
    await serve?.close().catch(() => undefined)
    await temp?.remove()
  })

  it('past the SDK budget, lists an index in run_code and offers get_tool_types', async () => {
    const { tools } = await serve.client.listTools()
    assert.deepEqual(
      tools.map(tool => tool.name),
      ['run_code', 'get_tool_types'],
    )
    const description = tools[0]?.description ?? ''
    assert.match(description, /^- memory_create_entities: Create multiple new entities in the knowledge graph$/m)
    assert.match(description, /^- flaky_echo: Returns its text\.$/m)
    assert.doesNotMatch(description, /declare const tools/)
    const types = await serve.client.callTool({
      name: 'get_tool_types',
      arguments: { tools: ['memory_create_entities', 'flaky_echo'] },
    })
    assert.equal(types.isError, false)
    const text = textOf(types as Parameters<typeof textOf>[0])
    assert.match(text, /memory_create_entities\(args: \{ entities: Entity\[\] \}\)/)
    assert.match(text, /flaky_echo\(args: \{ text: string \}\)/)
    assert.doesNotMatch(text, /memory_read_graph/)
    // The description's own ``` fence sits inside a longer one: the whole answer is one code block.
    assert.match(text, /^````ts\n[^]*\* ```js\n[^]*\n````\n$/)
    const unknown = await serve.client.callTool({
      name: 'get_tool_types',
      arguments: { tools: ['memory_create_entity'] },
    })
    assert.equal(unknown.isError, true)
    assert.match(
      textOf(unknown as Parameters<typeof textOf>[0]),
      /^Unknown member: memory_create_entity; the closest members: memory_create_entities, /,
    )
  })

  it('answers get_tool_types for a tool named without its server with the closest members, best first', async () => {
    const result = (await serve.client.callTool({
      name: 'get_tool_types',
      arguments: { tools: ['read_text_file', 'memory_create_entitys'] },
    })) as Parameters<typeof textOf>[0]
    assert.equal(result.isError, true)
    const lines = textOf(result).split('\n')
    assert.equal(lines[0], 'Unknown members: read_text_file, memory_create_entitys.')
    assert.match(lines[1] ?? '', /^Closest to read_text_file: files_read_text_file, /)
    assert.match(lines[2] ?? '', /^Closest to memory_create_entitys: memory_create_entities, /)
    assert.ok(textOf(result).length < 1_000, 'a few suggestions, not the whole list')
  })

  it('refuses a tool it does not offer with the MCP error prefix once, and says how to call a member', async () => {
    await assert.rejects(
      serve.client.callTool({ name: 'files_read_text_file', arguments: { path: 'x' } }),
      (error: Error) => {
        assert.equal(
          error.message,
          'MCP error -32602: "files_read_text_file" is not a tool of this server but a function of run_code programs: ' +
            'call run_code with a program that does `await tools.files_read_text_file(args)`.',
        )
        return true
      },
    )
    await assert.rejects(serve.client.callTool({ name: 'read_text_file', arguments: {} }), (error: Error) => {
      assert.match(
        error.message,
        /^MCP error -32602: Unknown tool "read_text_file"; this server offers run_code and get_tool_types\. .*the closest: tools\.files_read_text_file, /,
      )
      assert.equal(error.message.split('MCP error').length, 2, 'the prefix appears once')
      return true
    })
  })

  it('ends a program past its time budget as a timeout and cancels its upstream call', async () => {
    const result = await serve.runCode('await tools.flaky_hang()\nreturn "finished"')
    assert.equal(result.isError, true)
    assert.match(textOf(result), /^code run failed \(timeout\): .*1500 ms/)
    await waitFor(
      async () => (await readLines(flakyLog)).includes('hang cancelled'),
      'the upstream call to be cancelled',
    )
  })

  it('leaves no upstream process behind when the client closes', async () => {
    const children = serve.childPids()
    assert.ok(children.length >= 3, 'files, memory and flaky run as children')
    await serve.close()
    for (const pid of children) assert.equal(isAlive(pid), false, `upstream process ${pid} is gone`)
  })
})
