import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import vm from 'node:vm'
import { captureCallSite, describeCallPosition, formatCallSite, type CallSiteReport } from './call-sites.js'
import { describeThrown } from './describe-thrown.js'

/**
 * Compiles `source` as the program (line 1 is the wrapper's, as in the guest) in a fresh
 * context and runs it; each `host()` it calls is a "binding call". Returns the last call's site.
 */
function siteOfLastCall(source: string): object {
  let site: object | undefined
  const host = (): void => {
    site = captureCallSite(host)
  }
  const context = vm.createContext({ host })
  new vm.Script(`(function () {\n${source}\n})`, { filename: 'program.ts', lineOffset: -1 }).runInContext(context)()
  assert.ok(site !== undefined, 'nothing was captured')
  return site
}

/** The program frames of a captured site, as stack text. */
function framesOf(site: object): string | undefined {
  return formatCallSite(site)?.frames
}

describe('call sites', () => {
  it("captures the program's frames below the boundary, innermost first, with their functions' names", () => {
    const site = siteOfLastCall('function lookUp() {\n  return host()\n}\nlookUp()')
    assert.deepEqual(formatCallSite(site), {
      frames: '    at lookUp (program.ts:2:10)\n    at program.ts:4:1',
      line: 2,
      column: 10,
    } satisfies CallSiteReport)
  })

  it('leaves out frames outside the program and shows only names that are plain identifiers', () => {
    const forged = 'x (program.ts:99:1)\\n    at y'
    const site = siteOfLastCall(`const named = { ['${forged}']: () => host() }\n;[1].map(() => named['${forged}']())`)
    assert.equal(framesOf(site), '    at program.ts:1:58\n    at program.ts:2:54\n    at program.ts:2:6')
  })

  it('captures at most ten frames, whatever limit the realm had, and restores that limit', () => {
    const limit = Error.stackTraceLimit
    Error.stackTraceLimit = 0
    let site: object
    try {
      site = siteOfLastCall('function down(depth) { return depth === 0 ? host() : down(depth - 1) }\ndown(50)')
      assert.equal(Error.stackTraceLimit, 0)
    } finally {
      Error.stackTraceLimit = limit
    }
    const lines = (framesOf(site) ?? '').split('\n')
    assert.equal(lines.length, 10)
    assert.deepEqual(new Set(lines), new Set(['    at down (program.ts:1:45)', '    at down (program.ts:1:54)']))
  })

  it("formats the sites with the realm's own prepareStackTrace left in place", () => {
    const site = siteOfLastCall('host()')
    const previous = Error.prepareStackTrace
    const mine = (): string => 'mine'
    Error.prepareStackTrace = mine
    try {
      assert.equal(framesOf(site), '    at program.ts:1:1')
      assert.equal(Error.prepareStackTrace, mine)
    } finally {
      Error.prepareStackTrace = previous
    }
  })

  it('formats nothing for a site outside the program', () => {
    const boundary = (): object | undefined => captureCallSite(boundary)
    const site = boundary()
    assert.ok(site !== undefined)
    assert.equal(formatCallSite(site), undefined)
  })
})

describe('describeThrown with the position the runtime recorded', () => {
  it('ends its one line with the recorded position instead of the frames of the stack the value carries', () => {
    const error = new Error('refused')
    error.stack = 'Error: refused\n    at program.ts:99:1'
    assert.equal(
      describeThrown(error, String, describeCallPosition({ line: 3, column: 7 })),
      'Error: refused (at line 3, column 7)',
    )
  })

  it('falls back to the stack without a recorded position', () => {
    const error = new Error('refused')
    error.stack = 'Error: refused\n    at program.ts:4:2'
    assert.equal(describeThrown(error, String, ''), 'Error: refused\n    at program.ts:4:2')
  })
})
