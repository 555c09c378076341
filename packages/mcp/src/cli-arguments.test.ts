import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DEFAULT_RUN_TIMEOUT_MS, parseCliArguments } from './cli-arguments.js'
import { McpProxyError } from './errors.js'
import { DEFAULT_BACKEND } from './runtime-backend.js'

function usageMessage(argv: string[]): string {
  try {
    parseCliArguments(argv)
  } catch (error) {
    assert.ok(McpProxyError.is(error))
    assert.equal(error.code, 'MCP_PROXY_USAGE')
    return error.message
  }
  assert.fail(`accepted ${argv.join(' ')}`)
}

describe('parseCliArguments', () => {
  it('decodes each command with its defaults', () => {
    assert.deepEqual(parseCliArguments(['serve', '--config', 's.json']), { command: 'serve', configPath: 's.json', backend: DEFAULT_BACKEND, backendChosen: false, timeoutMs: DEFAULT_RUN_TIMEOUT_MS, maxSdkChars: 20_000 })
    assert.deepEqual(parseCliArguments(['run', 'p.ts', '-c', 's.json', '--backend', 'process', '--timeout-ms', '5000']), { command: 'run', programPath: 'p.ts', configPath: 's.json', backend: 'process', backendChosen: true, timeoutMs: 5000 })
    assert.deepEqual(parseCliArguments(['types']), { command: 'types' })
    assert.deepEqual(parseCliArguments(['list', '--max-sdk-chars', '100']), { command: 'list', maxSdkChars: 100 })
    assert.deepEqual(parseCliArguments(['--help']), { command: 'help' })
    assert.deepEqual(parseCliArguments(['-v']), { command: 'version' })
  })

  it('takes a fractional --timeout-ms, as the backends take a fractional maxWallMs', () => {
    const command = parseCliArguments(['run', 'p.ts', '--timeout-ms', '5000.5'])
    assert.equal(command.command === 'run' ? command.timeoutMs : undefined, 5000.5)
    const serve = parseCliArguments(['serve', '--timeout-ms', '0.5'])
    assert.equal(serve.command === 'serve' ? serve.timeoutMs : undefined, 0.5)
  })

  it('refuses what it does not know, on one line that points to --help', () => {
    assert.match(usageMessage([]), /a command is missing/)
    assert.match(usageMessage(['start']), /unknown command "start"/)
    assert.match(usageMessage(['run']), /run needs a program file/)
    assert.match(usageMessage(['run', 'a.ts', 'b.ts']), /one program file, got "b.ts"/)
    assert.match(usageMessage(['serve', '--frobnicate']), /unknown option --frobnicate/)
    assert.match(usageMessage(['types', '--backend', 'process']), /--backend is not an option of types/)
    assert.match(usageMessage(['serve', '--backend', 'vm']), /--backend must be one of worker-thread, process, container, got "vm"/)
    for (const text of ['0', '0.0', '-5', '1e3', 'Infinity', 'NaN', '2147483648', '5.', '']) {
      assert.match(usageMessage(['run', 'a.ts', `--timeout-ms=${text}`]), /--timeout-ms must be a number of milliseconds above 0 and at most 2147483647/)
    }
    for (const argv of [[], ['start'], ['serve', '--frobnicate']]) {
      const message = usageMessage(argv)
      assert.match(message, /see code-runtime --help\.$/)
      assert.doesNotMatch(message, /\n/)
    }
  })
})
