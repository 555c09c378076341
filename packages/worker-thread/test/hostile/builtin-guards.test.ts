// Built-ins that, given a huge length, loop in native code that neither the compute budget nor
// worker.terminate() can interrupt, or allocate past V8's limits and abort the
// whole process (item 5). Each attack runs in a child process (isolated-run.ts): before the
// guards, the child hangs (the run reports `timeout` but dispose() never returns) or dies by a
// signal; with them, the run ends at once with a RangeError naming the limit.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { runIsolated, type IsolatedOutcome } from './isolated-run.js'

const LIMIT = /^RangeError: .*refused: this sandbox (allows|lists) at most \d+ in one built-in call\. /

function describeOutcome(outcome: IsolatedOutcome): string {
  if (outcome.kind === 'hung') return 'the child never exited: the worker thread could not be stopped'
  if (outcome.kind === 'died')
    return `the child died (signal ${String(outcome.signal)}, code ${String(outcome.code)}): ${outcome.stderr.slice(-300)}`
  return JSON.stringify(outcome)
}

// A guarded built-in is refused at once; the budget only bounds a guard that failed (then it times out).
async function assertRefused(program: string, computeMs = 10_000): Promise<void> {
  const outcome = await runIsolated(program, { computeMs, spawnAhead: 0 })
  assert.equal(outcome.kind, 'ended', describeOutcome(outcome))
  assert.equal(outcome.kind === 'ended' ? outcome.error?.kind : undefined, 'exception', describeOutcome(outcome))
  assert.match(outcome.kind === 'ended' ? (outcome.error?.message ?? '') : '', LIMIT)
}

/** Array-likes and sparse arrays of enormous length: one attack per method that walks the length. */
const walks: Record<string, string> = {
  join: "Array.prototype.join.call({ length: 2 ** 32 - 1 }, '')",
  toLocaleString: 'Array.prototype.toLocaleString.call({ length: 2 ** 32 - 1 })',
  copyWithin: 'Array.prototype.copyWithin.call({ length: 2 ** 53 - 1 }, 0, 1)',
  map: 'const a = []; a.length = 2 ** 32 - 1; a.map(() => 0)',
  filter: 'Array.prototype.filter.call({ length: 2 ** 53 - 1 }, () => true)',
  sort: 'Array.prototype.sort.call({ length: 2 ** 53 - 1 })',
  slice: 'Array.prototype.slice.call({ length: 2 ** 32 - 1 })',
  shift: 'Array.prototype.shift.call({ length: 2 ** 53 - 1 })',
  fill: 'Array.prototype.fill.call({ length: 2 ** 53 - 1 }, 0)',
  toSorted: 'Array.prototype.toSorted.call({ length: 2 ** 32 - 1 })',
  toReversed: 'Array.prototype.toReversed.call({ length: 2 ** 32 - 1 })',
  toSpliced: 'Array.prototype.toSpliced.call({ length: 2 ** 32 - 2 }, 0, 0)',
  with: 'Array.prototype.with.call({ length: 2 ** 32 - 1 }, 0, 0)',
  'Array.from (array-like)': 'Array.from({ length: 2 ** 32 - 1 })',
}

/** Walks that can stop early: past the limit they are the spec's loop, which the compute budget stops. */
const loops: Record<string, string> = {
  indexOf: 'Array.prototype.indexOf.call({ length: 2 ** 53 - 1 }, 1)',
  lastIndexOf: 'Array.prototype.lastIndexOf.call({ length: 2 ** 53 - 1 }, 1)',
  includes: 'Array.prototype.includes.call({ length: 2 ** 53 - 1 }, 1)',
  forEach: 'Array.prototype.forEach.call({ length: 2 ** 53 - 1 }, () => {})',
  some: 'Array.prototype.some.call({ length: 2 ** 53 - 1 }, () => true)',
  every: 'Array.prototype.every.call({ length: 2 ** 53 - 1 }, () => false)',
  reduce: 'Array.prototype.reduce.call({ length: 2 ** 53 - 1 }, () => 0, 0)',
  reduceRight: 'Array.prototype.reduceRight.call({ length: 2 ** 53 - 1 }, () => 0, 0)',
  // The methods that move or copy elements: the spec's loop of reads, writes and deletions.
  reverse: 'Array.prototype.reverse.call({ length: 2 ** 53 - 1 })',
  splice: 'Array.prototype.splice.call({ length: 2 ** 53 - 1 }, 0, 1)',
  unshift: 'Array.prototype.unshift.call({ length: 2 ** 53 - 2 }, 1)',
  concat: '[].concat({ length: 2 ** 32 - 1, [Symbol.isConcatSpreadable]: true })',
}

/** A length that answers small when checked and huge when the native method reads it again. */
const secondReads: Record<string, string> = {
  'a length getter':
    'let reads = 0\nArray.prototype.indexOf.call({ get length() { return reads++ === 0 ? 1 : 2 ** 53 - 1 } }, 1)',
  'a proxy over an array':
    "let reads = 0\nnew Proxy([], { get: (target, key) => key === 'length' ? (reads++ === 0 ? 0 : 2 ** 32 - 1) : Reflect.get(target, key) }).includes(1)",
  'an argument that grows the array': 'const a = [1]\na.fill(0, { valueOf() { a.length = 2 ** 32 - 1; return 0 } })',
  'a concat marker read twice':
    'let reads = 0\nconst item = { length: 2 ** 32 - 1, get [Symbol.isConcatSpreadable]() { return reads++ > 0 } }\n[].concat(item)',
}

