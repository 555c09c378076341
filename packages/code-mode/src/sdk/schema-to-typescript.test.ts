import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { schemaToTypeScript } from './schema-to-typescript.js'

function typeOf(schema: unknown): string {
  return schemaToTypeScript(schema).type
}

describe('schemaToTypeScript: primitives and literals', () => {
  it('maps the JSON types to TypeScript keywords', () => {
    assert.equal(typeOf({ type: 'string' }), 'string')
    assert.equal(typeOf({ type: 'number' }), 'number')
    assert.equal(typeOf({ type: 'integer' }), 'number')
    assert.equal(typeOf({ type: 'boolean' }), 'boolean')
    assert.equal(typeOf({ type: 'null' }), 'null')
  })

  it('writes enum values as a union of literals, escaping odd strings', () => {
    assert.equal(typeOf({ type: 'string', enum: ['a', 'b'] }), '"a" | "b"')
    assert.equal(
      typeOf({ enum: ['say "hi"', 'line\nbreak', '*/', 1, -2.5, true, null] }),
      '"say \\"hi\\"" | "line\\nbreak" | "*/" | 1 | -2.5 | true | null',
    )
    assert.equal(typeOf({ enum: [] }), 'never')
  })

  it('writes const values, objects and arrays included, as literal types', () => {
    assert.equal(typeOf({ const: 'fast' }), '"fast"')
    assert.equal(typeOf({ const: { level: 3, tags: ['a'], 'x-y': null } }), '{ level: 3; tags: ["a"]; "x-y": null }')
  })

  it('adds null for nullable and for type arrays', () => {
    assert.equal(typeOf({ type: 'string', nullable: true }), 'string | null')
    assert.equal(typeOf({ type: ['string', 'null'] }), 'string | null')
    assert.equal(typeOf({ type: ['integer', 'number', 'string'] }), 'number | string')
    assert.equal(typeOf({ enum: ['a'], nullable: true }), '"a" | null')
  })
})

describe('schemaToTypeScript: objects', () => {
  it('marks properties outside required as optional and quotes names that are not identifiers', () => {
    const schema = {
      type: 'object',
      properties: {
        path: { type: 'string' },
        'max-bytes': { type: 'number' },
        $ok: { type: 'boolean' },
        '': { type: 'string' },
      },
      required: ['path'],
    }
    assert.equal(typeOf(schema), '{ path: string; "max-bytes"?: number; $ok?: boolean; ""?: string }')
  })

  it('writes property descriptions and keyword tags as JSDoc', () => {
    const type = typeOf({
      type: 'object',
      properties: {
        url: { type: 'string', description: 'Where to fetch', format: 'uri' },
        retries: { type: 'integer', minimum: 0, maximum: 5, default: 2, description: 'Retry count' },
        tags: { type: 'array', items: { type: 'string' }, examples: [['a', 'b']], uniqueItems: true },
        old: { type: 'string', deprecated: true, pattern: '^x*/y$' },
      },
    })
    assert.ok(type.includes('/** Where to fetch @format uri */\n  url?: string'), type)
    assert.ok(type.includes('/** Retry count @integer @minimum 0 @maximum 5 @default 2 */'), type)
    assert.ok(type.includes('/** @uniqueItems @example ["a","b"] */'), type)
    assert.ok(type.includes('/** @pattern ^x*\\/y$ @deprecated */'), type)
  })

  it('drops limits that only restate the range of a safe integer', () => {
    const type = typeOf({
      type: 'object',
      properties: { n: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } },
    })
    assert.equal(type, '{ /** @integer @minimum 1 */ n?: number }')
  })

  it('keeps a title only when it says more than the property name', () => {
    const type = typeOf({
      type: 'object',
      properties: { max_bytes: { type: 'string', title: 'Max Bytes' }, mode: { type: 'string', title: 'Open mode' } },
    })
    assert.equal(type, '{ max_bytes?: string; /** Open mode */ mode?: string }')
  })

  it('breaks a comment terminator inside a description', () => {
    const type = typeOf({ type: 'object', properties: { a: { type: 'string', description: 'ends */ here' } } })
    assert.equal(type, '{ /** ends *\\/ here */ a?: string }')
  })

  it('writes additionalProperties as an index signature, and false or absence as a closed object', () => {
    assert.equal(typeOf({ type: 'object', additionalProperties: { type: 'number' } }), 'Record<string, number>')
    assert.equal(typeOf({ type: 'object' }), 'Record<string, unknown>')
    assert.equal(typeOf({ type: 'object', additionalProperties: false }), '{}')
    assert.equal(typeOf({ type: 'object', properties: {} }), '{}')
    assert.equal(typeOf({ type: 'object', properties: { a: { type: 'string' } } }), '{ a?: string }')
  })

  it('widens the index signature so declared properties still fit it', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'boolean' } },
      required: ['a'],
      additionalProperties: { type: 'number' },
    }
    assert.equal(typeOf(schema), '{ a: string; b?: boolean; [key: string]: number | string | boolean | undefined }')
    assert.equal(
      typeOf({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true }),
      '{ a?: string; [key: string]: unknown }',
    )
  })

  it('writes patternProperties as an index signature that names the patterns', () => {
    const type = typeOf({
      type: 'object',
      patternProperties: { '^x-': { type: 'string' } },
      additionalProperties: false,
    })
    assert.equal(type, '{ /** Keys match /^x-/. */ [key: string]: string }')
  })

  it('adds a required name that has no schema as unknown', () => {
    assert.equal(
      typeOf({ type: 'object', properties: { a: { type: 'string' } }, required: ['a', 'b'] }),
      '{ a: string; b: unknown }',
    )
  })

  it('infers an object from object keywords without type', () => {
    assert.equal(typeOf({ properties: { a: { type: 'string' } }, required: ['a'] }), '{ a: string }')
  })
})

