import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import ts from 'typescript'
import vm from 'node:vm'
import { createWebGlobals } from './web-globals.js'
import { createWebGlobalsHost } from '../web-globals-host.js'
import { compileContextScript } from '../context-script.js'
import { contextScriptTexts } from '../context-scripts.generated.js'
import type { capturePrimordials } from '../primordials.js'
import {
  asNode20Does,
  createGlobalsContext,
  randomByteArrays,
  randomStrings,
  summarizeThrown,
  SUMMARIZE_THROWN_SOURCE,
  type ThrownSummary,
} from './web-globals.test.harness.js'

const hex = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')

/** Node's outcome of `action`: its value, or a summary of what it threw. */
function nodeOutcome<Value>(action: () => Value): Value | ThrownSummary {
  try {
    return action()
  } catch (error) {
    return summarizeThrown(error)
  }
}

describe('in-context scripts', () => {
  // Each built script is evaluated alone inside the context, so any name it does not define
  // itself must be an ECMAScript global; a Node global or a host helper would be a latent
  // ReferenceError on a path the tests happen not to take (the build checks the same with a
  // fresh context's own list).
  for (const [filename, text] of Object.entries(contextScriptTexts)) {
    it(`${filename} refers only to ECMAScript built-ins and runs in strict mode`, () => {
      const fileName = 'in-context-source.js'
      const source = `const script = ${text};\n`
      const options: ts.CompilerOptions = {
        allowJs: true,
        checkJs: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        lib: ['lib.es2023.d.ts'],
        types: [],
      }
      const compilerHost = ts.createCompilerHost(options)
      const readSourceFile = compilerHost.getSourceFile.bind(compilerHost)
      compilerHost.getSourceFile = (name, languageVersion, ...rest) =>
        name === fileName
          ? ts.createSourceFile(name, source, languageVersion)
          : readSourceFile(name, languageVersion, ...rest)
      const program = ts.createProgram([fileName], options, compilerHost)
      const unknownNames = program
        .getSemanticDiagnostics(program.getSourceFile(fileName))
        .map(diagnostic => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
        .filter(message => message.includes('Cannot find name'))
      // Names newer than the library this check knows, which the scripts test for with `typeof`.
      const newer = /Cannot find name '(Float16Array|Iterator)'/
      assert.deepEqual(
        unknownNames.filter(message => !newer.test(message)),
        [],
      )
      assert.match(text, /^\(function \(\) \{\n'use strict';/)
    })
  }
})

describe('web globals scripts', () => {
  // The families take every built-in from the primordials: once those are captured, the
  // context's globals may be gone (as the program may make them) and the families still build.
  it('builds every family from the primordials alone, reading no global of the context', () => {
    const context = vm.createContext(Object.create(null) as object, { codeGeneration: { strings: false, wasm: false } })
    const primordials = compileContextScript<typeof capturePrimordials>('code-runtime:primordials').runIn(context)()
    const removed = vm.runInContext(
      `{
      const global = globalThis, { ownKeys, getOwnPropertyDescriptor, deleteProperty } = Reflect
      const saved = Object.create(null)
      const names = ownKeys(global)
      for (let index = 0; index < names.length; index++) {
        const descriptor = getOwnPropertyDescriptor(global, names[index])
        if (descriptor.configurable) { saved[names[index]] = descriptor; deleteProperty(global, names[index]) }
      }
      saved
    }`,
      context,
    ) as Record<string, PropertyDescriptor>
    assert.ok(Object.keys(removed).length > 40, 'the globals were removed')
    const globals = createWebGlobals(context, primordials, createWebGlobalsHost())
    const url = new globals.URL('http://a/p?q=1')
    url.searchParams.append('r', 'é')
    assert.equal(url.href, 'http://a/p?q=1&r=%C3%A9')
    assert.equal(globals.atob(globals.btoa('hi')), 'hi')
  })
})

describe('createWebGlobals', () => {
  // Outside the program's stack-trace filter (which hides them from the program), the runtime's
  // own stacks say which family an error came from.
  it("names each family's script in the stacks of the errors it throws", () => {
    const { run } = createGlobalsContext()
    const stacks = run(`[
      () => new TextDecoder('latin1'), () => atob('*'), () => structuredClone(() => 1), () => URLSearchParams.prototype.get.call({}),
      () => new URL('nope'), () => crypto.getRandomValues(new Float32Array(1)),
    ].map((action) => { try { action() } catch (error) { return error.stack } })`) as string[]
    const families = ['text-codec', 'base64', 'structured-clone', 'url-search-params', 'url', 'crypto']
    families.forEach((family, index) =>
      assert.match(stacks[index] ?? '', new RegExp(`\\(code-runtime:globals/${family}:\\d+:\\d+\\)`), family),
    )
  })

  it('returns exactly the eight web globals', () => {
    const { runJson } = createGlobalsContext()
    const names = runJson(
      `['TextEncoder', 'TextDecoder', 'atob', 'btoa', 'structuredClone', 'URL', 'URLSearchParams', 'crypto'].map((name) => typeof globalThis[name])`,
    )
    assert.deepEqual(names, [
      'function',
      'function',
      'function',
      'function',
      'function',
      'function',
      'function',
      'object',
    ])
  })
})

describe('createWebGlobalsHost', () => {
  it('answers with primitives only and never throws, whatever it is given', () => {
    const host = createWebGlobalsHost()
    let conversions = 0
    const sneaky = {
      toString: () => {
        conversions++
        return 'http://a/'
      },
    }
    const answers: unknown[] = [
      host.randomBytesHex(-1),
      host.randomBytesHex(65537),
      host.randomBytesHex(1.5),
      host.randomBytesHex('3' as unknown as number),
      host.randomBytesHex(0),
      host.parseUrl('nope', undefined),
      host.parseUrl(sneaky as unknown as string, undefined),
      host.parseUrl('x', sneaky as unknown as string),
      host.parseUrl('a', 'nope'),
    ]
    assert.deepEqual(answers, ['', '', '', '', '', undefined, undefined, undefined, undefined])
    assert.equal(conversions, 0)
    assert.match(host.randomBytesHex(65536), /^[0-9a-f]{131072}$/)
    assert.match(host.randomUUID(), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })

  it('reports every URL component as a string, as Node URL has them', () => {
    const json = createWebGlobalsHost().parseUrl('../c?d=1#e', 'https://user:pw@EXAMPLE.com:8443/a/b')
    const url = new URL('../c?d=1#e', 'https://user:pw@EXAMPLE.com:8443/a/b')
    assert.deepEqual(JSON.parse(json ?? 'null'), {
      href: url.href,
      origin: url.origin,
      protocol: url.protocol,
      username: url.username,
      password: url.password,
      host: url.host,
      hostname: url.hostname,
      port: url.port,
      pathname: url.pathname,
      search: url.search,
      hash: url.hash,
    })
  })
})

describe('TextEncoder', () => {
  it('encodes random strings with lone surrogates exactly as Node does', () => {
    const { runJson } = createGlobalsContext()
    const strings = randomStrings(400, 40, 1)
    const encoder = new TextEncoder()
    const actual = runJson(
      `JSON.parse(${JSON.stringify(JSON.stringify(strings))}).map((text) => Array.from(new TextEncoder().encode(text), (byte) => byte.toString(16).padStart(2, '0')).join(''))`,
    )
    assert.deepEqual(
      actual,
      strings.map(text => hex(encoder.encode(text))),
    )
  })

  it('encodes a large string (1 MiB of mixed text) as Node does', () => {
    const { runJson } = createGlobalsContext()
    const text = randomStrings(1, 0, 2)[0] + randomStrings(20000, 100, 3).join('')
    const actual = runJson(
      `{ const bytes = new TextEncoder().encode(${JSON.stringify(text)}); let sum = 0; for (const byte of bytes) sum = (sum * 31 + byte) % 1000000007; [bytes.length, sum] }`,
    )
    const bytes = new TextEncoder().encode(text)
    let sum = 0
    for (const byte of bytes) sum = (sum * 31 + byte) % 1000000007
    assert.deepEqual(actual, [bytes.length, sum])
  })

  it('encodes into buffers of every small size as Node does', () => {
    const { runJson } = createGlobalsContext()
    const strings = [...randomStrings(60, 8, 4), 'a€😀b', '\ud800x', '😀']
    const encoder = new TextEncoder()
    const expected: unknown[] = []
    for (const text of strings) {
      for (let size = 0; size <= 10; size++) {
        const target = new Uint8Array(size)
        const { read, written } = encoder.encodeInto(text, target)
        expected.push([read, written, hex(target)])
      }
    }
    const actual = runJson(`{
      const out = []
      for (const text of JSON.parse(${JSON.stringify(JSON.stringify(strings))})) {
        for (let size = 0; size <= 10; size++) {
          const target = new Uint8Array(size)
          const { read, written } = new TextEncoder().encodeInto(text, target)
          out.push([read, written, Array.from(target, (byte) => byte.toString(16).padStart(2, '0')).join('')])
        }
      }
      out
    }`)
    assert.deepEqual(actual, expected)
  })

  it('converts its input as Node does and refuses bad arguments with Node codes', () => {
    const { runJson } = createGlobalsContext()
    const actual = runJson(`{
      const summarize = ${SUMMARIZE_THROWN_SOURCE}
      const attempt = (action) => { try { return action() } catch (error) { return summarize(error) } }
      const encoder = new TextEncoder()
      ;[
        encoder.encoding, Array.from(encoder.encode()), Array.from(encoder.encode(undefined)), Array.from(encoder.encode(null)), Array.from(encoder.encode(12)),
        attempt(() => encoder.encodeInto(5, new Uint8Array(2))), attempt(() => encoder.encodeInto('a', [])), attempt(() => encoder.encodeInto('a')),
        attempt(() => TextEncoder.prototype.encode.call({}, 'a')), attempt(() => TextEncoder()), Object.prototype.toString.call(encoder),
      ]
    }`)
    const encoder = new TextEncoder()
    const expected = [
      encoder.encoding,
      Array.from(encoder.encode()),
      Array.from(encoder.encode(undefined)),
      Array.from(encoder.encode(null as unknown as string)),
      Array.from(encoder.encode(12 as unknown as string)),
      nodeOutcome(() => encoder.encodeInto(5 as unknown as string, new Uint8Array(2))),
      nodeOutcome(() => encoder.encodeInto('a', [] as unknown as Uint8Array)),
      nodeOutcome(() => (encoder.encodeInto as (source: string) => unknown)('a')),
      nodeOutcome(() => TextEncoder.prototype.encode.call({} as InstanceType<typeof TextEncoder>, 'a')),
      { threw: true, name: 'TypeError', message: "Class constructor TextEncoder cannot be invoked without 'new'" },
      Object.prototype.toString.call(encoder),
    ]
    assert.deepEqual(actual, JSON.parse(JSON.stringify(expected)))
  })
})

describe('TextDecoder', () => {
  const decodeCases = (bytesList: number[][]): unknown[] => {
    const expected: unknown[] = []
    for (const bytes of bytesList) {
      const input = new Uint8Array(bytes)
      expected.push([
        new TextDecoder().decode(input),
        new TextDecoder('utf-8', { ignoreBOM: true }).decode(input),
        nodeOutcome(() => new TextDecoder('utf-8', { fatal: true }).decode(input)),
      ])
    }
    return expected
  }
  const contextDecodeCases = (bytesList: number[][]): string => `{
    const summarize = ${SUMMARIZE_THROWN_SOURCE}
    JSON.parse(${JSON.stringify(JSON.stringify(bytesList))}).map((bytes) => {
      const input = new Uint8Array(bytes)
      let fatal
      try { fatal = new TextDecoder('utf-8', { fatal: true }).decode(input) } catch (error) { fatal = summarize(error) }
      return [new TextDecoder().decode(input), new TextDecoder('utf-8', { ignoreBOM: true }).decode(input), fatal]
    })
  }`

  it('decodes invalid and truncated UTF-8 with the replacement character exactly as Node does', () => {
    const { runJson } = createGlobalsContext()
    const handPicked = [
      [],
      [0x80],
      [0xbf],
      [0xc0, 0x80],
      [0xc1, 0xbf],
      [0xc2],
      [0xc2, 0x41],
      [0xe0, 0x80, 0x80],
      [0xe0, 0xa0],
      [0xed, 0xa0, 0x80],
      [0xed, 0x9f, 0xbf],
      [0xef, 0xbf, 0xbf],
      [0xf0, 0x8f, 0xbf, 0xbf],
      [0xf0, 0x90, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xf5, 0x80],
      [0xff, 0xfe, 0x41],
      [0xef, 0xbb, 0xbf],
      [0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, 0x41],
      [0xef, 0xbb],
      [0xf0, 0x9f, 0x98, 0x80],
      [0xf0, 0x9f, 0x98],
      [0xe2, 0x82, 0xac, 0xe2, 0x82],
      [0x41, 0xc3],
      [0xc3, 0xc3, 0xa9],
    ]
    const corpus = [...handPicked, ...randomByteArrays(600, 12, 5)]
    assert.deepEqual(runJson(contextDecodeCases(corpus)), decodeCases(corpus))
  })

  it('round-trips random strings through encode and decode as Node does', () => {
    const { runJson } = createGlobalsContext()
    const strings = randomStrings(300, 30, 6)
    const actual = runJson(
      `JSON.parse(${JSON.stringify(JSON.stringify(strings))}).map((text) => new TextDecoder().decode(new TextEncoder().encode(text)))`,
    )
    assert.deepEqual(
      actual,
      strings.map(text => new TextDecoder().decode(new TextEncoder().encode(text))),
    )
  })

  it('decodes a stream split at every kind of boundary as Node does, BOM included', () => {
    const { runJson } = createGlobalsContext()
    const corpus = [[0xef, 0xbb, 0xbf, 0x41, 0xef, 0xbb, 0xbf], ...randomByteArrays(200, 14, 7)]
    const splits = corpus.map((bytes, index) =>
      [(index * 7) % (bytes.length + 1), (index * 3) % (bytes.length + 1)].sort((a, b) => a - b),
    )
    const expected = corpus.map((bytes, index) => {
      const [first, second] = splits[index] as [number, number]
      const decoder = new TextDecoder()
      const fatal = new TextDecoder('utf-8', { fatal: true })
      const input = new Uint8Array(bytes)
      const parts = [input.subarray(0, first), input.subarray(first, second), input.subarray(second)]
      const streamed =
        decoder.decode(parts[0], { stream: true }) +
        decoder.decode(parts[1], { stream: true }) +
        decoder.decode(parts[2])
      const fatalOutcome = nodeOutcome(
        () =>
          fatal.decode(parts[0], { stream: true }) + fatal.decode(parts[1], { stream: true }) + fatal.decode(parts[2]),
      )
      // After a stream ends, the same decoder starts afresh (the BOM is stripped again).
      return [streamed, fatalOutcome, decoder.decode(input)]
    })
    const actual = runJson(`{
      const summarize = ${SUMMARIZE_THROWN_SOURCE}
      const splits = ${JSON.stringify(splits)}
      JSON.parse(${JSON.stringify(JSON.stringify(corpus))}).map((bytes, index) => {
        const [first, second] = splits[index]
        const decoder = new TextDecoder()
        const fatal = new TextDecoder('utf-8', { fatal: true })
        const input = new Uint8Array(bytes)
        const parts = [input.subarray(0, first), input.subarray(first, second), input.subarray(second)]
        const streamed = decoder.decode(parts[0], { stream: true }) + decoder.decode(parts[1], { stream: true }) + decoder.decode(parts[2])
        let fatalOutcome
        try { fatalOutcome = fatal.decode(parts[0], { stream: true }) + fatal.decode(parts[1], { stream: true }) + fatal.decode(parts[2]) } catch (error) { fatalOutcome = summarize(error) }
        return [streamed, fatalOutcome, decoder.decode(input)]
      })
    }`)
    assert.deepEqual(actual, JSON.parse(JSON.stringify(expected)))
  })

  it('reads ArrayBuffers, SharedArrayBuffers, DataViews and typed array views at their offsets', () => {
    const { runJson } = createGlobalsContext()
    const actual = runJson(`{
      const bytes = new TextEncoder().encode('hello, wörld')
      const shared = new SharedArrayBuffer(3); new Uint8Array(shared).set([0x61, 0x62, 0x63])
      const decoder = new TextDecoder()
      ;[decoder.decode(bytes.buffer), decoder.decode(new DataView(bytes.buffer, 7)), decoder.decode(bytes.subarray(2, 5)),
        decoder.decode(new Uint16Array(bytes.buffer, 0, 2)), decoder.decode(shared), decoder.decode(), decoder.decode(undefined, { stream: true })]
    }`)
    assert.deepEqual(actual, ['hello, wörld', 'wörld', 'llo', 'hell', 'abc', '', ''])
  })

  it('accepts the UTF-8 labels and refuses other encodings, options and inputs as Node does', () => {
    const { runJson } = createGlobalsContext()
    const labels = [
      'utf-8',
      'UTF8',
      ' unicode-1-1-utf-8\n',
      'unicode11utf8',
      'unicode20utf8',
      'x-unicode20utf8',
      'utf-16x',
      'null',
      'utf 8',
    ]
    const actual = runJson(`{
      const summarize = ${SUMMARIZE_THROWN_SOURCE}
      const attempt = (action) => { try { return action() } catch (error) { return summarize(error) } }
      ;[
        ...${JSON.stringify(labels)}.map((label) => attempt(() => new TextDecoder(label).encoding)),
        attempt(() => new TextDecoder(null)), attempt(() => new TextDecoder(undefined).encoding), attempt(() => new TextDecoder('utf-8', 5)),
        attempt(() => new TextDecoder('utf-8', null).fatal), attempt(() => [new TextDecoder('utf-8', { fatal: 1, ignoreBOM: 'yes' }).fatal, new TextDecoder('utf8', { fatal: 1, ignoreBOM: 'yes' }).ignoreBOM]),
        attempt(() => new TextDecoder().decode('abc')), attempt(() => new TextDecoder().decode(null)), attempt(() => new TextDecoder().decode(new Uint8Array([0xff]), 5)),
        attempt(() => TextDecoder.prototype.decode.call({}, new Uint8Array(1))), attempt(() => TextDecoder.prototype.encoding),
        Object.prototype.toString.call(new TextDecoder()),
      ]
    }`)
    const outcome = (action: () => unknown): unknown => nodeOutcome(action)
    const decoderOptions = { fatal: 1, ignoreBOM: 'yes' } as unknown as ConstructorParameters<typeof TextDecoder>[1]
    const expected = asNode20Does('TextDecoder labels and options', () => [
      ...labels.map(label => outcome(() => new TextDecoder(label).encoding)),
      outcome(() => new TextDecoder(null as unknown as string)),
      outcome(() => new TextDecoder(undefined).encoding),
      outcome(() => new TextDecoder('utf-8', 5 as unknown as ConstructorParameters<typeof TextDecoder>[1])),
      outcome(() => new TextDecoder('utf-8', null as unknown as ConstructorParameters<typeof TextDecoder>[1]).fatal),
      outcome(() => [
        new TextDecoder('utf-8', decoderOptions).fatal,
        new TextDecoder('utf8', decoderOptions).ignoreBOM,
      ]),
      outcome(() => new TextDecoder().decode('abc' as unknown as Uint8Array)),
      outcome(() => new TextDecoder().decode(null as unknown as Uint8Array)),
      outcome(() =>
        new TextDecoder().decode(
          new Uint8Array([0xff]),
          5 as unknown as Parameters<InstanceType<typeof TextDecoder>['decode']>[1],
        ),
      ),
      outcome(() => TextDecoder.prototype.decode.call({} as InstanceType<typeof TextDecoder>, new Uint8Array(1))),
      outcome(() => TextDecoder.prototype.encoding),
      Object.prototype.toString.call(new TextDecoder()),
    ])
    assert.deepEqual(actual, expected)
  })
})

describe('atob and btoa', () => {
  const base64Corpus = (): string[] => {
    const handPicked = [
      '',
      'a',
      'ab',
      'abc',
      'abcd',
      '=',
      '==',
      '===',
      'ab=',
      'ab==',
      'abc=',
      'abc==',
      'ab=c',
      'a===',
      'ab= =',
      ' a b\tc\nd ',
      '\fYQ==\r',
      'YQ',
      'YR==',
      'YQ=',
      '*',
      'é',
      'ab\u0100c',
      'aGVsbG8gd29ybGQ=',
      'aGVsbG8gd29ybGQ',
      'aGVs\u000bbG8=',
      '/+/+',
      '-_-_',
      'abcd=',
      'abcde',
      'abcde=',
      'abcdef==',
      'Zm9v\u00a0',
    ]
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=  \t\n=='
    const random = randomStrings(1, 0, 8)
    let seed = 9
    for (let index = 0; index < 400; index++) {
      let text = ''
      const length = (seed = (seed * 1103515245 + 12345) % 2147483648) % 13
      for (let position = 0; position < length; position++) {
        seed = (seed * 1103515245 + 12345) % 2147483648
        text += alphabet[seed % alphabet.length] as string
      }
      random.push(text)
    }
    for (let index = 0; index < 50; index++) {
      const bytes = Buffer.alloc(index * 3 + (index % 3), index * 37)
      random.push(bytes.toString('base64'), bytes.toString('base64').replace(/=+$/, ''))
    }
    return [...handPicked, ...random]
  }

  it('decodes forgiving-base64 exactly as Node does, errors included', () => {
    const { runJson } = createGlobalsContext()
    const corpus = base64Corpus()
    const actual = runJson(`{
      const summarize = ${SUMMARIZE_THROWN_SOURCE}
      JSON.parse(${JSON.stringify(JSON.stringify(corpus))}).map((text) => { try { return atob(text) } catch (error) { return summarize(error) } })
    }`)
    const expected = corpus.map(text => nodeOutcome(() => atob(text)))
    assert.deepEqual(actual, JSON.parse(JSON.stringify(expected)))
  })

  it('encodes Latin-1 strings as Node does and refuses wider characters', () => {
    const { runJson } = createGlobalsContext()
    const corpus = [
      ...randomStrings(200, 20, 10).map(text =>
        Array.from(text, character => String.fromCharCode((character.codePointAt(0) as number) % 256)).join(''),
      ),
      '\u0100',
      'a\u20ac',
      '\ud800',
      '',
    ]
    const actual = runJson(`{
      const summarize = ${SUMMARIZE_THROWN_SOURCE}
      JSON.parse(${JSON.stringify(JSON.stringify(corpus))}).map((text) => { try { return btoa(text) } catch (error) { return summarize(error) } })
    }`)
    assert.deepEqual(actual, JSON.parse(JSON.stringify(corpus.map(text => nodeOutcome(() => btoa(text))))))
  })

  it('converts arguments as Node does', () => {
    const { runJson } = createGlobalsContext()
    const actual = runJson(`{
      const summarize = ${SUMMARIZE_THROWN_SOURCE}
      const attempt = (action) => { try { return action() } catch (error) { return summarize(error) } }
      ;[attempt(() => atob()), attempt(() => atob(undefined)), attempt(() => atob(null)), attempt(() => btoa()), attempt(() => btoa(null)), attempt(() => btoa(12)), attempt(() => atob({ toString: () => 'YQ==' })), atob.length, btoa.length]
    }`)
    const call = (action: () => unknown): unknown => nodeOutcome(action)
    const expected = [
      call(() => (atob as () => string)()),
      call(() => atob(undefined as unknown as string)),
      call(() => atob(null as unknown as string)),
      call(() => (btoa as () => string)()),
      call(() => btoa(null as unknown as string)),
      call(() => btoa(12 as unknown as string)),
      call(() => atob({ toString: () => 'YQ==' } as unknown as string)),
      atob.length,
      btoa.length,
    ]
    assert.deepEqual(actual, JSON.parse(JSON.stringify(expected)))
  })

  it('throws InvalidCharacterError as an Error of the context with code 5', () => {
    const { runJson } = createGlobalsContext()
    const actual = runJson(
      `{ let caught; try { atob('*') } catch (error) { caught = error } [caught instanceof Error, caught.name, caught.code, caught.message, Object.getPrototypeOf(caught.constructor) === Error] }`,
    )
    assert.deepEqual(actual, [true, 'InvalidCharacterError', 5, 'Invalid character', true])
  })
})

describe('crypto', () => {
  it('fills every integer typed array in place and returns the same array', () => {
    const { runJson } = createGlobalsContext()
    const actual = runJson(`
      ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'BigInt64Array', 'BigUint64Array'].map((name) => {
        const array = new globalThis[name](16)
        const returned = crypto.getRandomValues(array)
        return [name, returned === array, array.some((value) => value != 0)]
      })`)
    for (const [name, same, nonZero] of actual as [string, boolean, boolean][]) {
      assert.equal(same, true, name)
      assert.equal(nonZero, true, name)
    }
  })

  it('fills only the bytes of a view, at its offset', () => {
    const { runJson } = createGlobalsContext()
    const actual = runJson(`{
      const buffer = new ArrayBuffer(32)
      let touchedInside = false
      for (let round = 0; round < 4; round++) {
        crypto.getRandomValues(new Uint16Array(buffer, 8, 8))
        touchedInside ||= new Uint8Array(buffer, 8, 16).some((byte) => byte !== 0)
      }
      const outside = [...new Uint8Array(buffer, 0, 8), ...new Uint8Array(buffer, 24, 8)]
      ;[touchedInside, outside.every((byte) => byte === 0)]
    }`)
    assert.deepEqual(actual, [true, true])
  })

  it('refuses non-integer arrays and more than 65536 bytes with Node names and messages', () => {
    const { runJson } = createGlobalsContext()
    const actual = runJson(`{
      const summarize = ${SUMMARIZE_THROWN_SOURCE}
      const attempt = (action) => { try { const value = action(); return value === undefined ? 'ok' : typeof value } catch (error) { return { ...summarize(error), isError: error instanceof Error } } }
      ;[attempt(() => crypto.getRandomValues(new Float32Array(1))), attempt(() => crypto.getRandomValues(new Float64Array(1))), attempt(() => crypto.getRandomValues(new DataView(new ArrayBuffer(1)))),
        attempt(() => crypto.getRandomValues([1, 2])), attempt(() => crypto.getRandomValues(new Uint8Array(65537))), attempt(() => crypto.getRandomValues(new Uint32Array(16385))),
        attempt(() => crypto.getRandomValues(new Uint8Array(65536))), attempt(() => crypto.getRandomValues())]
    }`)
    const byNode = (action: () => unknown): unknown => {
      try {
        action()
        return 'object'
      } catch (error) {
        return { ...summarizeThrown(error), isError: error instanceof Error }
      }
    }
    const expected = [
      byNode(() => crypto.getRandomValues(new Float32Array(1) as unknown as Uint8Array)),
      byNode(() => crypto.getRandomValues(new Float64Array(1) as unknown as Uint8Array)),
      byNode(() => crypto.getRandomValues(new DataView(new ArrayBuffer(1)) as unknown as Uint8Array)),
      byNode(() => crypto.getRandomValues([1, 2] as unknown as Uint8Array)),
      byNode(() => crypto.getRandomValues(new Uint8Array(65537))),
      byNode(() => crypto.getRandomValues(new Uint32Array(16385))),
      byNode(() => crypto.getRandomValues(new Uint8Array(65536))),
      byNode(() => (crypto.getRandomValues as () => unknown)()),
    ]
    assert.deepEqual(actual, JSON.parse(JSON.stringify(expected)))
  })

  it('makes distinct version 4 UUIDs', () => {
    const { runJson } = createGlobalsContext()
    const uuids = runJson('Array.from({ length: 200 }, () => crypto.randomUUID())') as string[]
    for (const uuid of uuids)
      assert.match(uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    assert.equal(new Set(uuids).size, uuids.length)
  })

  it('is a frozen object tagged Crypto', () => {
    const { runJson } = createGlobalsContext()
    const actual = runJson(
      `[Object.isFrozen(crypto), Object.prototype.toString.call(crypto), Object.keys(crypto), (() => { 'use strict'; try { crypto.randomUUID = null; return 'assigned' } catch (error) { return error instanceof TypeError } })()]`,
    )
    assert.deepEqual(actual, [true, '[object Crypto]', ['getRandomValues', 'randomUUID'], true])
  })
})
