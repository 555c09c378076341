import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createWebGlobalsHost, MAX_URL_HOST_LENGTH, MAX_URL_INPUT_LENGTH, urlHostLengthBound } from './web-globals-host.js'

describe('web globals host: URL parsing bounds', () => {
  it('bounds the host the URL parser would read, generously', () => {
    const cases: [string, number][] = [
      ['https://example.com/a/b?c#d', 11], ['http://user:pw@example.com:8080/', 16], ['  http://ex\tample.com', 11], ['HTTP:example.com', 11],
      ['http:\\\\\\example.com', 11], ['//other.host/p', 10], ['mailto:' + 'x'.repeat(5000), 0], ['data:text/plain,' + 'x'.repeat(5000), 0],
      ['/just/a/path', 0], ['relative', 0], ['foo://opaque.host/x', 11], ['foo:opaque', 0], ['http://a.com#' + 'x'.repeat(5000), 5],
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
    assert.match(refusedHost.refused ?? '', /^Invalid URL: its host has 1025 characters, more than this sandbox parses \(at most 1024\)\.$/)
    const refusedBase = JSON.parse(host.parseUrl('/p', `http://${label}/`) ?? 'null') as { refused?: string }
    assert.match(refusedBase.refused ?? '', /its host has 1025 characters/)
    const long = JSON.parse(host.parseUrl(`http://a.com/${'x'.repeat(MAX_URL_INPUT_LENGTH)}`, undefined) ?? 'null') as { refused?: string }
    assert.match(long.refused ?? '', /^Invalid URL: 2097165 characters is more than this sandbox parses/)
    const fine = JSON.parse(host.parseUrl(`http://${label.slice(1)}/${'x'.repeat(100_000)}`, undefined) ?? 'null') as { hostname?: string }
    assert.match(fine.hostname ?? '', /^xn--/)
  })
})
