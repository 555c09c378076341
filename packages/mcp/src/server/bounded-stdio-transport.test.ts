import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { PassThrough, Writable } from 'node:stream'
import { Server } from '@modelcontextprotocol/server'
import { BoundedStdioServerTransport, readIdOfOversizedLine } from './bounded-stdio-transport.js'

/** A client's end of stdout that reads nothing until `release()`, then everything. */
class StalledReader extends Writable {
  readonly lines: string[] = []
  #held: Array<() => void> = []
  #isReleased = false
  #partial = ''

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    const text = this.#partial + chunk.toString()
    const lines = text.split('\n')
    this.#partial = lines.pop() ?? ''
    this.lines.push(...lines)
    if (this.#isReleased) callback()
    else this.#held.push(callback)
  }

  release(): void {
    this.#isReleased = true
    for (const callback of this.#held.splice(0)) callback()
  }
}

const turns = async (count: number): Promise<void> => {
  for (let turn = 0; turn < count; turn++) await new Promise(resolve => setImmediate(resolve))
}

/** A real SDK server whose tools/list answer is about 10 KB, on the transport. */
async function serveOn(
  input: PassThrough,
  output: Writable,
  maxPendingWriteBytes: number,
): Promise<{ server: Server; handled: () => number }> {
  let handled = 0
  const server = new Server({ name: 'test', version: '1.0.0' }, { capabilities: { tools: {} } })
  server.setRequestHandler('tools/list', () => {
    handled++
    return { tools: [{ name: 'big', description: 'd'.repeat(10_000), inputSchema: { type: 'object' } }] }
  })
  await server.connect(new BoundedStdioServerTransport(input, output, { maxPendingWriteBytes }))
  return { server, handled: () => handled }
}

const listRequest = (id: number): string => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' })}\n`

describe('BoundedStdioServerTransport', () => {
  // Attack: a client sends requests and never reads the answers, to grow the server's memory.
  it('stops reading requests while the unread answers pass the bound, and reads on as the client reads', async () => {
    const input = new PassThrough()
    const output = new StalledReader({ highWaterMark: 16 * 1024 })
    const { server, handled } = await serveOn(input, output, 100_000)
    input.write(Array.from({ length: 1_000 }, (_, index) => listRequest(index)).join(''))
    await turns(200)
    // About 100 KB of answers wait (ten of 10 KB); the rest of the requests are not even read.
    assert.ok(handled() >= 10 && handled() <= 12, `handled ${handled()}`)
    assert.ok(output.writableLength <= 100_000 + 11_000, `pending ${output.writableLength}`)
    output.release()
    while (output.lines.length < 1_000) await turns(10)
    assert.equal(handled(), 1_000)
    assert.deepEqual(
      output.lines.map(line => (JSON.parse(line) as { id: number }).id),
      Array.from({ length: 1_000 }, (_, index) => index),
    )
    await server.close()
  })

  it('answers an oversized line with an error naming its id, and reads the next line', async () => {
    const input = new PassThrough()
    const output = new StalledReader()
    output.release()
    const server = new Server({ name: 'test', version: '1.0.0' }, { capabilities: {} })
    await server.connect(new BoundedStdioServerTransport(input, output, { maxRequestBytes: 1_000 }))
    input.write(`{"method":"tools/call","params":{"note":"${'x'.repeat(5_000)}"},"jsonrpc":"2.0","id":41}\n`)
    input.write('not json\n')
    input.write('{"jsonrpc":"2.0","id":"p","method":"ping"}\n')
    while (output.lines.length < 3) await turns(10)
    const [tooLarge, notJson, ping] = output.lines.map(
      line => JSON.parse(line) as { id: unknown; error?: { code: number; message: string }; result?: unknown },
    )
    assert.equal(tooLarge?.id, 41)
    assert.equal(tooLarge?.error?.code, -32600)
    assert.match(tooLarge?.error?.message ?? '', /Request too large: 5\d{3} bytes, over the limit of 1000 bytes/)
    assert.deepEqual([notJson?.id, notJson?.error?.code], [null, -32700])
    assert.deepEqual([ping?.id, ping?.result], ['p', {}])
    await server.close()
  })

  it('reads the id of an oversized line only where it is a member of the outer object', () => {
    assert.equal(readIdOfOversizedLine('{"method":"x","params":{"a":"', '"},"jsonrpc":"2.0","id":7}'), 7)
    assert.equal(readIdOfOversizedLine('{"jsonrpc":"2.0","id":"abc","method":"x","params":{"a":"', 'aaaa"}}'), 'abc')
    assert.equal(readIdOfOversizedLine('{"method":"x","params":{"a":"', 'aaaa","id":3}}'), null)
    assert.equal(readIdOfOversizedLine('{"method":"x","params":{"a":"', 'aaaa\\",\\"id\\":3}"}'), null)
  })
})
