// The package's public surface, read through its exports map, so an export cannot appear or vanish unnoticed.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { CodeRuntimeError } from '@code-runtime/core'

describe('public surface of @code-runtime/nats', () => {
  it('exports exactly the documented names', async () => {
    const specifier: string = '@code-runtime/nats'
    const entry = (await import(specifier)) as Record<string, unknown>
    assert.deepEqual(Object.keys(entry).sort(), [
      'DEFAULT_HEARTBEAT_MS',
      'DEFAULT_LOST_AFTER_MS',
      'DEFAULT_MAX_QUEUE_MS',
      'DEFAULT_SUBJECT_PREFIX',
      'NatsCodeRuntime',
      'PeerFailed',
      'PeerUnreachable',
      'connectPeerBus',
      'hasNatsCredentials',
      'resolveNatsRuntimeConfig',
      'startRunner',
    ])
  })

  it('refuses a bad config by field, with the core config code', async () => {
    const { resolveNatsRuntimeConfig } = await import('@code-runtime/nats')
    for (const [input, field] of [
      [{}, 'servers'],
      [{ servers: 'http://x' }, 'servers[0]'],
      [{ servers: 'nats://127.0.0.1:4222', user: 'a' }, 'pass'],
      [{ servers: 'nats://127.0.0.1:4222', subjectPrefix: 'a.b' }, 'subjectPrefix'],
      [{ servers: 'nats://127.0.0.1:4222', heartbeatMs: 500, lostAfterMs: 600 }, 'lostAfterMs'],
      [{ servers: 'nats://127.0.0.1:4222', maxQueueMS: 1 }, undefined],
      // One token would make every inbox a caller of its own; wildcards would read others' inboxes.
      [{ servers: 'nats://127.0.0.1:4222', inboxPrefix: '_INBOX' }, 'inboxPrefix'],
      [{ servers: 'nats://127.0.0.1:4222', inboxPrefix: '_INBOX.*' }, 'inboxPrefix'],
      [{ servers: 'nats://127.0.0.1:4222', inboxPrefix: '_INBOX..a' }, 'inboxPrefix'],
      [{ servers: 'nats://127.0.0.1:4222', tls: { certFile: 'cert.pem' } }, 'keyFile'],
      [{ servers: 'nats://127.0.0.1:4222', tls: { ca: 'inline' } }, undefined],
      [{ servers: 'nats://127.0.0.1:4222', credsFile: 7 }, 'credsFile'],
    ] as const) {
      assert.throws(
        () => resolveNatsRuntimeConfig(input),
        (error: unknown) =>
          CodeRuntimeError.is(error) &&
          error.code === 'CODE_RUNTIME_INVALID_CONFIG' &&
          (field === undefined || error.field === field),
        JSON.stringify(input),
      )
    }
  })
})
