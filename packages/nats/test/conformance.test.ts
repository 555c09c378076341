// The seam's behaviour through NATS: every conformance check, each run sent to one of two
// runners (worker-thread backends) on a real nats-server under the documented tenant permissions
// (the caller a tenant with its own inbox prefix), binding calls answered back here.
import { after, before } from 'node:test'
import { startCodeRuntime } from '@code-runtime/core'
import { runConformanceSuite } from '@code-runtime/core/conformance'
import { NatsCodeRuntime, type Runner } from '@code-runtime/nats'
import {
  RUNNER,
  startNatsServer,
  startTestRunners,
  TENANT_PERMISSIONS,
  VICTIM,
  type NatsServer,
} from './nats-server.js'

let server: NatsServer
let runners: Runner[] = []
before(async () => {
  server = await startNatsServer({ extraConfig: TENANT_PERMISSIONS })
  runners = await startTestRunners(server.url, 2, {
    concurrency: 8,
    maxRunsPerCaller: 8,
    nats: { servers: server.url, ...RUNNER },
  })
})
after(async () => {
  await Promise.all(runners.map(runner => runner.drain(1_000)))
  await server.dispose()
})

runConformanceSuite({
  name: "nats (two worker-thread runners, a tenant's credentials and inbox prefix)",
  isolation: 'remote',
  start: config => startCodeRuntime(NatsCodeRuntime, { servers: server.url, ...VICTIM, ...config }),
})
