import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import vm from 'node:vm'
import {
  asNode20Does,
  createGlobalsContext,
  seededRandom,
  summarizeThrown,
  SUMMARIZE_THROWN_SOURCE,
} from './web-globals.test.harness.js'

const COMPONENTS = [
  'href',
  'origin',
  'protocol',
  'username',
  'password',
  'host',
  'hostname',
  'port',
  'pathname',
  'search',
  'hash',
] as const

/** Source of a function (both realms) reading every component of a URL and its live searchParams. */
const READ_URL_SOURCE = `(url, params) => [${COMPONENTS.map(name => `url.${name}`).join(', ')}, params === undefined ? null : params.toString(), url.toString(), url.toJSON()]`
const readUrlHere = vm.runInThisContext(READ_URL_SOURCE) as (url: URL, params?: URLSearchParams) => unknown[]

const PARSE_CORPUS: [string, string?][] = [
  ['https://example.com'],
  ['HTTPS://EXAMPLE.COM:443/a/../b/./c?x#y'],
  ['http://user:pa ss@host:8080/p?q=1#f'],
  ['http://[::1]:80/'],
  ['http://[2001:db8::1]/'],
  ['http://192.168.0.1.'],
  ['http://0x7f.1/'],
  ['http://münchen.de/ä?ö#ü'],
  ['http://xn--mnchen-3ya.de'],
  ['http://EXAMPLE.com./'],
  ['file:///C:/x'],
  ['file://host/share'],
  ['file:/etc/passwd'],
  ['file://localhost/x'],
  ['data:text/plain,hi there'],
  ['mailto:a@b.c'],
  ['javascript:alert(1)'],
  ['blob:https://a.com/uuid'],
  ['ws://a:80'],
  ['wss://a:443'],
  ['ftp://a:21'],
  ['foo://h:1/p'],
  ['foo:/p'],
  ['foo:opaque path '],
  ['about:blank'],
  ['http://a/ %20 <>"`{}|\\^'],
  ['http://a/?q=a b<>"\'#f g'],
  ['  http://a/  '],
  ['ht\ttp://a\n/'],
  ['http://a/\ud800'],
  ['foo://ü/'],
  ['sc://ñ.test/'],
  ['http://a/p;x?y'],
  ['web+demo:/.//not-a-host/'],
  ['../x', 'http://a/b/c/d'],
  ['./x?y', 'http://a/b/'],
  ['//other/p', 'https://a/b'],
  ['?q', 'http://a/b?c#d'],
  ['#h', 'http://a/b?c'],
  ['', 'http://a/b?c#d'],
  ['/abs', 'file:///C:/dir/file'],
  ['x', 'foo:/a/b'],
  ['\\\\x\\y', 'http://a/'],
  ['..', 'http://a/b/c'],
  ['x', 'data:text/plain,hi'],
  ['?x', 'foo:opaque'],
  ['http://'],
  ['http://a b/'],
  ['nope'],
  ['http://[::1'],
  ['http://a:99999'],
  ['https://a:b:c/'],
  ['http://%zz/'],
  [''],
  ['a', 'nope'],
  ['http://exa mple.com'],
  ['x', 'foo:opaque'],
  ['http://a/', 'invalid base'],
  ['//x'],
]

