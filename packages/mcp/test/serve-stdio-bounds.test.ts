/**
 * `code-runtime serve` over raw stdio and the official SDK client, at the edges of its stdio
 * transport: a request over the size limit is answered with an error and the connection goes
 * on; a client that stops reading its answers stops the server reading requests (its memory
 * stays bounded) until it reads again; a stdout that fails ends the server, saying why.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { CLI_PATH, FLAKY_SERVER_PATH, makeTempDirectory, startServe, waitFor } from './serve-harness.js'

/** `serve` on the built-in example server with raw pipes; `stderr()` is what it said so far. */
function spawnServe(): { child: ReturnType<typeof spawn>; stderr: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [CLI_PATH, 'serve', '--backend', 'worker-thread', '--no-state'], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '' },
  })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const exited = new Promise<number | null>(resolve => child.on('exit', code => resolve(code)))
  return { child, stderr: () => stderr, exited }
}

const INITIALIZE = `${JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`

describe('serve: stdio bounds', () => {
  // Attack: one message past the read buffer used to close the transport for good, silently.
  it('answers a request over the size limit with an error and goes on answering', async () => {
    const temp = await makeTempDirectory('code-runtime-stdio-')
    const serve = await startServe(
      temp.path,
      { mcpServers: { flaky: { command: process.execPath, args: [FLAKY_SERVER_PATH] } } },
      ['--backend', 'worker-thread', '--no-state'],
    )
    try {
      await assert.rejects(
        serve.runCode(`return ${JSON.stringify('x'.repeat(11 * 1024 * 1024))}.length`, { timeout: 15_000 }),
        (error: unknown) =>
          error instanceof McpError &&
          error.code === -32600 &&
          /Request too large: \d+ bytes, over the limit of 10485760 bytes/.test(error.message),
      )
      await serve.client.ping({ timeout: 15_000 })
      assert.equal(await serve.runJson("return await tools.flaky_echo({ text: 'still here' })"), 'still here')
      assert.match(serve.stderr(), /refused a message \(id \d+\): Request too large/)
    } finally {
      await serve.close()
      await temp.remove()
    }
  })

  // Attack: a client that sends requests and never reads the answers, to grow the server.
  it('stops reading requests while its answers go unread, then answers every one as the client reads', async () => {
    const { child, stderr, exited } = spawnServe()
    const stdin = child.stdin as NonNullable<typeof child.stdin>
    const stdout = child.stdout as NonNullable<typeof child.stdout>
    try {
      await waitFor(() => /serving \d+ tools/.test(stderr()), 'serve to start')
      // One checked run first, so the type checker is loaded before the baseline is read.
      const warm = new Promise<void>(resolve => {
        const onData = (chunk: Buffer): void => {
          if (!chunk.toString().includes('"id":"warm"')) return
          stdout.off('data', onData)
          resolve()
        }
        stdout.on('data', onData)
      })
      stdin.write(
        INITIALIZE +
          `${JSON.stringify({ jsonrpc: '2.0', id: 'warm', method: 'tools/call', params: { name: 'run_code', arguments: { code: 'return 1' } } })}\n`,
      )
      await warm
      stdout.pause()
      const count = 10_000
      stdin.write(
        Array.from(
          { length: count },
          (_, id) => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' })}\n`,
        ).join(''),
      )
      await waitFor(
        () =>
          /the client is not reading its answers \(\d+ bytes wait\); no more requests are read until it does/.test(
            stderr(),
          ),
        'serve to stop reading',
      )
      // Most requests are still on our side of the pipe, unread: what the server holds is bounded by
      // the answers waiting, not by what the client sends. (Its RSS is no measure here: the heap it
      // grew while answering is not given back at once, and it moved by 100 MB either way.)
      await new Promise(resolve => setTimeout(resolve, 500))
      assert.ok(stdin.writableLength > 0, 'the server read every request')
      const answered = new Set<unknown>()
      let partial = ''
      stdout.on('data', (chunk: Buffer) => {
        const lines = (partial + chunk.toString()).split('\n')
        partial = lines.pop() ?? ''
        for (const line of lines) answered.add((JSON.parse(line) as { id: unknown }).id)
      })
      stdout.resume()
      await waitFor(() => answered.size === count, 'every answer', 60_000)
    } catch (error) {
      child.kill('SIGKILL')
      throw error
    }
    stdin.end()
    assert.equal(await exited, 0)
  })

  // Attack: a client that floods, never reads, then closes its end of stdin but keeps stdout open.
  it('ends with a message and exit code 2 when the client stops reading for good (closing its input too)', async () => {
    const { child, stderr, exited } = spawnServe()
    const stdin = child.stdin as NonNullable<typeof child.stdin>
    const stdout = child.stdout as NonNullable<typeof child.stdout>
    // The requests serve never read are still in the pipe when it exits.
    stdin.on('error', () => undefined)
    try {
      await waitFor(() => /serving \d+ tools/.test(stderr()), 'serve to start')
      stdout.pause()
      stdin.write(
        INITIALIZE +
          Array.from(
            { length: 10_000 },
            (_, id) => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' })}\n`,
          ).join(''),
      )
      await waitFor(() => /the client is not reading its answers/.test(stderr()), 'serve to stop reading')
      stdin.end()
      await waitFor(() => child.exitCode !== null, 'serve to exit', 90_000)
    } catch (error) {
      child.kill('SIGKILL')
      throw error
    }
    assert.equal(await exited, 2, stderr())
    assert.match(
      stderr(),
      /the MCP connection on stdio failed \(the client read none of its \d+ bytes of waiting answers for 15000 ms\)/,
    )
  })

  it('ends with a message and exit code 2 when its stdout fails', async () => {
    const { child, stderr, exited } = spawnServe()
    await waitFor(() => /serving \d+ tools/.test(stderr()), 'serve to start')
    child.stdout?.destroy()
    child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })}\n`)
    try {
      await waitFor(() => child.exitCode !== null, 'serve to exit')
    } catch (error) {
      child.kill('SIGKILL')
      throw error
    }
    assert.equal(await exited, 2, stderr())
    assert.match(stderr(), /code-runtime: the MCP connection on stdio failed \(.*EPIPE.*\); shutting down\./)
  })
})
