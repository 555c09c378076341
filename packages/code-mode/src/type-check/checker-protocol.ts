/**
 * The messages between a process and its checker child (see checker-process.ts). Each request
 * carries an id its answer repeats. The child is ours, but what it reports was computed from a
 * program a model wrote, so the host reads each answer by these shapes and nothing else.
 */
import type { JsonSchema } from '../tools/tool-definition.js'
import type { ProgramCheck, TypeCheckMode } from './program-check.js'

/** What a checker is built from, as it crosses to the child. */
export interface CheckerSpec {
  readonly declarations: string
  readonly namespace: string
  readonly schemas: readonly (readonly [member: string, schema: JsonSchema])[]
  readonly timeLimitMs: number
}

/** A name a session kept and its type. */
export type KeptEntry = readonly [name: string, type: string]

/** The session a check runs in: `entries` are sent only when the child's copy is older than `revision`. */
export interface SessionState {
  readonly token: number
  readonly revision: number
  readonly entries?: readonly KeptEntry[]
}

export type CheckerRequest =
  | { readonly type: 'create'; readonly id: number; readonly key: string; readonly spec: CheckerSpec }
  | {
      readonly type: 'check'
      readonly id: number
      readonly key: string
      readonly code: string
      readonly mode: Exclude<TypeCheckMode, 'off'>
      readonly session?: SessionState
    }
  | { readonly type: 'release'; readonly key: string }
  | { readonly type: 'forget'; readonly token: number }

export type CheckerAnswer =
  | { readonly type: 'created'; readonly id: number }
  | {
      readonly type: 'checked'
      readonly id: number
      readonly check: ProgramCheck
      readonly kept?: readonly KeptEntry[]
    }
  | { readonly type: 'failed'; readonly id: number; readonly message: string }