const SETTER_URLS = [
  'http://user:pw@example.com:8080/a/b?c=1&d=2#frag',
  'https://example.com/',
  'http://example.com',
  'file:///C:/dir/file.txt',
  'file://host/share/x',
  'foo://h:1/p?q#f',
  'foo:/p',
  'foo:opaque?x#y',
  'data:text/plain,hi',
  'http://[::1]:81/',
  'ws://a/',
  'http://a/?',
  'http://a/#',
  'foo://h',
  'foo:///x',
  'data:space ?q#f',
  'web+demo:/.//not-a-host/',
  'foo://u:p@h:9/x',
  'file://localhost/x',
]
const SETTER_COMPONENTS = [
  'protocol',
  'username',
  'password',
  'host',
  'hostname',
  'port',
  'pathname',
  'search',
  'hash',
  'href',
] as const
const SETTER_VALUES = [
  '',
  'x',
  'https',
  'http:',
  'file',
  'foo',
  'ws:',
  'a b',
  ' x ',
  'x\t\ny',
  '?',
  '#',
  '??a=b',
  '##h',
  '/p/q',
  'p/q',
  '//p',
  '\\p',
  'h:81',
  'h:',
  ':81',
  '[::1]:90',
  'user@h',
  'é',
  '%41',
  '8080',
  '0080',
  '65536',
  '80',
  '443',
  '8a',
  'münchen.de',
  '\u0000',
  'a\u0000',
  'x ',
  '\ud800',
  'a:b@c',
  'h/p',
  'h?q',
  'h#f',
  'EXAMPLE.org',
  '1.2.3.4',
  '[::2]',
  'x%20y',
  'q=1&r=2',
  '  ',
  'http://other.test/p?q#h',
  'https://a:1',
  'sc:x',
  '\\\\server\\share',
]

