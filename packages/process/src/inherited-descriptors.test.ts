import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { formatDescriptorList, listInheritableDescriptors, parseDescriptorList } from './inherited-descriptors.js'

describe('listInheritableDescriptors', () => {
  // A stand-in for /proc/self: descriptors and the flags the kernel reports for each (octal).
  const procSelf = mkdtempSync(join(tmpdir(), 'fake-proc-'))
  const flags: Record<number, string> = {
    0: '02100000',
    2: '01',
    3: '02004002',
    5: '0100000',
    9: '02000000',
    40: '0100000',
    41: '02',
    251: '01',
  }
  mkdirSync(join(procSelf, 'fd'))
  mkdirSync(join(procSelf, 'fdinfo'))
  for (const [fd, value] of Object.entries(flags)) {
    writeFileSync(join(procSelf, 'fd', fd), '')
    writeFileSync(join(procSelf, 'fdinfo', fd), `pos:\t0\nflags:\t${value}\nmnt_id:\t25\nino:\t7\n`)
  }
  // Listed, then closed before its flags were read (the listing's own descriptor is one).
  writeFileSync(join(procSelf, 'fd', '60'), '')
  after(() => rmSync(procSelf, { recursive: true, force: true }))

  it('lists the descriptors without close-on-exec from the first one the child inherits', () => {
    assert.deepEqual(listInheritableDescriptors(4, procSelf), [5, 40, 41, 251])
  })

  it("leaves out those the child's stdio replaces", () => {
    assert.deepEqual(listInheritableDescriptors(41, procSelf), [41, 251])
  })

  it('is empty where /proc cannot be read', () => {
    assert.deepEqual(listInheritableDescriptors(4, join(procSelf, 'missing')), [])
  })
})

describe('formatDescriptorList and parseDescriptorList', () => {
  it('writes runs as ranges and reads them back', () => {
    const descriptors = [251, 40, 41, 42, 100, 41]
    assert.equal(formatDescriptorList(descriptors), '40-42,100,251')
    assert.deepEqual(parseDescriptorList('40-42,100,251'), [40, 41, 42, 100, 251])
  })

  it('says none for an empty list', () => {
    assert.equal(formatDescriptorList([]), 'none')
    assert.deepEqual(parseDescriptorList('none'), [])
  })

  it('refuses anything else', () => {
    for (const text of ['', '4,', '-4', '5-4', 'x', '4 5', '1-99999999', '3.5'])
      assert.equal(parseDescriptorList(text), undefined, text)
  })
})
