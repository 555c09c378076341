/**
 * Test support run as its own process: a caller that opens an adoptable session, keeps `x = 41`
 * in it and a memo, prints the session's address, then holds the session until it is killed.
 * Arguments: the NATS URL, the inbox prefix and the adoption key (hex).
 */
import { startCodeRuntime } from '@code-runtime/core'
import { NatsCodeRuntime } from '@code-runtime/nats'

const [servers, inboxPrefix, keyHex] = process.argv.slice(2)
const { runtime } = await startCodeRuntime(NatsCodeRuntime, {
  servers: servers ?? '',
  inboxPrefix: inboxPrefix ?? '',
  adoptionKey: Buffer.from(keyHex ?? '', 'hex'),
  heartbeatMs: 200,
  lostAfterMs: 1_000,
})
const session = await runtime.openSession({ idleMs: 60_000 })
await session.run({ program: 'let x = 41', bindings: [] })
await session.keepMemo('x: number')
process.stdout.write(`address ${session.address ?? ''}\n`)
setInterval(() => undefined, 60_000)