describe('URL', () => {
  it('parses a corpus of absolute, relative, special, opaque, unicode and invalid URLs as Node does', () => {
    const { runJson } = createGlobalsContext()
    const actual = runJson(`{
      const read = ${READ_URL_SOURCE}
      const summarize = ${SUMMARIZE_THROWN_SOURCE}
      JSON.parse(${JSON.stringify(JSON.stringify(PARSE_CORPUS))}).map(([input, base]) => {
        const parsed = (() => { try { return read(base === undefined ? new URL(input) : new URL(input, base)) } catch (error) { return { ...summarize(error), input: error.input } } })()
        return [parsed, URL.canParse(input, base), URL.parse(input, base) === null]
      })
    }`)
    const expected = PARSE_CORPUS.map(([input, base]) => {
      let parsed: unknown
      try {
        parsed = readUrlHere(new URL(input, base))
      } catch (error) {
        parsed = { ...summarizeThrown(error), input: (error as { input?: unknown }).input }
      }
      const parse = (URL as unknown as { parse(input: string, base?: string): URL | null }).parse
      return [parsed, URL.canParse(input, base), parse(input, base) === null]
    })
    PARSE_CORPUS.forEach((entry, index) =>
      assert.deepEqual(
        (actual as unknown[])[index],
        JSON.parse(JSON.stringify(expected[index])),
        JSON.stringify(entry),
      ),
    )
  })

  it('applies every setter to every kind of URL exactly as Node does, searchParams included', () => {
    const { runJson } = createGlobalsContext()
    const actual = runJson(`{
      const read = ${READ_URL_SOURCE}
      const summarize = ${SUMMARIZE_THROWN_SOURCE}
      const results = []
      for (const href of ${JSON.stringify(SETTER_URLS)}) {
        for (const component of ${JSON.stringify(SETTER_COMPONENTS)}) {
          for (const value of JSON.parse(${JSON.stringify(JSON.stringify(SETTER_VALUES))})) {
            const url = new URL(href)
            const params = url.searchParams
            try { url[component] = value; results.push(read(url, params)) } catch (error) { results.push(summarize(error)) }
          }
        }
      }
      results
    }`) as unknown[]
    let index = 0
    const mismatches: string[] = []
    const unrepresentable: string[] = []
    // The sandbox's setters run on the worker realm's own URL, so they give the running Node's
    // answers, on every Node (Node 24's host and port setters follow newer WHATWG rules than
    // Node 20's: a program sees whichever its host has).
    for (const href of SETTER_URLS) {
      for (const component of SETTER_COMPONENTS) {
        for (const value of SETTER_VALUES) {
          const url = new URL(href)
          const params = url.searchParams
          let expected: unknown
          try {
            url[component] = value
            expected = readUrlHere(url, params)
            // Node's parser can leave a URL whose href does not parse back (such as an empty
            // host with a port, 'foo://:81/p'); WHATWG says no URL is in that state, and here
            // the setter leaves the URL as it was.
            if (!URL.canParse(url.href) || new URL(url.href).href !== url.href) {
              unrepresentable.push(`${href} .${component} = ${JSON.stringify(value)}`)
              const original = new URL(href)
              expected = readUrlHere(original, original.searchParams)
            }
          } catch (error) {
            expected = summarizeThrown(error)
          }
          const got = actual[index++]
          if (JSON.stringify(got) === JSON.stringify(expected)) continue
          mismatches.push(
            `${href} .${component} = ${JSON.stringify(value)}: got ${JSON.stringify(got)}, Node ${JSON.stringify(expected)}`,
          )
        }
      }
    }
    // Node 20 and 22 leave these URLs unparsable; Node 24 refuses the setter, as WHATWG does.
    const nodeLeavesUnparsable =
      new URL('foo://h').host !==
      (() => {
        const url = new URL('foo://h')
        url.host = ':81'
        return url.host
      })()
    assert.deepEqual(
      unrepresentable,
      nodeLeavesUnparsable
        ? ['foo://h:1/p?q#f .host = ":81"', 'foo://h .host = ":81"', 'foo://u:p@h:9/x .host = ":81"']
        : [],
    )
    assert.deepEqual(mismatches, [])
  })

  it('keeps searchParams live in both directions', () => {
    const { runJson } = createGlobalsContext()
    const script = `{
      const url = new URL('http://a/p?x=1&y=2#frag')
      const params = url.searchParams
      const steps = []
      params.append('z', 'é ü'); steps.push(url.href)
      params.delete('x'); steps.push(url.href)
      params.set('y', '+'); steps.push(url.href)
      params.sort(); steps.push(url.href)
      params.delete('y'); params.delete('z'); steps.push(url.href, url.search)
      url.search = '?b=2&a=1'; steps.push(params.toString(), url.searchParams === params)
      url.href = 'http://other/?q=%20'; steps.push(params.get('q'), params.size)
      url.hash = 'h'; url.pathname = 'np'; steps.push(params.toString(), url.href)
      url.search = ''; steps.push(params.size, url.href)
      const bare = new URL('foo:opaque  ?q#f'); bare.searchParams.delete('q'); steps.push(bare.href)
      steps
    }`
    assert.deepEqual(runJson(script), vm.runInThisContext(script))
  })

  it('validates arguments and receivers with Node codes and a context TypeError', () => {
    const { runJson } = createGlobalsContext()
    const actual = runJson(`{
      const summarize = ${SUMMARIZE_THROWN_SOURCE}
      const attempt = (action) => { try { return action() } catch (error) { return { ...summarize(error), isTypeError: error instanceof TypeError } } }
      ;[attempt(() => new URL()), attempt(() => new URL('nope')), attempt(() => { new URL('http://a/').href = 'nope' }), attempt(() => URL.canParse()),
        attempt(() => URL()), attempt(() => Object.getOwnPropertyDescriptor(URL.prototype, 'href').get.call({})), URL.length, URL.canParse.length,
        Object.prototype.toString.call(new URL('http://a/')), JSON.stringify({ url: new URL('http://a/b') }), String(new URL('http://a/c'))]
    }`)
    assert.deepEqual(actual, [
      {
        threw: true,
        name: 'TypeError',
        message: 'The "url" argument must be specified',
        code: 'ERR_MISSING_ARGS',
        isTypeError: true,
      },
      { threw: true, name: 'TypeError', message: 'Invalid URL', code: 'ERR_INVALID_URL', isTypeError: true },
      { threw: true, name: 'TypeError', message: 'Invalid URL', code: 'ERR_INVALID_URL', isTypeError: true },
      {
        threw: true,
        name: 'TypeError',
        message: 'The "url" argument must be specified',
        code: 'ERR_MISSING_ARGS',
        isTypeError: true,
      },
      {
        threw: true,
        name: 'TypeError',
        message: "Class constructor URL cannot be invoked without 'new'",
        isTypeError: true,
      },
      { threw: true, name: 'TypeError', message: 'Receiver must be an instance of class URL', isTypeError: true },
      1,
      1,
      '[object URL]',
      '{"url":"http://a/b"}',
      'http://a/c',
    ])
  })
})

