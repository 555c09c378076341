import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '@modelcontextprotocol/client'
import { InMemoryTransport } from '@modelcontextprotocol/server'
import { LogSubscribingServer } from './log-subscriptions.js'

async function connectedPair(): Promise<{ server: LogSubscribingServer; client: Client; received: unknown[] }> {
  const server = new LogSubscribingServer({ name: 'test', version: '1.0.0' }, { capabilities: { logging: {} } })
  const client = new Client({ name: 'test-client', version: '1.0.0' })
  const received: unknown[] = []
  client.setNotificationHandler('notifications/message', notification => {
    received.push(notification.params.data)
  })
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)])
  return { server, client, received }
}

describe('LogSubscribingServer', () => {
  it('knows a session asked for logs only once it sent logging/setLevel', async () => {
    const { server, client } = await connectedPair()
    assert.equal(server.asksForLogs(undefined), false)
    await client.setLoggingLevel('info')
    assert.equal(server.asksForLogs(undefined), true)
    assert.equal(server.asksForLogs('another-session'), false)
    await client.close()
  })

  it("keeps the SDK's own level filter: messages below the level set are not sent", async () => {
    const { server, client, received } = await connectedPair()
    await client.setLoggingLevel('warning')
    await server.sendLoggingMessage({ level: 'info', data: 'too quiet' })
    await server.sendLoggingMessage({ level: 'error', data: 'loud enough' })
    // A ping round trip: the notifications sent before it have been handled when it answers.
    await client.ping()
    assert.deepEqual(received, ['loud enough'])
    await client.close()
  })
})
