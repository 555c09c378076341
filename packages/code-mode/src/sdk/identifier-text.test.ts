import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { isBarePropertyName, singularNoun, toIdentifierWords, toPascalCase } from './identifier-text.js'

describe('identifier text', () => {
  it('joins the words of any text with underscores', () => {
    assert.equal(toIdentifierWords('a b.c-d'), 'a_b_c_d')
    assert.equal(toIdentifierWords('  padded  '), 'padded')
    assert.equal(toIdentifierWords('ﬁle'), 'file')
    assert.equal(toIdentifierWords('***'), '')
  })

  it('writes PascalCase names that start with a letter', () => {
    assert.equal(toPascalCase('read_file'), 'ReadFile')
    assert.equal(toPascalCase('entity-type'), 'EntityType')
    assert.equal(toPascalCase('getUser'), 'GetUser')
    assert.equal(toPascalCase('3d model'), 'T3dModel')
    assert.equal(toPascalCase('---'), '')
  })

  it('guesses singulars of plural names and declines the rest', () => {
    assert.equal(singularNoun('entities'), 'entity')
    assert.equal(singularNoun('Relations'), 'Relation')
    assert.equal(singularNoun('boxes'), 'box')
    assert.equal(singularNoun('excludePatterns'), 'excludePattern')
    assert.equal(singularNoun('status'), undefined)
    assert.equal(singularNoun('analysis'), undefined)
    assert.equal(singularNoun('data'), undefined)
  })

  it('tells which property names need quotes', () => {
    assert.ok(isBarePropertyName('path') && isBarePropertyName('$ref') && isBarePropertyName('_x1'))
    assert.ok(
      !isBarePropertyName('max-bytes') &&
        !isBarePropertyName('0a') &&
        !isBarePropertyName('') &&
        !isBarePropertyName('é'),
    )
  })
})