describe('URLSearchParams', () => {
  const QUERIES = [
    '',
    '?',
    '?a=b',
    'a=b&c=d',
    'a=b=c',
    '&&a&=b&c=',
    '+a+=+b+',
    '%20%2B%zz%',
    '%ff%fe%c3%a9%e2%82',
    'é=ü',
    '\ud800=x',
    'a=%F0%9F%98%80',
    '??a',
    '=',
    '&',
    'a&a&a',
    '%',
    '%2',
    ' a b ',
    'a=1&a=2&b=3',
    '%41%4a%6b',
    'x=%C0%AF',
    'q=100%',
    'emoji=😀&\ud83d=lone',
  ]

  it('parses and serializes query strings as Node does', () => {
    const { runJson } = createGlobalsContext()
    const script = `JSON.parse(${JSON.stringify(JSON.stringify(QUERIES))}).map((query) => { const params = new URLSearchParams(query); return [[...params], params.toString(), params.size] })`
    assert.deepEqual(runJson(script), JSON.parse(JSON.stringify(vm.runInThisContext(script))))
  })

  it('builds from pairs, iterables, records and another instance, and refuses bad input, as Node does', () => {
    const inits = [
      "[['a', '1'], ['b', '2']]",
      "new Set([['s', 'et']])",
      "(function* () { yield ['g', 'en']; yield new Set(['x', 'y']) })()",
      "new Map([['m', 'ap']])",
      "({ b: 1, a: 2, [Symbol('s')]: 3 })",
      "Object.defineProperty({ v: 1 }, 'hidden', { value: 2 })",
      "({ '\\ud800': 'first', '\\udc00': 'second', later: 3 })",
      "new URLSearchParams('copy=1&copy=2')",
      '5',
      'null',
      'undefined',
      "'?q=1'",
      '[[1]]',
      '[1]',
      '({ [Symbol.iterator]: 5 })',
      "[['a', 'b', 'c']]",
      '[null]',
      "['ab']",
      "({ [Symbol('enumerable')]: 1, __proto__: null })",
      "[{ 0: 'a', 1: 'b', length: 2 }]",
      "Object.assign(() => {}, { fn: 'record' })",
    ]
    const script = `{
      const summarize = ${SUMMARIZE_THROWN_SOURCE}
      ;[${inits.map(init => `(() => { try { return new URLSearchParams(${init}).toString() } catch (error) { return summarize(error) } })()`).join(', ')}]
    }`
    const { runJson } = createGlobalsContext()
    const here = asNode20Does('URLSearchParams construction', () =>
      inits.map(init => {
        try {
          return String(vm.runInThisContext(`new URLSearchParams(${init})`))
        } catch (error) {
          return summarizeThrown(error)
        }
      }),
    )
    assert.deepEqual(runJson(script), here)
  })

  it('follows Node through a random sequence of mutations', () => {
    const random = seededRandom(11)
    const names = ['a', 'b', 'c', 'é', '\ud800', 'a b', '😀', '\uffff']
    const operations: string[] = []
    for (let index = 0; index < 400; index++) {
      const name = JSON.stringify(names[Math.floor(random() * names.length)])
      const value = JSON.stringify(String(Math.floor(random() * 4)))
      const choice = random()
      if (choice < 0.35) operations.push(`params.append(${name}, ${value})`)
      else if (choice < 0.5) operations.push(`params.delete(${name})`)
      else if (choice < 0.6) operations.push(`params.delete(${name}, ${value})`)
      else if (choice < 0.8) operations.push(`params.set(${name}, ${value})`)
      else operations.push('params.sort()')
    }
    const script = `{
      const params = new URLSearchParams('start=0')
      const trace = []
      ${operations.map(operation => `${operation}; trace.push([params.toString(), params.size, params.getAll(${JSON.stringify(names[0])}), params.get('b'), params.has('c'), params.has('c', '1')])`).join('\n')}
      trace
    }`
    const { runJson } = createGlobalsContext()
    assert.deepEqual(runJson(script), JSON.parse(JSON.stringify(vm.runInThisContext(script))))
  })

  it('iterates live, forEach included, as Node does', () => {
    const script = `{
      const out = []
      const params = new URLSearchParams('a=1&b=2&c=3')
      const keys = params.keys()
      out.push(keys.next())
      params.delete('a')
      out.push(keys.next(), [...params.values()], [...params.entries()], [...params], params[Symbol.iterator] === params.entries)
      let added = false
      params.forEach(function (value, name, self) { out.push([value, name, self === params, this.tag]); if (!added) { added = true; params.append('d', '4') } }, { tag: 'this' })
      out.push(Object.prototype.toString.call(keys), Object.getOwnPropertyNames(Object.getPrototypeOf(keys)), keys[Symbol.iterator]() === keys)
      out.push([...keys], keys.next())
      out
    }`
    const { runJson } = createGlobalsContext()
    assert.deepEqual(runJson(script), JSON.parse(JSON.stringify(vm.runInThisContext(script))))
  })

  it('validates arguments and receivers as Node does', () => {
    const calls = [
      'new URLSearchParams().append("a")',
      'new URLSearchParams().get()',
      'new URLSearchParams().getAll()',
      'new URLSearchParams().has()',
      'new URLSearchParams().delete()',
      'new URLSearchParams().set("a")',
      'new URLSearchParams().forEach(5)',
      'URLSearchParams.prototype.get.call({}, "a")',
      'new URLSearchParams().keys().next.call({})',
      'Object.getOwnPropertyDescriptor(URLSearchParams.prototype, "size").get.call({})',
      'URLSearchParams.prototype.toString.call(new URL("http://a/"))',
    ]
    const script = (summarize: string): string => `{
      const summarize = ${summarize}
      ;[${calls.map(call => `(() => { try { return ${call} } catch (error) { return summarize(error) } })()`).join(', ')},
        URLSearchParams.length, URLSearchParams.prototype.append.length, URLSearchParams.prototype.delete.length, URLSearchParams.prototype.has.length, URLSearchParams.prototype.forEach.length,
        Object.prototype.toString.call(new URLSearchParams())]
    }`
    const { runJson } = createGlobalsContext()
    const summarizeHere = `(${summarizeThrown.toString()})`
    assert.deepEqual(
      runJson(script(SUMMARIZE_THROWN_SOURCE)),
      JSON.parse(JSON.stringify(vm.runInThisContext(script(summarizeHere)))),
    )
  })
})

describe('URL and URLSearchParams shape', () => {
  it('shows the same enumerable members and tags as Node', () => {
    const script = `[URL.prototype, URLSearchParams.prototype, TextEncoder.prototype, TextDecoder.prototype].map((prototype) =>
      Object.getOwnPropertyNames(prototype).map((name) => name + ':' + Object.getOwnPropertyDescriptor(prototype, name).enumerable).sort().join(' ') + ' ' + prototype[Symbol.toStringTag])
      .concat([['canParse', 'parse'].map((name) => typeof URL[name]).join()])`
    const { runJson } = createGlobalsContext()
    assert.deepEqual(runJson(script), vm.runInThisContext(script))
  })
})