describe('schemaToTypeScript: arrays and tuples', () => {
  it('writes items as an array, parenthesising unions', () => {
    assert.equal(typeOf({ type: 'array', items: { type: 'string' } }), 'string[]')
    assert.equal(typeOf({ type: 'array', items: { type: ['string', 'number'] } }), '(string | number)[]')
    assert.equal(typeOf({ type: 'array' }), 'unknown[]')
    assert.equal(typeOf({ type: 'array', items: { type: 'array', items: { type: 'number' } } }), 'number[][]')
  })

  it('writes prefixItems and array-form items as tuples', () => {
    assert.equal(
      typeOf({ type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], items: false }),
      '[number, number]',
    )
    assert.equal(
      typeOf({ type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: false }),
      '[string, number]',
    )
  })

  it('adds a rest element when more items are allowed', () => {
    assert.equal(
      typeOf({ type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'number' } }),
      '[string, ...number[]]',
    )
    assert.equal(
      typeOf({ type: 'array', items: [{ type: 'string' }], additionalItems: true }),
      '[string, ...unknown[]]',
    )
  })

  it('makes items past minItems optional', () => {
    const schema = {
      type: 'array',
      prefixItems: [{ type: 'string' }, { type: 'number' }, { enum: ['a', 'b'] }],
      minItems: 1,
    }
    assert.equal(typeOf(schema), '[string, number?, ("a" | "b")?]')
  })
})

describe('schemaToTypeScript: combinators', () => {
  it('writes oneOf and anyOf as unions', () => {
    assert.equal(typeOf({ oneOf: [{ type: 'string' }, { type: 'number' }] }), 'string | number')
    assert.equal(typeOf({ anyOf: [{ type: 'string' }, { type: 'null' }] }), 'string | null')
  })

  it('merges allOf objects into one, and intersects what cannot merge', () => {
    const merged = {
      allOf: [
        { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
        { properties: { b: { type: 'number' } } },
      ],
    }
    assert.equal(typeOf(merged), '{ a: string; b?: number }')
    const schema = {
      allOf: [{ $ref: '#/$defs/Base' }, { properties: { extra: { type: 'boolean' } } }],
      $defs: { Base: { type: 'object', properties: { id: { type: 'string' } } } },
    }
    assert.equal(typeOf(schema), 'Base & { extra?: boolean }')
  })

  it('keeps the variants rather than a bare type beside them', () => {
    const schema = {
      type: 'object',
      oneOf: [
        { properties: { a: { type: 'string' } }, required: ['a'] },
        { properties: { b: { type: 'string' } }, required: ['b'] },
      ],
    }
    assert.equal(typeOf(schema), '{ a: string } | { b: string }')
  })

  it('intersects declared properties with variants that only list required names', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
      anyOf: [{ required: ['a'] }, { required: ['b'] }],
    }
    assert.equal(typeOf(schema), '{ a?: string; b?: string } & ({ a: unknown } | { b: unknown })')
  })
})

