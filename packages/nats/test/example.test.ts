// The README's example, run as a user runs it: a child node process with NATS_URL set to a real nats-server.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { startNatsServer, type NatsServer } from './nats-server.js'

const EXAMPLE = fileURLToPath(new URL('../examples/remote-run.js', import.meta.url))
const SOURCE = fileURLToPath(new URL('../../examples/remote-run.ts', import.meta.url))
const README = fileURLToPath(new URL('../../README.md', import.meta.url))

describe('the README example', () => {
  let server: NatsServer
  before(async () => {
    server = await startNatsServer()
  })
  after(() => server.dispose())

  it('runs the program on the runner and answers its call here', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [EXAMPLE], {
      env: { PATH: process.env.PATH ?? '', NATS_URL: server.url },
    })
    assert.equal(stdout, 'found ada ADA true\n')
  })

  it('is the code the README shows', async () => {
    const source = (await readFile(SOURCE, 'utf8'))
      .split('\n')
      .filter(line => !line.startsWith('//'))
      .join('\n')
      .trim()
    assert.ok((await readFile(README, 'utf8')).includes(source))
  })
})
