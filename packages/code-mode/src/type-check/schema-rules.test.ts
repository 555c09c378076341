import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { compileArgumentCheck } from '../run/argument-validation.js'
import {
  allowedKinds,
  allowedPrimitives,
  propertySchema,
  refusesProperty,
  requiredNames,
  resolveSchema,
} from './schema-rules.js'

describe('schema rules the checker relies on', () => {
  const root = {
    type: 'object',
    properties: {
      address: { $ref: '#/$defs/Address' },
      vars: { type: 'object', patternProperties: { '^[A-Z]+$': { type: 'string' } }, additionalProperties: false },
    },
    required: ['address'],
    $defs: {
      Address: {
        type: 'object',
        properties: { city: { type: ['string', 'null'] }, zip: { type: 'integer', nullable: true } },
        required: ['city'],
        additionalProperties: false,
      },
    },
  }

  it('follows local references and gives up on remote or broken ones', () => {
    assert.deepEqual(requiredNames(propertySchema(root, 'address', root) ?? {}), ['city'])
    assert.equal(resolveSchema({ $ref: 'https://example.com/x' }, root), undefined)
    assert.equal(resolveSchema({ $ref: '#/$defs/Missing' }, root), undefined)
  })

  it('refuses a property only where the validator does', () => {
    const address = propertySchema(root, 'address', root) ?? {}
    const vars = propertySchema(root, 'vars', root) ?? {}
    assert.equal(refusesProperty(address, 'street'), true)
    assert.equal(refusesProperty(address, 'city'), false)
    assert.equal(refusesProperty(vars, 'HOME'), false)
    assert.equal(refusesProperty(vars, 'home'), true)
    assert.equal(refusesProperty(root, 'anything'), false)
    // The runtime's own check agrees.
    const check = compileArgumentCheck(root)
    assert.match(check?.({ address: { city: 'x', street: 's' } }) ?? '', /street is not a known argument/)
    assert.match(check?.({ address: { city: 'x' }, vars: { home: 'x' } }) ?? '', /home is not a known argument/)
    assert.equal(check?.({ address: { city: 'x' }, vars: { HOME: 'x' } }), undefined)
  })

  it('reads the kinds a type allows, integer as number and nullable as null', () => {
    const address = propertySchema(root, 'address', root) ?? {}
    assert.deepEqual(allowedKinds(propertySchema(address, 'city', root) ?? {}), new Set(['string', 'null']))
    assert.deepEqual(allowedKinds(propertySchema(address, 'zip', root) ?? {}), new Set(['number', 'null']))
    assert.equal(allowedKinds({ type: 'decimal' }), undefined)
    assert.equal(allowedKinds({}), undefined)
  })

  it('reads enum and const values only when they are all primitives', () => {
    assert.deepEqual(allowedPrimitives({ enum: ['a', 1, null] }), ['a', 1, null])
    assert.deepEqual(allowedPrimitives({ const: 'x' }), ['x'])
    assert.equal(allowedPrimitives({ enum: ['a', { b: 1 }] }), undefined)
  })
})
