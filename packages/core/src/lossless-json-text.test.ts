import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { safeLosslessJsonText, safeSnapshotLosslessJson } from './lossless-json.js'

/** `count` small records, each with a nested array and object, like a tool's list result. */
function records(count: number): unknown[] {
  const rows: unknown[] = []
  for (let id = 0; id < count; id++)
    rows.push({ id, name: `row ${id}`, tags: ['a', id % 2 === 0], nested: { shelf: id } })
  return rows
}

// A root array is copied and written a slice (256 elements) at a time: these cases sit on and
// around the slice boundaries, where a dropped or doubled element or comma would show.
void describe('safeLosslessJsonText', () => {
  for (const count of [0, 1, 255, 256, 257, 512, 1000]) {
    void it(`writes a root array of ${count} records exactly as JSON.stringify does`, () => {
      const rows = records(count)
      assert.deepEqual(safeLosslessJsonText(rows), { ok: true, value: JSON.stringify(rows) })
    })
  }

  void it('writes objects, primitives and deep values like the native serializer, at any depth', () => {
    for (const value of [null, 'x', 1.5, true, { a: [1, { b: 'c' }] }, [[[]]]]) {
      assert.deepEqual(safeLosslessJsonText(value), { ok: true, value: JSON.stringify(value) })
    }
    let deep: unknown = 0
    for (let level = 0; level < 100_000; level++) deep = [deep]
    const rows = [...records(300), deep]
    const result = safeLosslessJsonText(rows)
    assert.ok(result.ok)
    assert.ok(result.value.endsWith(`${'['.repeat(100_000)}0${']'.repeat(100_001)}`))
  })

  void it('names the full path of a refusal in a later slice', () => {
    const rows = records(1000)
    ;(rows[700] as { nested: unknown }).nested = new Map()
    const result = safeLosslessJsonText(rows)
    assert.deepEqual(result, { ok: false, error: { path: 'value[700].nested', reason: 'is a Map' } })
    assert.deepEqual(result, safeSnapshotLosslessJson(rows))
  })

  void it('refuses a hole, a cycle and a throwing getter past the first slice like the snapshot', () => {
    const holey = records(600)
    delete holey[400]
    const cyclic = records(600)
    ;(cyclic[500] as { nested: unknown }).nested = cyclic
    const throwing = records(600)
    Object.defineProperty(throwing[300], 'id', {
      get: () => {
        throw new Error('no')
      },
      enumerable: true,
    })
    for (const value of [holey, cyclic, throwing]) {
      const result = safeLosslessJsonText(value, { rootLabel: 'args' })
      assert.ok(!result.ok)
      assert.deepEqual(result, safeSnapshotLosslessJson(value, { rootLabel: 'args' }))
    }
  })

  void it('runs each getter of every slice exactly once and writes what it returned', () => {
    let reads = 0
    const rows = records(600)
    for (const index of [0, 255, 256, 599]) {
      Object.defineProperty(rows[index], 'name', {
        get: () => {
          reads++
          return `read ${index}`
        },
        enumerable: true,
      })
    }
    const result = safeLosslessJsonText(rows)
    assert.equal(reads, 4)
    assert.ok(result.ok)
    const parsed = JSON.parse(result.value) as { name: string }[]
    assert.deepEqual(
      [parsed[0]?.name, parsed[255]?.name, parsed[256]?.name, parsed[599]?.name],
      ['read 0', 'read 255', 'read 256', 'read 599'],
    )
  })
})

// With onPart, written slices leave as they are made; the caller sends them ahead of the rest.
void describe('safeLosslessJsonText with onPart', () => {
  /** Every part, then the returned text, each parsed, as the guest joins them. */
  function written(value: unknown, partChars: number): { parts: string[]; joined: unknown; text: string } {
    const parts: string[] = []
    const result = safeLosslessJsonText(value, { onPart: json => parts.push(json), partChars })
    assert.ok(result.ok)
    const joined = [...parts, result.value].flatMap(json => JSON.parse(json) as unknown[])
    return { parts, joined, text: result.value }
  }

  for (const count of [0, 255, 256, 257, 768, 1000]) {
    void it(`splits a root array of ${count} records into whole-element arrays that join into JSON.stringify's value`, () => {
      const rows = records(count)
      const { parts, joined } = written(rows, 1)
      assert.equal(parts.length, Math.floor(count / 256), 'one part per full slice; the rest is returned')
      for (const part of parts) assert.ok(part.length >= 1 && part.startsWith('[') && part.endsWith(']'))
      assert.deepEqual(joined, JSON.parse(JSON.stringify(rows)))
    })
  }

  void it('gathers slices until a part holds at least partChars characters', () => {
    const rows = records(3000)
    const partChars = 40_000
    const { parts, joined } = written(rows, partChars)
    assert.ok(parts.length > 1)
    for (const part of parts) assert.ok(part.length >= partChars)
    assert.deepEqual(joined, JSON.parse(JSON.stringify(rows)))
  })

  void it('sends no part for an object, a primitive or a short array', () => {
    for (const value of [{ rows: records(1000) }, 'x', records(10)]) {
      const { parts, text } = written(value, 1)
      assert.deepEqual(parts, [])
      assert.equal(text, JSON.stringify(value))
    }
  })

  void it('refuses a value that fails after some parts left, with the same refusal as the snapshot', () => {
    const rows: unknown[] = records(1000)
    rows[900] = 10n
    const parts: string[] = []
    const result = safeLosslessJsonText(rows, { onPart: json => parts.push(json), partChars: 1 })
    assert.ok(parts.length > 0, 'the refusal comes after parts were sent')
    assert.deepEqual(result, {
      ok: false,
      error: { path: 'value[900]', reason: 'is a BigInt (pass a string or a number)' },
    })
  })

  void it('passes on what onPart throws, unchanged, and stops the walk', () => {
    const failure = new Error('port closed')
    let reads = 0
    const rows = records(1000)
    Object.defineProperty(rows[900], 'name', {
      get: () => {
        reads++
        return 'late'
      },
      enumerable: true,
    })
    assert.throws(
      () =>
        safeLosslessJsonText(rows, {
          onPart: () => {
            throw failure
          },
          partChars: 1,
        }),
      error => error === failure,
    )
    assert.equal(reads, 0)
  })
})