describe('schemaToTypeScript: references', () => {
  it('declares $defs and definitions as named types, once each', () => {
    const result = schemaToTypeScript({
      type: 'object',
      properties: {
        from: { $ref: '#/$defs/Point' },
        to: { $ref: '#/$defs/Point' },
        label: { $ref: '#/definitions/label' },
      },
      $defs: {
        Point: {
          type: 'object',
          properties: { x: { type: 'number' }, y: { type: 'number' } },
          required: ['x', 'y'],
          description: 'A point',
        },
      },
      definitions: { label: { type: 'string' } },
    })
    assert.equal(result.type, '{ from?: Point; to?: Point; label?: Label }')
    assert.equal(result.declarations, 'type Label = string\n/** A point */\ntype Point = { x: number; y: number }\n')
  })

  it('allows recursion through objects and arrays', () => {
    const result = schemaToTypeScript({
      $ref: '#/$defs/Node',
      $defs: { Node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/$defs/Node' } } } } },
    })
    assert.equal(result.type, 'Node')
    assert.equal(result.declarations, 'type Node = { children?: Node[] }\n')
  })

  it('names the root when the schema refers to itself', () => {
    const result = schemaToTypeScript({ type: 'object', properties: { not: { $ref: '#' } } }, { rootName: 'filter' })
    assert.equal(result.type, 'Filter')
    assert.equal(result.declarations, 'type Filter = { not?: Filter }\n')
  })

  it('renames definitions that would clash with a global of the standard library', () => {
    const result = schemaToTypeScript({
      properties: { d: { $ref: '#/$defs/Date' } },
      $defs: { Date: { type: 'string' } },
    })
    assert.equal(result.type, '{ d?: Date2 }')
    assert.equal(result.declarations, 'type Date2 = string\n')
  })

  it('turns an alias cycle, which TypeScript refuses, into unknown', () => {
    const result = schemaToTypeScript({
      properties: { a: { $ref: '#/$defs/A' } },
      $defs: { A: { $ref: '#/$defs/B' }, B: { anyOf: [{ $ref: '#/$defs/A' }, { type: 'string' }] } },
    })
    assert.ok(result.declarations.includes('type A = unknown /* circular reference to B */'), result.declarations)
  })

  it('leaves remote, anchored and missing references as unknown with the reason', () => {
    assert.equal(
      typeOf({ $ref: 'https://example.com/s.json' }),
      'unknown /* $ref https://example.com/s.json is remote */',
    )
    assert.equal(typeOf({ $ref: '#anchor' }), 'unknown /* $ref #anchor: anchors are not resolved */')
    assert.equal(typeOf({ $ref: '#/$defs/Nope' }), 'unknown /* $ref #/$defs/Nope not found */')
  })
})

describe('schemaToTypeScript: what it cannot express', () => {
  it('reads boolean and empty schemas', () => {
    assert.equal(typeOf(true), 'unknown')
    assert.equal(typeOf(false), 'never')
    assert.equal(typeOf({}), 'unknown')
    assert.equal(typeOf({ description: 'anything' }), 'unknown')
  })

  it('leaves a short reason for keywords with no TypeScript form', () => {
    assert.equal(typeOf({ not: { type: 'string' } }), 'unknown /* "not" has no TypeScript form */')
    assert.equal(typeOf({ if: {}, then: {} }), 'unknown /* if/then/else has no TypeScript form */')
    assert.equal(typeOf({ type: 'date' }), 'unknown /* type "date" is not JSON Schema */')
  })

  it('ignores unknown keywords', () => {
    assert.equal(typeOf({ type: 'string', 'x-vendor': { deep: true }, $comment: 'hi' }), 'string')
  })

  it('never throws, whatever it is given', () => {
    const cyclic: Record<string, unknown> = { type: 'object' }
    cyclic.properties = { self: cyclic }
    let deep: unknown = { type: 'string' }
    for (let level = 0; level < 5000; level++) deep = { type: 'array', items: deep }
    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('no keys')
        },
        get: () => {
          throw new Error('no reads')
        },
      },
    )
    for (const schema of [
      null,
      undefined,
      42,
      'string',
      [],
      [{ type: 'string' }],
      cyclic,
      deep,
      hostile,
      { properties: 'x', required: 'y', items: 7 },
    ]) {
      const result = schemaToTypeScript(schema)
      assert.equal(typeof result.type, 'string')
    }
    assert.ok(typeOf(deep).includes('nested too deep'))
    assert.ok(typeOf(cyclic).includes('nested too deep'))
  })
})
