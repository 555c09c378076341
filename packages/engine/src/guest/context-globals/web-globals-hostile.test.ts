import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { WebGlobalsHost } from './web-globals.js'
import { createGlobalsContext } from './web-globals.test.harness.js'
import { createWebGlobalsHost } from '../web-globals-host.js'

/**
 * Program text that walks every object reachable from the web globals and from values they
 * produce (prototypes, property values, getters, setters; never calling a getter) and names each
 * one whose prototype chain does not end at this context's Object.prototype: such an object
 * would belong to another realm, which is an escape. A null-prototype object (such as
 * Array.prototype[Symbol.unscopables]) has no chain to climb; its properties are still walked.
 */
const FOREIGN_OBJECTS_SOURCE = `(roots) => {
  const seen = new Set()
  const stack = [...roots]
  const foreign = []
  while (stack.length > 0) {
    const value = stack.pop()
    if ((typeof value !== 'object' && typeof value !== 'function') || value === null || seen.has(value)) continue
    seen.add(value)
    let top = value
    for (let prototype = Object.getPrototypeOf(value); prototype !== null; prototype = Object.getPrototypeOf(prototype)) top = prototype
    if (top !== Object.prototype && top !== value) foreign.push(typeof value === 'function' ? 'function ' + value.name : Object.prototype.toString.call(value))
    stack.push(Object.getPrototypeOf(value))
    for (const key of Reflect.ownKeys(value)) {
      const descriptor = Reflect.getOwnPropertyDescriptor(value, key)
      stack.push(descriptor.value, descriptor.get, descriptor.set)
    }
  }
  return { foreign, count: seen.size }
}`

/** Errors of every API, thrown in the context; each run returns the caught values. */
const CAUGHT_ERRORS_SOURCE = `[
  () => atob('*'), () => btoa('\\u0100'), () => atob(), () => new URL('nope'), () => new URL(), () => { new URL('http://a/').href = 'x' },
  () => URL.canParse(), () => structuredClone(() => 1), () => structuredClone(), () => structuredClone(new WeakMap()),
  () => crypto.getRandomValues(new Float32Array(1)), () => crypto.getRandomValues(new Uint8Array(70000)), () => crypto.getRandomValues(),
  () => new TextDecoder('latin1'), () => new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xff])), () => new TextDecoder().decode(5),
  () => new TextEncoder().encodeInto(1), () => new URLSearchParams([[1]]), () => URLSearchParams.prototype.get.call({}), () => new URLSearchParams().append('a'),
  () => new URLSearchParams().keys().next.call({}), () => Object.getOwnPropertyDescriptor(URL.prototype, 'href').get.call({}), () => TextEncoder.prototype.encode.call(1),
  () => crypto.randomUUID(), () => crypto.getRandomValues(new Uint8Array(4)), () => new URL('http://a/b'), () => URL.canParse('http://a/'),
].map((action) => { try { action(); return undefined } catch (error) { return error } })`

/** Checks, in the context, that a caught value is an error of this context whose constructors cannot compile code. */
const ERROR_CHECK_SOURCE = `(error) => {
  if (error === undefined) return 'none'
  let compiles
  try { error.constructor.constructor('return 1'); compiles = 'compiled' } catch (failure) { compiles = failure instanceof EvalError ? 'EvalError' : 'other' }
  return [error instanceof Error, Object.getPrototypeOf(error.constructor) === Function.prototype || Object.getPrototypeOf(error.constructor) === Error, compiles, typeof error.name, typeof error.message].join(',')
}`

