/** Test support: start each backend, plainly or with a test-only child entry. */
import {
  startCodeRuntime,
  type CodeRunRequest,
  type CodeRunResult,
  type CodeSession,
  type CodeSessionOptions,
  type StartedCodeRuntime,
} from '@code-runtime/core'
import {
  ContainerCodeRuntime,
  ProcessCodeRuntime,
  resolveContainerConfig,
  resolveProcessConfig,
  type ContainerConfigInput,
  type ProcessConfigInput,
} from '@code-runtime/process'
import { createContainerEngine } from '../src/container-runtime.js'
import { createProcessEngine } from '../src/process-runtime.js'

/** The two backends of this package. */
export type BackendName = 'process' | 'container'

export function startProcessRuntime(config: ProcessConfigInput = {}): Promise<StartedCodeRuntime<ProcessCodeRuntime>> {
  return startCodeRuntime(ProcessCodeRuntime, config)
}

export function startContainerRuntime(
  config: ContainerConfigInput = {},
): Promise<StartedCodeRuntime<ContainerCodeRuntime>> {
  return startCodeRuntime(ContainerCodeRuntime, config)
}

/** A runtime whose children run a test-only entry module. */
export interface HookedRuntime {
  run(request: CodeRunRequest): Promise<CodeRunResult>
  openSession(options?: CodeSessionOptions): Promise<CodeSession>
  dispose(): Promise<void>
}

/** The test-only entries in `test/fixtures`. */
export type FixtureEntry = 'escaped-child-entry' | 'garbage-child-entry' | 'session-forging-child-entry'

/**
 * Starts `backend` with children running fixture `entry`. `withoutPermissionModel` plays an
 * escape through native code, which Node's in-process permission model cannot stop.
 */
export async function startHookedRuntime(
  backend: BackendName,
  entry: FixtureEntry,
  options: {
    readonly config?: ContainerConfigInput
    readonly withoutPermissionModel?: boolean
  } = {},
): Promise<HookedRuntime> {
  const testOnlyEntry = {
    entry: new URL(`./fixtures/${entry}.js`, import.meta.url),
    withoutPermissionModel: options.withoutPermissionModel ?? false,
  }
  if (backend === 'process') {
    const { maxProcesses: _maxProcesses, tmpfsSizeMb: _tmpfsSizeMb, ...processConfig } = options.config ?? {}
    const engine = createProcessEngine(resolveProcessConfig(processConfig), testOnlyEntry)
    return {
      run: request => engine.run(request),
      openSession: options => engine.openSession(options),
      dispose: () => engine.dispose(),
    }
  }
  const started = await createContainerEngine(resolveContainerConfig(options.config ?? {}), testOnlyEntry)
  return {
    run: request => started.engine.run(request),
    openSession: options => started.engine.openSession(options),
    dispose: () => started.dispose(),
  }
}