/** Allocations V8 answers by aborting the process (a fixed array past its maximum length). */
const allocations: Record<string, string> = {
  'fill with NaN bounds': 'const a = []; a.length = 2 ** 32 - 1; a.fill(0, NaN)',
  'fill under the old cap': 'new Array(1e8).fill(0)',
  "split('')": "'a'.repeat(2 ** 28).split('')",
  'split on a regular expression': "'a'.repeat(2 ** 28).split(/(?:)/)",
  'Object.keys of a string': "Object.keys('a'.repeat(2 ** 28))",
  'Object.values of a string': "Object.values('a'.repeat(2 ** 28))",
  'Object.entries of a string': "Object.entries('a'.repeat(2 ** 27))",
  'Object.getOwnPropertyNames of a string': "Object.getOwnPropertyNames('a'.repeat(2 ** 28))",
  'Object.assign from a string': "Object.assign({}, 'a'.repeat(2 ** 27))",
  'Array.from of a string': "Array.from('a'.repeat(2 ** 28))",
  'a global match': "'a'.repeat(2 ** 28).match(/a/g)",
  'JSON.parse of a huge array': "JSON.parse('[' + '0,'.repeat(2 ** 27) + '0]')",
}

/** Native loops over every character of a huge string. */
const stringWalks: Record<string, string> = {
  'a global replace': "'a'.repeat(2 ** 28).replace(/a/g, 'b')",
  replaceAll: "'a'.repeat(2 ** 28).replaceAll('a', '')",
  'Object.entries of a 2^24-character string': "Object.entries('a'.repeat(2 ** 24))",
}

describe('hostile program: built-ins that loop in native code over a huge length', { concurrency: 2 }, () => {
  for (const [member, program] of Object.entries(walks)) {
    it(`refuses ${member} before the native loop starts`, () => assertRefused(program))
  }
  for (const [member, program] of Object.entries(loops)) {
    it(`walks ${member} past the limit in a loop the compute budget stops`, async () => {
      const outcome = await runIsolated(program)
      assert.equal(outcome.kind, 'ended', describeOutcome(outcome))
      assert.equal(outcome.kind === 'ended' ? outcome.error?.kind : undefined, 'timeout', describeOutcome(outcome))
    })
  }
  it('flat walks nested sparse arrays in a loop the compute budget stops', async () => {
    const outcome = await runIsolated('const a = []; a.length = 2 ** 32 - 1; [a].flat()')
    assert.equal(outcome.kind, 'ended', describeOutcome(outcome))
    assert.equal(outcome.kind === 'ended' ? outcome.error?.kind : undefined, 'timeout')
  })
})

describe('hostile program: built-ins that loop in native code over a huge string', { concurrency: 2 }, () => {
  for (const [member, program] of Object.entries(stringWalks)) {
    it(`refuses ${member} before the native loop starts`, () => assertRefused(program))
  }
})

describe('hostile program: a length that changes between the check and the native read', { concurrency: 2 }, () => {
  for (const [how, program] of Object.entries(secondReads)) {
    it(`holds the length checked against ${how}`, async () => {
      const outcome = await runIsolated(program)
      assert.equal(outcome.kind, 'ended', describeOutcome(outcome))
      assert.notEqual(outcome.kind === 'ended' ? outcome.error?.kind : undefined, 'timeout', describeOutcome(outcome))
    })
  }
})

describe('hostile program: allocations that abort the whole process', { concurrency: 2 }, () => {
  for (const [member, program] of Object.entries(allocations)) {
    it(`refuses ${member}`, () => assertRefused(program))
  }
  // Counting 2^24 separators is a loop of the guard's own, which the compute budget can stop:
  // it needs more than the 2 s the other attacks get on a loaded machine.
  it('refuses split on a string separator that makes too many pieces', () =>
    assertRefused("'a,'.repeat(2 ** 27).split(',')", 60_000))
})

// Node's URL parser (native code, in the worker) is quadratic in an international host's length.
describe('hostile program: a URL whose host takes the native parser minutes', () => {
  it('refuses the host before the parser sees it', async () => {
    const outcome = await runIsolated(
      [
        "let host = ''",
        'for (let i = 0; i < 300_000; i++) host += String.fromCodePoint(0x4e00 + (i % 20_000))',
        "new URL('http://' + host + '.com/')",
      ].join('\n'),
    )
    assert.equal(outcome.kind, 'ended', describeOutcome(outcome))
    assert.equal(outcome.kind === 'ended' ? outcome.error?.kind : undefined, 'exception', describeOutcome(outcome))
    assert.match(
      outcome.kind === 'ended' ? (outcome.error?.message ?? '') : '',
      /^TypeError: Invalid URL: its host has 300004 characters, more than this sandbox parses \(at most 1024\)\./,
    )
  })
})
