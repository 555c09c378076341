/**
 * Descriptors a child inherits from the host without being given them: every descriptor the
 * host holds without close-on-exec (inherited from the host's own parent, or opened by native
 * code), which `exec` keeps open in the child. Node's spawn only places the descriptors it is
 * given (stdio and the wire) and cannot close the others, and Node marks only the host's lowest
 * descriptors close-on-exec at start-up. The host lists them just before each spawn; the child
 * closes exactly those before any program runs (see `guest/child-channel.ts`).
 *
 * The child closes only numbers the host saw open: any other number may be one of the child's
 * own Node descriptors, and closing that would break its event loop.
 */
import { closeSync, openSync, readdirSync, readSync } from 'node:fs'

/** `O_CLOEXEC` in the `flags:` line of `/proc/self/fdinfo/<fd>` (octal, Linux). */
const O_CLOEXEC = 0o2000000

/** What the child's argument says when there is nothing to close. */
const NONE = 'none'

/** The largest descriptor number a list may hold; far above any real `RLIMIT_NOFILE`. */
const MAX_DESCRIPTOR = 1 << 20

/** Holds one `fdinfo` file: a few short lines (more only for epoll, inotify and the like, past `flags:`). */
const fdinfoBuffer = Buffer.alloc(512)

/** The start of `/proc/self/fdinfo/<fd>`, or undefined once the descriptor is gone. */
function readDescriptorInfo(path: string): string | undefined {
  let handle: number
  try {
    handle = openSync(path, 'r')
  } catch {
    return undefined
  }
  try {
    return fdinfoBuffer.toString('latin1', 0, readSync(handle, fdinfoBuffer, 0, fdinfoBuffer.length, 0))
  } catch {
    return undefined
  } finally {
    closeSync(handle)
  }
}

/**
 * The host's descriptors from `firstInherited` up that a spawned child will inherit: those
 * without close-on-exec. Descriptors below `firstInherited` are replaced by the child's stdio.
 * It reads one small `/proc` file per descriptor of the host, on every spawn.
 */
export function listInheritableDescriptors(firstInherited: number, procSelf = '/proc/self'): number[] {
  let entries: string[]
  try {
    entries = readdirSync(`${procSelf}/fd`)
  } catch {
    return []
  }
  const inheritable: number[] = []
  for (const entry of entries) {
    const fd = Number(entry)
    if (!Number.isSafeInteger(fd) || fd < firstInherited) continue
    // Undefined when closed since the listing (the listing's own descriptor is one of those).
    const info = readDescriptorInfo(`${procSelf}/fdinfo/${fd}`)
    const flags = info === undefined ? undefined : /^flags:\s*([0-7]+)$/m.exec(info)?.[1]
    if (flags !== undefined && (parseInt(flags, 8) & O_CLOEXEC) === 0) inheritable.push(fd)
  }
  return inheritable.sort((a, b) => a - b)
}

/** A compact argument for a list of descriptors: runs as ranges, `40-41,100`, or `none`. */
export function formatDescriptorList(descriptors: readonly number[]): string {
  const sorted = [...new Set(descriptors)].sort((a, b) => a - b)
  if (sorted.length === 0) return NONE
  const parts: string[] = []
  let start = sorted[0] as number
  let end = start
  for (const fd of sorted.slice(1)) {
    if (fd === end + 1) {
      end = fd
      continue
    }
    parts.push(start === end ? String(start) : `${start}-${end}`)
    start = fd
    end = fd
  }
  parts.push(start === end ? String(start) : `${start}-${end}`)
  return parts.join(',')
}

/** The descriptors in a {@link formatDescriptorList} argument, or undefined when it is malformed. */
export function parseDescriptorList(text: string): number[] | undefined {
  if (text === NONE) return []
  const descriptors: number[] = []
  for (const part of text.split(',')) {
    const match = /^(\d{1,8})(?:-(\d{1,8}))?$/.exec(part)
    if (match === null) return undefined
    const start = Number(match[1])
    const end = match[2] === undefined ? start : Number(match[2])
    if (end < start || end > MAX_DESCRIPTOR) return undefined
    for (let fd = start; fd <= end; fd++) descriptors.push(fd)
  }
  return descriptors
}
