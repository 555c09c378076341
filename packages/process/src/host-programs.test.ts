import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { findProgram, parseLddOutput } from './host-programs.js'

describe('parseLddOutput', () => {
  it('lists each library file and the loader, and skips the vDSO', () => {
    const output = [
      '\tlinux-vdso.so.1 (0x00007ffd0d5f2000)',
      '\tlibdl.so.2 => /lib/x86_64-linux-gnu/libdl.so.2 (0x00007f0c1e6f5000)',
      '\tlibstdc++.so.6 => /lib/x86_64-linux-gnu/libstdc++.so.6 (0x00007f0c1e400000)',
      '\t/lib64/ld-linux-x86-64.so.2 (0x00007f0c1e70d000)',
      '',
    ].join('\n')
    assert.deepEqual(parseLddOutput(output), [
      '/lib/x86_64-linux-gnu/libdl.so.2',
      '/lib/x86_64-linux-gnu/libstdc++.so.6',
      '/lib64/ld-linux-x86-64.so.2',
    ])
  })

  it('lists nothing for a static binary', () => {
    assert.deepEqual(parseLddOutput('\tnot a dynamic executable\n'), [])
  })

  it('skips a library ldd could not find', () => {
    assert.deepEqual(parseLddOutput('\tlibmissing.so.1 => not found\n'), [])
  })
})

describe('findProgram', () => {
  it('finds sh in the system folders even with an empty PATH', () => {
    assert.ok(findProgram('sh', '')?.startsWith('/'))
  })

  it('answers undefined for a program that does not exist', () => {
    assert.equal(findProgram('code-runtime-no-such-program', '/usr/bin'), undefined)
  })
})
