import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DEFAULT_RUN_TIMEOUT_MS, parseCliArguments } from './cli-arguments.js'
import { McpProxyError } from '../errors.js'
import { DEFAULT_BACKEND } from '../runtime-backend.js'

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
    assert.deepEqual(parseCliArguments(['serve', '--config', 's.json']), {
      command: 'serve',
      configPath: 's.json',
      backend: DEFAULT_BACKEND,
      backendChosen: false,
      timeoutMs: DEFAULT_RUN_TIMEOUT_MS,
      maxSdkChars: 20_000,
      listWaitMs: 20_000,
      typeCheck: 'calls',
      state: true,
      approvalFallback: 'decline',
      graceMs: 10_000,
    })
    assert.deepEqual(
      parseCliArguments(['repl', '-c', 's.json', '--backend', 'worker-thread', '--type-check', 'strict']),
      {
        command: 'repl',
        configPath: 's.json',
        backend: 'worker-thread',
        backendChosen: true,
        timeoutMs: DEFAULT_RUN_TIMEOUT_MS,
        typeCheck: 'strict',
        allowAll: false,
      },
    )
    assert.deepEqual(
      parseCliArguments(['run', 'p.ts', '-c', 's.json', '--backend', 'process', '--timeout-ms', '5000']),
      {
        command: 'run',
        programPath: 'p.ts',
        configPath: 's.json',
        backend: 'process',
        backendChosen: true,
        timeoutMs: 5000,
        typeCheck: 'calls',
        allowAll: false,
      },
    )
    assert.deepEqual(parseCliArguments(['check', 'p.ts', '-c', 's.json']), {
      command: 'check',
      programPath: 'p.ts',
      configPath: 's.json',
      typeCheck: 'calls',
    })
    assert.deepEqual(parseCliArguments(['types']), { command: 'types' })
    assert.deepEqual(parseCliArguments(['list', '--max-sdk-chars', '100']), { command: 'list', maxSdkChars: 100 })
    assert.deepEqual(parseCliArguments(['--help']), { command: 'help', isRequested: true })
    assert.deepEqual(parseCliArguments(['-v']), { command: 'version' })
  })

  it('takes the NATS connection options with --nats only, a client certificate with its key', () => {
    const serve = parseCliArguments([
      'serve',
      '--nats',
      'tls://n:4222',
      '--nats-creds',
      'u.creds',
      '--nats-ca',
      'ca.pem',
      '--nats-cert',
      'c.pem',
      '--nats-key',
      'k.pem',
      '--nats-inbox-prefix',
      '_INBOX.team',
    ])
    assert.deepEqual(serve.command === 'serve' ? serve.natsConnection : undefined, {
      credsFile: 'u.creds',
      tls: { caFile: 'ca.pem', certFile: 'c.pem', keyFile: 'k.pem' },
      inboxPrefix: '_INBOX.team',
      insecureNoAuth: false,
    })
    const runner = parseCliArguments(['runner', '--nats', 'nats://n:4222', '--insecure-no-auth'])
    assert.deepEqual(runner.command === 'runner' ? runner.natsConnection : undefined, { insecureNoAuth: true })
    assert.match(usageMessage(['run', 'p.ts', '--insecure-no-auth']), /--insecure-no-auth needs --nats/)
    assert.match(
      usageMessage(['serve', '--nats', 'nats://n:4222', '--nats-cert', 'c.pem']),
      /--nats-cert and --nats-key go together/,
    )
    assert.match(usageMessage(['check', 'p.ts', '--nats-creds', 'u.creds']), /--nats-creds is not an option of check/)
  })

  it("takes a runner's per-caller and backend limits only when given, within their bounds", () => {
    const runner = parseCliArguments([
      'runner',
      '--nats',
      'nats://n:4222',
      '--insecure-no-auth',
      '--max-runs-per-caller',
      '2',
      '--max-backends',
      '8',
    ])
    assert.deepEqual(runner.command === 'runner' ? [runner.maxRunsPerCaller, runner.maxBackends] : undefined, [2, 8])
    const plain = parseCliArguments(['runner', '--nats', 'nats://n:4222', '--insecure-no-auth'])
    assert.ok(
      plain.command === 'runner' && !('maxRunsPerCaller' in plain) && !('maxBackends' in plain),
      "the runner's own defaults apply",
    )
    assert.match(usageMessage(['runner', '--nats', 'nats://n:4222', '--max-backends', '257']), /--max-backends/)
    assert.match(
      usageMessage(['runner', '--nats', 'nats://n:4222', '--max-runs-per-caller', '0']),
      /--max-runs-per-caller/,
    )
    assert.match(usageMessage(['serve', '--max-backends', '2']), /--max-backends is not an option of serve/)
  })

  it('takes --no-state on serve only, turning the per-client session off', () => {
    assert.equal((parseCliArguments(['serve', '--no-state']) as { state?: boolean }).state, false)
    assert.match(
      usageMessage(['run', 'p.ts', '--no-state']),
      /--no-state is not an option of run; see code-runtime run --help\.$/,
    )
    assert.match(usageMessage(['repl', '--no-state']), /--no-state is not an option of repl/)
    assert.match(usageMessage(['repl', 'extra']), /repl takes no arguments, got "extra"/)
  })

  it('takes a fractional --timeout-ms, as the backends take a fractional maxWallMs', () => {
    const command = parseCliArguments(['run', 'p.ts', '--timeout-ms', '5000.5'])
    assert.equal(command.command === 'run' ? command.timeoutMs : undefined, 5000.5)
    const serve = parseCliArguments(['serve', '--timeout-ms', '0.5'])
    assert.equal(serve.command === 'serve' ? serve.timeoutMs : undefined, 0.5)
  })

  it('decodes no arguments as the overview shown as a usage error, and help for one command', () => {
    assert.deepEqual(parseCliArguments([]), { command: 'help', isRequested: false })
    assert.deepEqual(parseCliArguments(['help']), { command: 'help', isRequested: true })
    assert.deepEqual(parseCliArguments(['help', 'run']), { command: 'help', topic: 'run', isRequested: true })
    assert.deepEqual(parseCliArguments(['run', '--help']), { command: 'help', topic: 'run', isRequested: true })
    assert.deepEqual(parseCliArguments(['list', '-h']), { command: 'help', topic: 'list', isRequested: true })
    assert.match(usageMessage(['help', 'start']), /unknown command "start"/)
    assert.match(usageMessage(['help', 'run', '--config', 's.json']), /--config is not an option of help/)
  })

  it('takes --compute-ms on run and serve, and only there', () => {
    assert.deepEqual(parseCliArguments(['run', 'p.ts', '--compute-ms', '250']), {
      command: 'run',
      programPath: 'p.ts',
      backend: DEFAULT_BACKEND,
      backendChosen: false,
      timeoutMs: DEFAULT_RUN_TIMEOUT_MS,
      computeMs: 250,
      typeCheck: 'calls',
      allowAll: false,
    })
    assert.equal((parseCliArguments(['serve', '--compute-ms', '9']) as { computeMs?: number }).computeMs, 9)
    assert.match(
      usageMessage(['list', '--compute-ms', '9']),
      /--compute-ms is not an option of list; see code-runtime list --help\.$/,
    )
    assert.match(
      usageMessage(['run', 'p.ts', '--compute-ms', '0']),
      /--compute-ms must be a finite number greater than 0 and at most 2147483647 \(milliseconds\), got "0"; see code-runtime run --help\.$/,
    )
  })

  it('takes --type-check off, calls or strict on serve and run, calls or strict on check, and nowhere else', () => {
    const typeCheckOf = (argv: string[]): unknown => (parseCliArguments(argv) as { typeCheck?: unknown }).typeCheck
    for (const mode of ['off', 'calls', 'strict']) {
      assert.equal(typeCheckOf(['serve', '--type-check', mode]), mode)
      assert.equal(typeCheckOf(['run', 'p.ts', `--type-check=${mode}`]), mode)
    }
    assert.equal(typeCheckOf(['check', 'p.ts', '--type-check', 'strict']), 'strict')
    assert.match(
      usageMessage(['check', 'p.ts', '--type-check', 'off']),
      /^--type-check must be one of "calls", "strict", got "off"; see code-runtime check --help\.$/,
    )
    assert.match(
      usageMessage(['run', 'p.ts', '--type-check', 'loose']),
      /^--type-check must be one of "off", "calls", "strict", got "loose"; see code-runtime run --help\.$/,
    )
    assert.match(usageMessage(['serve', '--type-check', 'STRICT']), /got "STRICT"; see code-runtime serve --help\.$/)
    assert.match(
      usageMessage(['types', '--type-check', 'strict']),
      /^--type-check is not an option of types; see code-runtime types --help\.$/,
    )
    assert.match(usageMessage(['list', '--type-check', 'calls']), /--type-check is not an option of list/)
  })

  it('takes exactly one program file on check, and only the options a check uses', () => {
    assert.match(
      usageMessage(['check']),
      /^check needs a program file, e\.g\. code-runtime check program\.ts; see code-runtime check --help\.$/,
    )
    assert.match(usageMessage(['check', 'a.ts', 'b.ts']), /check takes one program file, got "b.ts"/)
    for (const option of ['--backend=process', '--timeout-ms=5', '--compute-ms=5', '--max-sdk-chars=5']) {
      assert.match(
        usageMessage(['check', 'a.ts', option]),
        new RegExp(`^${option.replace(/=.*/, '')} is not an option of check`),
      )
    }
    assert.deepEqual(parseCliArguments(['check', '--help']), { command: 'help', topic: 'check', isRequested: true })
  })

  it('says which option lacks its value, in whichever form it was written', () => {
    for (const [argv, option] of [
      [['serve', '--config'], '--config'],
      [['run', 'p.ts', '-c'], '--config'],
      [['run', 'p.ts', '--backend'], '--backend'],
      [['run', 'p.ts', '--timeout-ms'], '--timeout-ms'],
      [['run', 'p.ts', '--compute-ms'], '--compute-ms'],
      [['list', '--max-sdk-chars'], '--max-sdk-chars'],
      [['check', 'p.ts', '--type-check'], '--type-check'],
      [['serve', '--config', '--backend', 'process'], '--config'],
    ] as const) {
      assert.match(
        usageMessage([...argv]),
        new RegExp(`^missing value for ${option}; see code-runtime ${argv[0]} --help\\.$`),
        argv.join(' '),
      )
    }
  })

  it('refuses an out-of-range --max-sdk-chars, showing the text as typed', () => {
    for (const text of ['0', '1.5', '-1', 'many', '2147483648']) {
      assert.match(
        usageMessage(['list', `--max-sdk-chars=${text}`]),
        new RegExp(
          `^--max-sdk-chars must be an integer from 1 to 2147483647, got "${text}"; see code-runtime list --help\\.$`,
        ),
      )
    }
  })

  it('refuses what it does not know, on one line that points to --help', () => {
    assert.match(usageMessage(['--config', 's.json']), /a command is missing/)
    assert.match(usageMessage(['start']), /unknown command "start"/)
    assert.match(usageMessage(['run']), /run needs a program file/)
    assert.match(usageMessage(['run', 'a.ts', 'b.ts']), /one program file, got "b.ts"/)
    assert.match(usageMessage(['serve', '--frobnicate']), /unknown option --frobnicate/)
    assert.match(usageMessage(['types', '--backend', 'process']), /--backend is not an option of types/)
    assert.match(
      usageMessage(['serve', '--backend', 'vm']),
      /--backend must be one of "worker-thread", "process", "container", got "vm"/,
    )
    for (const text of ['0', '0.0', '-5', '1e3', 'Infinity', 'NaN', '2147483648', '5.', '']) {
      assert.match(
        usageMessage(['run', 'a.ts', `--timeout-ms=${text}`]),
        /--timeout-ms must be a finite number greater than 0 and at most 2147483647 \(milliseconds\), got /,
      )
    }
    assert.match(usageMessage(['start']), /see code-runtime --help\.$/)
    assert.match(usageMessage(['serve', '--frobnicate']), /see code-runtime serve --help\.$/)
    for (const argv of [['--config', 's.json'], ['start'], ['serve', '--frobnicate']]) {
      const message = usageMessage(argv)
      assert.doesNotMatch(message, /\n/)
    }
  })
})

