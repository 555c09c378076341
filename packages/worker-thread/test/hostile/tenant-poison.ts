// What one tenant leaves behind in everything its program can reach, and the probe another
// tenant's run uses to look for it: shared by the hostile tests of reuse keys and of sessions.

/** Objects a program can reach whose constructor chain the escapes in escapes.test.ts try. */
const ESCAPE_TARGETS = [
  'this',
  'globalThis',
  'tools.echo',
  'tools.echo(1)',
  'console.log',
  'setTimeout(() => {}, 1)',
  'process.stdout.write',
  'structuredClone',
]

/** Runs `body` (a function body) through each target's realm Function; yields each outcome. */
function throughEveryEscape(body: string): string {
  return `const escapes = []
for (const reach of [${ESCAPE_TARGETS.map(target => `() => ${target}`).join(', ')}]) {
  try {
    const target = reach()
    const realmFunction = Object.getPrototypeOf(target) === null ? target.constructor : target.constructor.constructor
    escapes.push(String(realmFunction(${JSON.stringify(body)})()))
  } catch (error) { escapes.push(error.name) }
}`
}

/**
 * What one tenant leaves behind: globals, poisoned built-ins and prototypes, a marker in any
 * realm an escape reaches, and timers and a promise chain that would log into whichever run
 * holds the worker when they fire.
 */
export function poisonProgram(tenant: string): string {
  return `globalThis.leftBy = ${JSON.stringify(tenant)}
Object.prototype.pollutedBy = ${JSON.stringify(tenant)}
Array.prototype.push = function () { return -1 }
JSON.stringify = () => '"poisoned"'
Math.max = () => -1
Function.prototype.toString = () => 'function () { [native code] }'
setTimeout(() => console.log('timer of ${tenant}'), 40)
setInterval(() => console.log('interval of ${tenant}'), 20)
new Promise((resolve) => setTimeout(resolve, 60)).then(() => console.log('promise of ${tenant}'))
${throughEveryEscape(`globalThis.markedBy = ${JSON.stringify(tenant)}; return "marked"`)}
return "poisoned"`
}

/** Waits past every moment the poison was armed for, then reports what it finds. */
export const PROBE = `await new Promise((resolve) => setTimeout(resolve, 120))
${throughEveryEscape('return typeof globalThis.markedBy')}
const list = [1]
return {
  globals: ['leftBy', 'markedBy'].filter((name) => name in globalThis),
  prototype: ({}).pollutedBy ?? null,
  push: list.push(2),
  stringify: JSON.stringify({ a: 1 }),
  max: Math.max(1, 2),
  toString: Function.prototype.toString.call(() => 1),
  escapes,
}`

export const PRISTINE = {
  logs: [],
  value: {
    globals: [],
    prototype: null,
    push: 2,
    stringify: '{"a":1}',
    max: 2,
    toString: '() => 1',
    escapes: ESCAPE_TARGETS.map(() => 'EvalError'),
  },
}
