/**
 * The subject layout, in one place (docs/SCALING.md shows the permissions a deployment sets on it):
 *
 * - `<prefix>.load`: every runner answers with its load (runs active, concurrency, draining).
 * - `<prefix>.claim`: callers ask for a runner with a free slot; runners listen in one queue group,
 *   and only while they have capacity, so NATS hands each claim to one runner that can take it.
 * - `<prefix>.runner.<runner>.start`: the caller sends the program to the runner that claimed it.
 * - `<prefix>.runner.<runner>.run.<run>.(abort|beat)`: the caller aborts the run, or says it is alive.
 * - `<prefix>.runner.<runner>.session-open`, `<prefix>.runner.<runner>.session.<session>.(close|beat)`:
 *   a session held on one runner; its runs go to that runner's start subject.
 * - `<prefix>.runner.<runner>.session-adopt`, `<prefix>.runner.<runner>.session.<session>.memo`: another
 *   caller of the same identity takes an adoptable session over; its holder keeps a memo with it.
 * - `<reply>.(call|log|beat|end|refused|ended)`: the runner's side of one run, under a reply subject the caller
 *   made for that run (an inbox of its own connection): binding calls, live logs, heartbeats, the
 *   result. A runner sends a run's traffic only there, so a program's calls reach only its caller.
 */

/** The default first token of every subject. */
export const DEFAULT_SUBJECT_PREFIX = 'code-runtime'

/** The queue group every runner's claim subscription joins. */
export function runnerQueue(prefix: string): string {
  return `${prefix}-runners`
}

export function claimSubject(prefix: string): string {
  return `${prefix}.claim`
}

/** Every runner answers a request here with its load (ask with requestMany to hear them all). */
export function loadSubject(prefix: string): string {
  return `${prefix}.load`
}

export function startSubject(prefix: string, runner: string): string {
  return `${prefix}.runner.${runner}.start`
}

/** Where the caller sends `abort` and `beat` for one run. */
export function runControlSubject(prefix: string, runner: string, run: string, kind: 'abort' | 'beat'): string {
  return `${prefix}.runner.${runner}.run.${run}.${kind}`
}

/** Where the caller opens, closes and keeps alive a session on a runner. */
export function sessionSubject(prefix: string, runner: string, kind: 'open' | 'adopt'): string
export function sessionSubject(prefix: string, runner: string, kind: 'close' | 'beat' | 'memo', session: string): string
export function sessionSubject(
  prefix: string,
  runner: string,
  kind: 'open' | 'adopt' | 'close' | 'beat' | 'memo',
  session?: string,
): string {
  return kind === 'open' || kind === 'adopt'
    ? `${prefix}.runner.${runner}.session-${kind}`
    : `${prefix}.runner.${runner}.session.${session ?? ''}.${kind}`
}

/** The runner's side of one run or session: under the caller's reply subject. */
export function runReplySubject(reply: string, kind: 'call' | 'log' | 'beat' | 'end' | 'refused' | 'ended'): string {
  return `${reply}.${kind}`
}

/** A subject token: letters, digits, `-` and `_` only, so an id can never add tokens or wildcards. */
export const SUBJECT_TOKEN_PATTERN = /^[A-Za-z0-9_-]{1,128}$/
