import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import vm from 'node:vm'
import { CodeRuntimeError, CodeRuntimeFamilyError } from '@code-runtime/core'
import { McpProxyError } from './errors.js'

const BRAND = Symbol.for('code-runtime.error')

void describe('McpProxyError', () => {
  void it('carries its code, server and details, in the mcp family', () => {
    const cause = new Error('spawn failed')
    const error = new McpProxyError('MCP_PROXY_CONNECT_FAILED', 'files did not start.', {
      server: 'files',
      field: 'mcpServers.files',
      cause,
    })
    assert.equal(error.name, 'McpProxyError')
    assert.equal(error.code, 'MCP_PROXY_CONNECT_FAILED')
    assert.equal(error.family, 'mcp')
    assert.equal(error.server, 'files')
    assert.equal(error.field, 'mcpServers.files')
    assert.equal(error.cause, cause)
    assert.equal(CodeRuntimeFamilyError.is(error), true)
    assert.equal(CodeRuntimeError.is(error), false)
  })

  void it('is() recognises a branded error of another realm and of a second copy of the module', async () => {
    const foreign = vm.runInNewContext(
      `Object.defineProperty(new Error('x'), Symbol.for('code-runtime.error'), { value: 'mcp' })`,
    ) as unknown
    assert.equal(McpProxyError.is(foreign), true)
    const copy = (await import(new URL('./errors.js?copy', import.meta.url).href)) as {
      McpProxyError: typeof McpProxyError
    }
    const theirs = new copy.McpProxyError('MCP_PROXY_USAGE', 'bad usage')
    assert.equal(theirs instanceof McpProxyError, false)
    assert.equal(McpProxyError.is(theirs), true)
  })

  void it('is() answers false, never throws, for other families and hostile values', () => {
    const getter = Object.defineProperty({}, BRAND, { get: () => 'mcp' })
    const throwingProxy = new Proxy(
      {},
      {
        getOwnPropertyDescriptor: () => {
          throw new Error('trap')
        },
      },
    )
    for (const value of [
      getter,
      throwingProxy,
      new CodeRuntimeError('CODE_RUNTIME_DISPOSED', 'x'),
      new Error('x'),
      { code: 'MCP_PROXY_USAGE' },
      undefined,
    ]) {
      assert.equal(McpProxyError.is(value), false)
    }
  })
})
