/**
 * The container backend's check at plugin load: bubblewrap is installed and can build the
 * sandbox on this machine (user namespaces allowed, mounts possible, Node starting inside). A
 * failure becomes `CODE_RUNTIME_UNAVAILABLE` with what to do about it.
 */
import { execFile } from 'node:child_process'
import { CodeRuntimeError } from '@code-runtime/core'

const PROBE_TIMEOUT_MS = 20_000

const INSTALL_HINT =
  "Install it with `apt-get install bubblewrap` (Debian, Ubuntu), `dnf install bubblewrap` (Fedora) or your system's package manager."

const NAMESPACE_HINT =
  'Allow unprivileged user namespaces: `sysctl -w kernel.unprivileged_userns_clone=1` (Debian), ' +
  '`sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` (Ubuntu 23.10 and later), or a larger `user.max_user_namespaces`; ' +
  'inside a container, run it with user namespaces permitted.'

/** The error for a host without bubblewrap. */
export function bubblewrapMissingError(): CodeRuntimeError {
  return new CodeRuntimeError(
    'CODE_RUNTIME_UNAVAILABLE',
    `The container backend needs bubblewrap (bwrap) and it is not installed. ${INSTALL_HINT}`,
  )
}

/**
 * Runs `bwrap args` (a sandbox whose command exits at once) and resolves when it succeeds.
 * @throws {CodeRuntimeError} `CODE_RUNTIME_UNAVAILABLE` with bubblewrap's own reason and a hint.
 */
export function probeSandbox(bwrapPath: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(bwrapPath, args, { env: {}, timeout: PROBE_TIMEOUT_MS, encoding: 'utf8' }, (error, _stdout, stderr) => {
      if (error === null) {
        resolve()
        return
      }
      const reason =
        stderr
          .split('\n')
          .find(line => line.trim() !== '')
          ?.trim() ?? error.message
      const namespaceProblem = /namespace|uid map|permission|operation not permitted/i.test(reason)
      reject(
        new CodeRuntimeError(
          'CODE_RUNTIME_UNAVAILABLE',
          `bubblewrap could not start a sandbox on this machine (${reason}). ${namespaceProblem ? NAMESPACE_HINT : 'Check that bubblewrap works: `bwrap --unshare-all --ro-bind / / true`.'}`,
          { cause: error },
        ),
      )
    })
  })
}