describe('parseCliArguments: auth', () => {
  it('decodes login, status and logout with their server and options', () => {
    assert.deepEqual(parseCliArguments(['auth', 'login', 'files', '-c', 's.json', '--no-browser']), {
      command: 'auth',
      action: 'login',
      server: 'files',
      configPath: 's.json',
      isBrowserless: true,
    })
    assert.deepEqual(parseCliArguments(['auth', 'login', 'files', '--callback-port', '8765']), {
      command: 'auth',
      action: 'login',
      server: 'files',
      isBrowserless: false,
      callbackPort: 8765,
    })
    assert.deepEqual(parseCliArguments(['auth', 'login', 'files', 'linear', 'files']), {
      command: 'auth',
      action: 'login',
      server: 'files',
      moreServers: ['linear', 'files'],
      isBrowserless: false,
    })
    assert.deepEqual(parseCliArguments(['auth', 'status']), { command: 'auth', action: 'status', isBrowserless: false })
    assert.deepEqual(parseCliArguments(['auth', 'logout', 'files']), {
      command: 'auth',
      action: 'logout',
      server: 'files',
      isBrowserless: false,
    })
  })

  it('refuses a missing action or server, login options elsewhere, and a port out of range', () => {
    assert.match(usageMessage(['auth']), /auth needs one of login, status, logout; see code-runtime auth --help/)
    assert.match(usageMessage(['auth', 'login']), /auth login needs the server's name in mcpServers/)
    assert.match(usageMessage(['auth', 'logout', 'a', 'b']), /auth logout takes one server, got "b"/)
    assert.match(usageMessage(['auth', 'status', '--no-browser']), /--no-browser is an option of auth login only/)
    assert.match(
      usageMessage(['auth', 'login', 'a', '--callback-port', '70000']),
      /--callback-port must be an integer from 1 to 65535, got "70000"/,
    )
    assert.match(usageMessage(['auth', 'login', 'a', '--backend', 'process']), /--backend is not an option of auth/)
  })
})

describe('parseCliArguments: serve --http', () => {
  const serveOf = (argv: string[]): Extract<ReturnType<typeof parseCliArguments>, { command: 'serve' }> => {
    const decoded = parseCliArguments(argv)
    assert.equal(decoded.command, 'serve')
    return decoded as Extract<ReturnType<typeof parseCliArguments>, { command: 'serve' }>
  }
  const refusal = (argv: string[]): string => {
    try {
      parseCliArguments(argv)
    } catch (error) {
      assert.ok(McpProxyError.is(error))
      return error.message
    }
    assert.fail(`accepted: ${argv.join(' ')}`)
  }

  it('decodes where to listen, who may call and the grace period', () => {
    const decoded = serveOf(['serve', '--http', '8080', '--auth-keys', 'team.keys', '--grace-ms', '2000'])
    assert.deepEqual(decoded.http, {
      listen: { host: '127.0.0.1', port: 8080, isLoopback: true },
      auth: { kind: 'keys', keysFile: 'team.keys' },
      insecureNoAuth: false,
      auditValues: false,
    })
    assert.equal(decoded.graceMs, 2000)
    assert.equal(serveOf(['serve']).http, undefined)
  })

  it("takes --insecure-no-auth as the listener's with --http, and as the NATS connection's with --nats", () => {
    const open = serveOf(['serve', '--http', '0.0.0.0:8080', '--insecure-no-auth'])
    assert.equal(open.http?.insecureNoAuth, true)
    assert.equal(open.natsConnection, undefined)
    const nats = serveOf(['serve', '--http', '8080', '--nats', 'nats://127.0.0.1:4222', '--insecure-no-auth'])
    assert.equal(nats.natsConnection?.insecureNoAuth, true)
    assert.equal(nats.http?.insecureNoAuth, false)
  })

  it('refuses the HTTP options without --http', () => {
    assert.match(refusal(['serve', '--auth-keys', 'k']), /--auth-keys needs --http/)
    assert.match(refusal(['serve', '--grace-ms', '100']), /--grace-ms needs --http/)
    assert.match(refusal(['run', 'p.ts', '--http', '1']), /--http is not an option of run/)
  })
})
