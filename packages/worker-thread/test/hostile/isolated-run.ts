/**
 * Test support for attacks that may abort or freeze the whole process: the program runs in a
 * worker-thread runtime inside a child `node`, so an abort kills the child (reported as its
 * signal) and a thread that cannot be stopped keeps the child from exiting (reported as `hung`)
 * instead of taking the test runner down.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { CodeRunFailure } from '@code-runtime/core'
import type { WorkerThreadConfigInput } from '@code-runtime/worker-thread'

export interface IsolatedRequest {
  readonly program: string
  readonly config: WorkerThreadConfigInput
}

export type IsolatedOutcome =
  | { readonly kind: 'ended'; readonly error?: CodeRunFailure; readonly value?: unknown }
  | { readonly kind: 'died'; readonly signal: string | null; readonly code: number | null; readonly stderr: string }
  | { readonly kind: 'hung' }

const CHILD = fileURLToPath(new URL('./isolated-run-child.js', import.meta.url))

/**
 * How long a child may take before it counts as hung. A healthy child starts Node, spawns one
 * worker, runs for at most its computeMs and exits: a few seconds even on a loaded machine. The
 * margin is generous on purpose; only a stuck thread (which never ends) comes near it.
 */
export const HUNG_AFTER_MS = Number(process.env.ISOLATED_RUN_HUNG_AFTER_MS ?? 120_000)

export function runIsolated(
  program: string,
  config: WorkerThreadConfigInput = { computeMs: 2_000, spawnAhead: 0 },
): Promise<IsolatedOutcome> {
  const request: IsolatedRequest = { program, config }
  return new Promise(resolve => {
    const child = spawn(process.execPath, [CHILD, JSON.stringify(request)], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    let hung = false
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
    })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4_000)
    })
    const timer = setTimeout(() => {
      hung = true
      child.kill('SIGKILL')
    }, HUNG_AFTER_MS)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      if (hung) resolve({ kind: 'hung' })
      else if (code === 0 && stdout.trim() !== '')
        resolve({ kind: 'ended', ...(JSON.parse(stdout) as { error?: CodeRunFailure; value?: unknown }) })
      else resolve({ kind: 'died', signal, code, stderr })
    })
  })
}