describe('web globals against a hostile program', () => {
  // The escape this guards against: a worker-realm function reachable from the program gives
  // `f.constructor.constructor('return process')()`.
  it('reach no object of another realm from any global, prototype, method, instance or result', () => {
    const { run, runJson } = createGlobalsContext()
    const outcome = runJson(`{
      const find = ${FOREIGN_OBJECTS_SOURCE}
      const url = new URL('http://u:p@a:1/p?x=1#h')
      const params = url.searchParams
      const roots = [TextEncoder, TextDecoder, atob, btoa, structuredClone, URL, URLSearchParams, crypto,
        new TextEncoder(), new TextDecoder(), new TextEncoder().encode('x'), new TextEncoder().encodeInto('x', new Uint8Array(1)), url, params,
        params.keys(), params.entries().next(), params.getAll('x'), structuredClone({ a: [new Map([[1, new Set([new Date()])]]), /x/g, new Error('e', { cause: 1 })] }),
        crypto.getRandomValues(new Uint8Array(2)), ...${CAUGHT_ERRORS_SOURCE}]
      find(roots)
    }`) as { foreign: string[]; count: number }
    assert.deepEqual(outcome.foreign, [])
    assert.ok(outcome.count > 200, `walked ${outcome.count} objects`)
    // The walk does see another realm's object when one is there.
    const control = (run(`(${FOREIGN_OBJECTS_SOURCE})`) as (roots: unknown[]) => { foreign: string[] })([
      { leaked: () => 1 },
    ])
    assert.ok(control.foreign.includes('function leaked'))
  })

  // The primordials are the web globals' only view of the built-ins: a program holding them could
  // change what every global does, so none of its values may lead there.
  it('never lets the program reach or change the primordials', () => {
    const { run, primordials } = createGlobalsContext()
    const reaches = run(`(roots, target) => {
      const seen = new Set()
      const stack = [...roots]
      while (stack.length > 0) {
        const value = stack.pop()
        if ((typeof value !== 'object' && typeof value !== 'function') || value === null || seen.has(value)) continue
        seen.add(value)
        stack.push(Object.getPrototypeOf(value))
        for (const key of Reflect.ownKeys(value)) {
          const descriptor = Reflect.getOwnPropertyDescriptor(value, key)
          stack.push(descriptor.value, descriptor.get, descriptor.set)
        }
      }
      return [seen.has(target), seen.size]
    }`) as (roots: unknown[], target: unknown) => [boolean, number]
    const url = run(`new URL('http://u:p@a:1/p?x=1#h')`) as URL
    const roots = [
      run('globalThis'),
      url,
      url.searchParams,
      url.searchParams.keys(),
      ...(run(CAUGHT_ERRORS_SOURCE) as unknown[]),
    ]
    const [reached, count] = reaches(roots, primordials)
    assert.equal(reached, false)
    assert.ok(count > 200, `walked ${count} objects`)
    assert.equal(Object.isFrozen(primordials), true)
    assert.equal(Object.getPrototypeOf(primordials), null)
    assert.throws(() => {
      ;(primordials as unknown as Record<string, unknown>).charCodeAt = () => 0
    }, TypeError)
  })

  it('gives every exported function and method the context Function.prototype', () => {
    const { runJson } = createGlobalsContext()
    const wrong = runJson(`{
      const functions = [atob, btoa, structuredClone, crypto.getRandomValues, crypto.randomUUID, URL.canParse, URL.parse]
      for (const owner of [TextEncoder, TextDecoder, URL, URLSearchParams]) {
        functions.push(owner)
        for (const key of Reflect.ownKeys(owner.prototype)) {
          const descriptor = Object.getOwnPropertyDescriptor(owner.prototype, key)
          for (const part of [descriptor.value, descriptor.get, descriptor.set]) if (typeof part === 'function') functions.push(part)
        }
      }
      functions.push(Object.getPrototypeOf(new URLSearchParams().keys()).next)
      const wrong = functions.filter((fn) => Object.getPrototypeOf(fn) !== Function.prototype).map((fn) => fn.name)
      ;[wrong, functions.length]
    }`) as [string[], number]
    assert.deepEqual(wrong[0], [])
    assert.ok(wrong[1] > 60)
  })

  it('throws only errors of the context, whose constructors cannot compile code', () => {
    const { runJson } = createGlobalsContext()
    const checks = runJson(`{ const check = ${ERROR_CHECK_SOURCE}; ${CAUGHT_ERRORS_SOURCE}.map(check) }`) as string[]
    const thrown = checks.slice(0, 23)
    for (const [index, check] of thrown.entries())
      assert.equal(check, 'true,true,EvalError,string,string', `action ${index}`)
    assert.deepEqual(checks.slice(23), ['none', 'none', 'none', 'none'])
  })

  // A host failure must surface as a fresh error of the context: the caught worker-realm error
  // (or anything reachable from it) would be an escape.
  it('never lets a throwing host leak its error into the context', () => {
    const hostError = Object.assign(new Error('secret host failure'), { leaked: true })
    const throwingHost: WebGlobalsHost = {
      randomBytesHex: () => {
        throw hostError
      },
      randomUUID: () => {
        throw hostError
      },
      parseUrl: () => {
        throw hostError
      },
      updateUrl: () => {
        throw hostError
      },
    }
    const { runJson } = createGlobalsContext(throwingHost)
    const checks = runJson(`{
      const check = ${ERROR_CHECK_SOURCE}
      ;[() => crypto.getRandomValues(new Uint8Array(4)), () => crypto.randomUUID(), () => new URL('http://a/'), () => URL.canParse('http://a/'), () => URL.parse('x')]
        .map((action) => { try { action(); return 'no error' } catch (error) { return [check(error), error.leaked === undefined, String(error.message).includes('secret')] } })
    }`)
    assert.deepEqual(checks, Array(5).fill(['true,true,EvalError,string,string', true, false]))
  })

  it('refuses malformed host answers with errors of the context', () => {
    const answers: unknown[][] = [
      [{}, 'not-a-uuid', '{'],
      ['zz', 'AAAAAAAA-AAAA-4AAA-8AAA-AAAAAAAAAAAA', '[]'],
      [12, 12, '{"href": 1}'],
      ['', { length: 36 }, { href: 'http://a/' }],
    ]
    for (const [bytes, uuid, url] of answers) {
      const host = {
        randomBytesHex: () => bytes,
        randomUUID: () => uuid,
        parseUrl: () => url,
        updateUrl: () => url,
      } as unknown as WebGlobalsHost
      const { runJson } = createGlobalsContext(host)
      const checks = runJson(`{
        const check = ${ERROR_CHECK_SOURCE}
        ;[() => crypto.getRandomValues(new Uint8Array(4)), () => crypto.randomUUID(), () => new URL('http://a/')]
          .map((action) => { try { const value = action(); return 'returned ' + typeof value } catch (error) { return check(error) } })
      }`)
      assert.deepEqual(checks, Array(3).fill('true,true,EvalError,string,string'), JSON.stringify([bytes, uuid, url]))
    }
  })

  // A setter's answer crosses the same boundary as a parse: a throwing or malformed answer must
  // become an error of the context, never the host's value.
  it('refuses a throwing or malformed setter answer with errors of the context', () => {
    const hostError = new Error('secret host failure')
    const answers: unknown[] = [
      () => {
        throw hostError
      },
      () => '{',
      () => '[]',
      () => '{"href": 1}',
      () => ({ href: 'http://a/' }),
      () => 5,
    ]
    for (const answer of answers) {
      const host: WebGlobalsHost = { ...createWebGlobalsHost(), updateUrl: answer as WebGlobalsHost['updateUrl'] }
      const { runJson } = createGlobalsContext(host)
      const checks = runJson(`{
        const check = ${ERROR_CHECK_SOURCE}
        const url = new URL('http://a/p?q=1')
        ;[() => { url.pathname = 'x' }, () => { url.search = 'r=2' }, () => url.searchParams.append('z', '1')]
          .map((action) => { try { action(); return 'no error' } catch (error) { return [check(error), String(error.message).includes('secret')] } })
          .concat([url.href])
      }`)
      assert.deepEqual(
        checks,
        [...Array(3).fill(['true,true,EvalError,string,string', false]), 'http://a/p?q=1'],
        String(answer),
      )
    }
  })

  // Poisoned intrinsics: a program replaces or traps the globals and prototype methods the web
  // globals might use; every result must stay the same and no trap may fire.
  it('gives the same results after the program poisons Object, Array, Map, Reflect, JSON, typed arrays and more', () => {
    const setup = `
      globalThis.__trapLog = ''
      globalThis.__results = Object.create(null)
      globalThis.__inputs = {
        text: 'hé€😀\\ud800', target: new Uint8Array(7), bytes: new Uint8Array([0xef, 0xbb, 0xbf, 104, 0xc3, 0xa9, 0xff, 0xf0, 0x9f, 0x98, 0x80, 0xe2]),
        base64: ' aGVs bG8= ', latin1: 'hi\\u00ff', relative: '../x?a=1#h', base: 'http://u:p@h:81/a/b', record: { b: '2', a: '1', 'a b': 'é' },
        cloneSource: (() => { const value = { list: [1, , { deep: new Map([[{ k: 1 }, new Set(['s'])]]) }], date: new Date(5), regexp: /x/gi, error: new TypeError('t', { cause: 'c' }),
          bytes: new Uint16Array([1, 2, 3]), view: new DataView(new ArrayBuffer(4), 1), boxed: Object('str'), ['__proto__']: 0 }; value.self = value; return value })(),
        randomTarget: new Uint32Array(4), fn: () => 1, plainBuffer: new ArrayBuffer(4),
      }`
    const poison = `{
      const { defineProperty, getOwnPropertyDescriptor, getPrototypeOf, setPrototypeOf } = Object
      const saved = setPrototypeOf([], null)
      // Defined first, so a poisoner that fails halfway can still be undone. Undone in order,
      // Object.prototype first: redefining a global while Object.prototype has planted 'get' or
      // 'value' accessors aborts the whole process in Node 20 (a vm interceptor bug).
      globalThis.__restore = () => {
        for (let index = 0; index < saved.length; index++) {
          const entry = saved[index]
          if (entry[2] === undefined) { delete entry[0][entry[1]]; continue }
          setPrototypeOf(entry[2], null)
          defineProperty(entry[0], entry[1], entry[2])
        }
      }

      // Index loops only: the poisoner replaces the array iterator as it goes.
      const each = (list, action) => { for (let index = 0; index < list.length; index++) action(list[index]) }
      const ErrorConstructor = Error, StringConstructor = String
      const trap = (name) => function () { globalThis.__trapLog += name + ';'; throw new ErrorConstructor('poisoned ' + name) }
      // The poisoner's own descriptors and records have null prototypes, or its own traps would fire.
      const poison = (target, key, descriptor) => { saved[saved.length] = setPrototypeOf([target, key, getOwnPropertyDescriptor(target, key)], null); defineProperty(target, key, descriptor) }
      const value = (target, key) => poison(target, key, { __proto__: null, value: trap(StringConstructor(key)), writable: true, configurable: true })
      const accessor = (target, key) => poison(target, key, { __proto__: null, get: trap('get ' + StringConstructor(key)), set: trap('set ' + StringConstructor(key)), configurable: true })
      const ObjectPrototype = Object.prototype, ArrayPrototype = Array.prototype, TypedArrayPrototype = getPrototypeOf(Uint8Array.prototype)
      const ArrayIteratorPrototype = getPrototypeOf([][Symbol.iterator]())
      const keys = ['0', '1', '2', '3', 'length', 'value', 'writable', 'enumerable', 'configurable', 'get', 'set', 'name', 'message', 'code', 'stack', 'cause', 'units', 'codePoint',
        'flag', 'done', 'read', 'written', 'maxByteLength', 'kind', 'items', 'index', 'source', 'target', 'pendingKey', 'href', 'search', 'path', 'query', 'fragment', 'text',
        'needed', 'seen', 'lower', 'upper', 'beforePath', 'hasAuthority', 'hasOpaquePath', '__proto__', 'constructor', 'toString', 'valueOf', 'then', 'toJSON']
      each(keys, (key) => accessor(ObjectPrototype, key))
      each(['0', '1', '2', '3'], (key) => accessor(ArrayPrototype, key))
      each(['push', 'pop', 'join', 'map', 'sort', 'slice', 'splice', 'indexOf', 'concat', 'forEach', 'includes', 'fill', Symbol.iterator], (key) => value(ArrayPrototype, key))
      value(ArrayIteratorPrototype, 'next')
      each(['get', 'set', 'has', 'forEach', 'delete', 'entries', Symbol.iterator], (key) => value(Map.prototype, key))
      accessor(Map.prototype, 'size')
      each(['add', 'has', 'forEach', Symbol.iterator], (key) => value(Set.prototype, key))
      accessor(Set.prototype, 'size')
      value(WeakMap.prototype, 'has'); value(WeakSet.prototype, 'has')
      each(['charCodeAt', 'slice', 'indexOf', 'toLowerCase', 'codePointAt', 'split', 'replace', 'padStart', 'valueOf', Symbol.iterator], (key) => value(String.prototype, key))
      value(String, 'fromCharCode')
      each(['call', 'apply', 'bind', 'toString'], (key) => value(Function.prototype, key))
      each(['apply', 'construct', 'ownKeys', 'getOwnPropertyDescriptor', 'defineProperty', 'deleteProperty', 'getPrototypeOf'], (key) => value(Reflect, key))
      value(JSON, 'parse'); value(JSON, 'stringify')
      each(['length', 'byteLength', 'byteOffset', 'buffer', Symbol.toStringTag], (key) => accessor(TypedArrayPrototype, key))
      each(['set', 'subarray', 'slice', 'fill'], (key) => value(TypedArrayPrototype, key))
      accessor(ArrayBuffer.prototype, 'byteLength'); value(ArrayBuffer.prototype, 'slice'); value(ArrayBuffer, 'isView')
      each(['buffer', 'byteLength', 'byteOffset'], (key) => accessor(DataView.prototype, key))
      value(Date.prototype, 'getTime')
      each(['source', 'flags', 'global', 'ignoreCase', 'multiline', 'dotAll', 'unicode', 'sticky', 'hasIndices'], (key) => accessor(RegExp.prototype, key))
      each([Number, Boolean, BigInt, Symbol], (owner) => value(owner.prototype, 'valueOf'))
      value(Symbol.prototype, 'toString')
      each(['keys', 'defineProperty', 'create', 'freeze', 'getPrototypeOf', 'setPrototypeOf', 'getOwnPropertyDescriptor', 'hasOwn', 'assign', 'entries'], (key) => value(Object, key))
      value(Array, 'isArray'); value(Array, 'from')
      each(['Uint8Array', 'Int8Array', 'Map', 'Set', 'Date', 'RegExp', 'Error', 'TypeError', 'RangeError', 'Object', 'Array', 'String', 'JSON', 'Reflect', 'Symbol',
        'ArrayBuffer', 'DataView', 'Promise', 'Function', 'Number', 'Boolean', 'BigInt', 'WeakMap', 'WeakSet', 'Intl'], (key) => value(globalThis, key))
    }`
    const exercise = `{
      const r = __results, i = __inputs
      r.encoded = new TextEncoder().encode(i.text)
      r.encodeInto = new TextEncoder().encodeInto(i.text, i.target)
      r.decoded = new TextDecoder().decode(i.bytes)
      const streaming = new TextDecoder()
      r.streamed = streaming.decode(i.bytes, { stream: true }) + streaming.decode(i.bytes)
      try { new TextDecoder('utf-8', { fatal: true }).decode(i.bytes) } catch (error) { r.fatalCode = error.code }
      r.atob = atob(i.base64)
      r.btoa = btoa(i.latin1)
      try { atob('*') } catch (error) { r.atobError = error.name + ':' + error.code }
      const url = new URL(i.relative, i.base)
      r.href = url.href; r.origin = url.origin
      url.searchParams.append('b', 'c d'); r.afterAppend = url.href
      url.port = '82'; url.hostname = 'other.test'; url.hash = ''; url.pathname = 'p q'; url.username = 'ü@'; r.afterSetters = url.href
      url.search = '?q=1&q=2'; r.searchGetAll = url.searchParams.getAll('q')
      url.protocol = 'https'; r.afterProtocol = url.href
      url.host = 'h2:83'; url.password = 'pw'; url.href = url.href + '&r=3'; r.afterHost = [url.href, url.searchParams.get('r')]
      r.canParse = URL.canParse('x', 'http://a/')
      try { new URL('nope') } catch (error) { r.urlError = error.code }
      const params = new URLSearchParams(i.record)
      params.append('z', '1'); params.set('a', '3'); params.delete('b'); params.sort()
      r.params = params.toString(); r.has = params.has('z'); r.get = params.get('a'); r.size = params.size
      const iterator = params.entries(); r.firstEntry = iterator.next().value; r.keys = params.keys().next().value
      let seen = ''; params.forEach((entryValue, name) => { seen += name + '=' + entryValue + ';' }); r.forEach = seen
      r.fromString = new URLSearchParams('?a=1&b=%20+x&c=%zz').toString()
      r.clone = structuredClone(i.cloneSource, { transfer: [] })
      try { structuredClone(i.fn) } catch (error) { r.cloneError = error.name + ':' + error.message }
      r.uuid = crypto.randomUUID()
      r.filled = crypto.getRandomValues(i.randomTarget)
      try { crypto.getRandomValues(i.plainBuffer) } catch (error) { r.cryptoError = error.name }
    }`
    const report = `{
      const describe = (value) => {
        const seen = new Map()
        const walk = (item) => {
          if (typeof item !== 'object' || item === null) return typeof item === 'string' ? JSON.stringify(item) : String(item)
          if (seen.has(item)) return '@' + seen.get(item)
          seen.set(item, seen.size)
          let inner = Object.prototype.toString.call(item) + ' ' + Object.getPrototypeOf(item)?.constructor?.name
          if (item instanceof Map) inner += ' map[' + [...item].map(([key, entry]) => walk(key) + '=>' + walk(entry)).join() + ']'
          if (item instanceof Set) inner += ' set[' + [...item].map(walk).join() + ']'
          if (ArrayBuffer.isView(item)) inner += ' bytes[' + Array.from(new Uint8Array(item.buffer, item.byteOffset, item.byteLength)).join() + ']'
          if (item instanceof Date) inner += ' ' + item.getTime()
          if (item instanceof RegExp) inner += ' ' + String(item)
          if (item instanceof Error) inner += ' ' + item.name + ':' + item.message + ':' + walk(item.cause)
          return inner + ' {' + Object.keys(item).map((key) => key + ':' + walk(item[key])).join() + '}'
        }
        return walk(value)
      }
      const r = __results
      const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(r.uuid)
      const filled = [r.filled === __inputs.randomTarget, r.filled.length]
      delete r.uuid; delete r.filled
      const shown = Object.create(null)
      for (const key of Object.keys(r)) shown[key] = describe(r[key])
      JSON.stringify({ shown, uuidShape, filled })
    }`
    const clean = createGlobalsContext()
    clean.run(setup)
    clean.run(exercise)
    const expected = clean.run(report) as string

    const poisoned = createGlobalsContext()
    poisoned.run(setup)
    let failure: unknown
    try {
      poisoned.run(poison)
      poisoned.run(exercise)
    } catch (error) {
      failure = error
    }
    const trapLog = poisoned.run('__trapLog')
    poisoned.run('__restore()')
    assert.equal(trapLog, '', `traps fired: ${String(trapLog)} (${String(failure)})`)
    assert.equal(failure, undefined)
    assert.equal(poisoned.run(report), expected)
    const parsed = JSON.parse(expected) as { uuidShape: boolean; filled: unknown[]; shown: Record<string, string> }
    assert.equal(parsed.uuidShape, true)
    assert.deepEqual(parsed.filled, [true, 4])
    assert.equal(Object.keys(parsed.shown).length, 28)
  })

  // Sloppy program functions called by the web globals (getters, callbacks, toString) could
  // otherwise read `caller` and reach an internal function.
  it('shows no internal function to program code through caller or CallSite.getFunction', () => {
    const { runJson } = createGlobalsContext()
    const outcome = runJson(`{
      const callers = []
      const found = []
      function getter() { callers.push(getter.caller); return 1 }
      function callback() { callers.push(callback.caller) }
      function convert() { callers.push(convert.caller); return 'text' }
      Error.prepareStackTrace = (error, frames) => frames.map((frame) => frame.getFunction())
      function stackGetter() { found.push(...new Error().stack); return 2 }
      structuredClone(Object.defineProperties({}, { a: { get: getter, enumerable: true }, b: { get: stackGetter, enumerable: true } }))
      new URLSearchParams('a=1').forEach(callback)
      new TextEncoder().encode({ toString: convert })
      new URLSearchParams({ toString: convert })
      new URL({ toString: () => 'http://a/' }).search = { toString: convert }
      btoa({ toString: convert }); atob({ toString: function decode() { callers.push(decode.caller); return '' } })
      delete Error.prepareStackTrace
      const ours = found.filter((fn) => fn !== undefined && fn !== stackGetter)
      ;[callers.filter((caller) => caller !== null && caller !== undefined).map(String), ours.map((fn) => fn.name)]
    }`)
    assert.deepEqual(outcome, [[], []])
  })

  it('lets a program error thrown from a getter or proxy trap through unchanged', () => {
    const { runJson } = createGlobalsContext()
    const outcome = runJson(`{
      const mine = new RangeError('mine')
      const attempts = [
        () => structuredClone({ get a() { throw mine } }),
        () => structuredClone(new Proxy({}, { ownKeys() { throw mine } })),
        () => new URLSearchParams({ get a() { throw mine }, }),
        () => new TextEncoder().encode({ toString() { throw mine } }),
        () => new URL({ toString() { throw mine } }),
      ]
      attempts.map((attempt) => { try { attempt(); return 'no error' } catch (error) { return error === mine } })
    }`)
    assert.deepEqual(outcome, [true, true, true, true, true])
  })

  it('keeps working after the program deletes or replaces the globals themselves', () => {
    const { runJson } = createGlobalsContext()
    const outcome = runJson(`{
      const { URL: OriginalURL } = globalThis
      globalThis.URLSearchParams = null; globalThis.TextEncoder = null; globalThis.TextDecoder = null
      const url = new OriginalURL('http://a/?x=1')
      url.searchParams.append('y', 'é')
      ;[url.href, url.searchParams.constructor.name]
    }`)
    assert.deepEqual(outcome, ['http://a/?x=1&y=%C3%A9', 'URLSearchParams'])
  })
})
