import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import ts from 'typescript'
import { sdkForChecking } from './checked-sdk.js'

describe('the SDK as the checker reads it', () => {
  it('declares the namespace as functions, keeping the docs and types', () => {
    const sdk =
      'type A = { x: string }\n\ndeclare const tools: {\n  /** Gets. @readOnly */\n  get(args: A): Promise<unknown>\n  type_(): Promise<A>\n}\n'
    assert.equal(
      sdkForChecking(ts, sdk, 'tools'),
      'type A = { x: string }\n\ndeclare namespace tools {\n  /** Gets. @readOnly */\n  function get(args: A): Promise<unknown>\n  function type_(): Promise<A>\n}\n',
    )
  })

  it('leaves a namespace it cannot rewrite as it is', () => {
    const quoted = "declare const tools: {\n  'a b'(): Promise<unknown>\n}\n"
    assert.equal(sdkForChecking(ts, quoted, 'tools'), quoted)
    const other = 'declare const api: {\n  get(): Promise<unknown>\n}\n'
    assert.equal(sdkForChecking(ts, other, 'tools'), other)
  })
})
