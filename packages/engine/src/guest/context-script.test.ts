import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import vm from 'node:vm'
import {
  compileContextScriptText,
  contextScriptCodeCaches,
  rejectedContextScriptCodeCaches,
  useContextScriptCodeCaches,
} from './context-script.js'

// Each test uses filenames of its own: the caches and rejections are per substrate (module state).
describe('context-script code caches', () => {
  it('yields a cache per compiled script, and compiles nothing before the first run', () => {
    const script = compileContextScriptText<() => number>('(() => 6 * 7)', 'test:answer')
    assert.equal(contextScriptCodeCaches().has('test:answer'), false)
    assert.equal(script.runIn(vm.createContext())(), 42)
    assert.ok((contextScriptCodeCaches().get('test:answer')?.length ?? 0) > 0)
  })

  it('runs a script whose offered cache V8 rejects, and names it', () => {
    useContextScriptCodeCaches(new Map([['test:rejected', Buffer.from('not a code cache')]]))
    try {
      const script = compileContextScriptText<() => string>("(() => 'still runs')", 'test:rejected')
      assert.equal(script.runIn(vm.createContext())(), 'still runs')
      assert.deepEqual(rejectedContextScriptCodeCaches(), ['test:rejected'])
    } finally {
      useContextScriptCodeCaches(new Map())
    }
  })
})
