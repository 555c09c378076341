import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode } from '@modelcontextprotocol/client'
import { McpProxyError } from '../errors.js'
import { decodeCallResult, describeCallFailure } from './upstream-results.js'

describe('decodeCallResult', () => {
  it('prefers structuredContent', () => {
    assert.deepEqual(decodeCallResult({ content: [{ type: 'text', text: 'ignored' }], structuredContent: { n: 1 } }), {
      ok: true,
      value: { n: 1 },
      media: [],
    })
  })

  it('parses one text block when it is JSON and keeps it as a string otherwise', () => {
    assert.deepEqual(
      decodeCallResult({ content: [{ type: 'text', text: '[1,2]' }] }).ok &&
        decodeCallResult({ content: [{ type: 'text', text: '[1,2]' }] }),
      { ok: true, value: [1, 2], media: [] },
    )
    assert.deepEqual(decodeCallResult({ content: [{ type: 'text', text: 'hello {' }] }), {
      ok: true,
      value: 'hello {',
      media: [],
    })
  })

  it('gives an array for several text blocks and null for none', () => {
    assert.deepEqual(
      decodeCallResult({
        content: [
          { type: 'text', text: '1' },
          { type: 'text', text: 'two' },
        ],
      }),
      { ok: true, value: [1, 'two'], media: [] },
    )
    assert.deepEqual(decodeCallResult({ content: [] }), { ok: true, value: null, media: [] })
  })

  it('collects images, audio and resources apart from the value', () => {
    const image = { type: 'image' as const, data: 'AAAA', mimeType: 'image/png' }
    const link = { type: 'resource_link' as const, uri: 'file:///a', name: 'a' }
    assert.deepEqual(decodeCallResult({ content: [{ type: 'text', text: 'caption' }, image, link] }), {
      ok: true,
      value: 'caption',
      media: [image, link],
    })
  })

  it('turns isError into a failure with the server text', () => {
    assert.deepEqual(decodeCallResult({ content: [{ type: 'text', text: 'ENOENT: no such file' }], isError: true }), {
      ok: false,
      error: 'ENOENT: no such file',
      media: [],
    })
    const silent = decodeCallResult({ content: [], isError: true })
    assert.equal(silent.ok, false)
    assert.match((silent as { error: string }).error, /without a message/)
  })

  it("drops the SDK's MCP error prefix from an error answer (how McpServer refuses an unknown tool)", () => {
    const refusal = decodeCallResult({
      content: [{ type: 'text', text: 'MCP error -32602: Tool read_txt_file not found' }],
      isError: true,
    })
    assert.deepEqual(refusal, { ok: false, error: 'Tool read_txt_file not found', media: [] })
  })
})

describe('describeCallFailure', () => {
  it('says what happened to the server', () => {
    assert.match(
      describeCallFailure('files', 500, new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed')),
      /^Server "files" stopped while answering.*next call starts it again/,
    )
    assert.match(
      describeCallFailure('files', 500, new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out')),
      /within 500 ms \(its timeoutMs\)/,
    )
    assert.equal(
      describeCallFailure('files', 500, new ProtocolError(ProtocolErrorCode.InvalidParams, 'Tool x not found')),
      'Tool x not found',
    )
  })

  it('drops every MCP error prefix a server on SDK 1.x sent, however many hops added one', () => {
    // A 1.x server that throws McpError sends its prefixed message; one in front of another adds another.
    const twice = new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      'MCP error -32602: MCP error -32602: Unknown tool x',
    )
    assert.equal(describeCallFailure('files', 500, twice), 'Unknown tool x')
    assert.equal(
      describeCallFailure(
        'files',
        500,
        new McpProxyError('MCP_PROXY_CONNECT_FAILED', 'server "files" failed to start: boom.'),
      ),
      'server "files" failed to start: boom.',
    )
    assert.equal(describeCallFailure('files', 500, new Error('The run ended.')), 'The run ended.')
  })
})
