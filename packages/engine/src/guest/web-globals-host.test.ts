import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import {
  createWebGlobalsHost,
  MAX_URL_HOST_LENGTH,
  MAX_URL_INPUT_LENGTH,
  urlHostLengthBound,
} from './web-globals-host.js'

describe('web globals host: URL parsing bounds', () => {
  it('bounds the host the URL parser would read, generously', () => {
    const cases: [string, number][] = [
      ['https://example.com/a/b?c#d', 11],
      ['http://user:pw@example.com:8080/', 16],
      ['  http://ex\tample.com', 11],
      ['HTTP:example.com', 11],
      ['http:\\\\\\example.com', 11],
      ['//other.host/p', 10],
      ['mailto:' + 'x'.repeat(5000), 0],
      ['data:text/plain,' + 'x'.repeat(5000), 0],
      ['/just/a/path', 0],
      ['relative', 0],
      ['foo://opaque.host/x', 11],
      ['foo:opaque', 0],
      ['http://a.com#' + 'x'.repeat(5000), 5],
    ]
    for (const [input, expected] of cases) assert.equal(urlHostLengthBound(input), expected, input)
  })

  // Punycode is quadratic in a label's length: a host of many distinct non-ASCII characters froze
  // the thread in native code for seconds to minutes.
  it('refuses a host or an input longer than the limits before parsing them', () => {
    const host = createWebGlobalsHost()
    let label = ''
    for (let index = 0; index < MAX_URL_HOST_LENGTH + 1; index++) label += String.fromCodePoint(0x4e00 + index)
    const refusedHost = JSON.parse(host.parseUrl(`http://${label}/`, undefined) ?? 'null') as { refused?: string }
    assert.match(
      refusedHost.refused ?? '',
      /^Invalid URL: its host has 1025 characters, more than this sandbox parses \(at most 1024\)\.$/,
    )
    const refusedBase = JSON.parse(host.parseUrl('/p', `http://${label}/`) ?? 'null') as { refused?: string }
    assert.match(refusedBase.refused ?? '', /its host has 1025 characters/)
    const long = JSON.parse(host.parseUrl(`http://a.com/${'x'.repeat(MAX_URL_INPUT_LENGTH)}`, undefined) ?? 'null') as {
      refused?: string
    }
    assert.match(long.refused ?? '', /^Invalid URL: 2097165 characters is more than this sandbox parses/)
    const fine = JSON.parse(host.parseUrl(`http://${label.slice(1)}/${'x'.repeat(100_000)}`, undefined) ?? 'null') as {
      hostname?: string
    }
    assert.match(fine.hostname ?? '', /^xn--/)
  })
})

describe('web globals host: URL setters', () => {
  const components = (json: string | undefined): Record<string, string> | undefined =>
    json === undefined ? undefined : (JSON.parse(json) as Record<string, string>)

  it("applies a setter on this realm's URL and answers every component", () => {
    const host = createWebGlobalsHost()
    const url = new URL('http://u:p@a.test:81/p?q=1#h')
    url.hostname = 'münchen.de'
    assert.deepEqual(components(host.updateUrl('http://u:p@a.test:81/p?q=1#h', 'hostname', 'münchen.de')), {
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
    assert.equal(components(host.updateUrl('http://a/', 'search', 'x y'))?.href, 'http://a/?x%20y')
  })

  it('answers nothing when the URL stays as it was', () => {
    const host = createWebGlobalsHost()
    // The setter does nothing (no port on file:, a special scheme kept special), or the href is not a URL.
    assert.equal(host.updateUrl('file:///x', 'port', '81'), undefined)
    assert.equal(host.updateUrl('http://a/', 'protocol', 'foo'), undefined)
    assert.equal(host.updateUrl('nope', 'hash', 'x'), undefined)
  })

  it('takes strings and the nine setters only, and runs no code of the caller', () => {
    const host = createWebGlobalsHost()
    let conversions = 0
    const sneaky = {
      toString: () => {
        conversions++
        return 'x'
      },
    } as unknown as string
    const answers = [
      host.updateUrl(sneaky, 'hash', 'x'),
      host.updateUrl('http://a/', sneaky as never, 'x'),
      host.updateUrl('http://a/', 'hash', sneaky),
      host.updateUrl('http://a/', 'href' as never, 'http://b/'),
      host.updateUrl('http://a/', '__proto__' as never, 'x'),
      host.updateUrl('http://a/', 'toString' as never, 'x'),
    ]
    assert.deepEqual(answers, [undefined, undefined, undefined, undefined, undefined, undefined])
    assert.equal(conversions, 0)
  })

  // The same bounds as a parse: a setter is as much a run of the native parser as `new URL`.
  it('refuses a value, a host or a result longer than the parse limits', () => {
    const host = createWebGlobalsHost()
    let label = ''
    for (let index = 0; index < MAX_URL_HOST_LENGTH + 1; index++) label += String.fromCodePoint(0x4e00 + index)
    assert.equal(host.updateUrl('http://a/', 'hostname', label), undefined)
    assert.equal(host.updateUrl('http://a/', 'host', `${label}:81`), undefined)
    // Only the host part of the value counts; what follows it is not read by the host setter.
    assert.equal(
      components(host.updateUrl('http://a/', 'host', `${'h'.repeat(MAX_URL_HOST_LENGTH)}/${'x'.repeat(5000)}`))
        ?.hostname,
      'h'.repeat(MAX_URL_HOST_LENGTH),
    )
    assert.equal(host.updateUrl('http://a/', 'hash', 'x'.repeat(MAX_URL_INPUT_LENGTH + 1)), undefined)
    assert.equal(
      host.updateUrl(`http://a/${'x'.repeat(MAX_URL_INPUT_LENGTH - 12)}`, 'hash', 'x'.repeat(100)),
      undefined,
    )
    assert.equal(
      components(host.updateUrl(`http://a/${'x'.repeat(MAX_URL_INPUT_LENGTH - 200)}`, 'hash', 'x'.repeat(100)))?.hash,
      `#${'x'.repeat(100)}`,
    )
  })

  // WHATWG has no URL whose href does not parse back as itself; Node 20 and 22 can leave one
  // ('foo://:81/p'), and there the setter does nothing.
  it('leaves a URL unchanged where the setter would make its href unparsable', () => {
    assert.equal(createWebGlobalsHost().updateUrl('foo://h/p', 'host', ':81'), undefined)
  })
})
