/**
 * The folders of this package's built output that the guest half loads modules from: the guest
 * runtime and the protocol it speaks. A backend that runs the guest outside this process (a child
 * process, a container) grants or mounts exactly these, not the host half.
 */
export const GUEST_MODULE_URLS: readonly URL[] = Object.freeze([
  new URL('./guest/', import.meta.url),
  new URL('./protocol/', import.meta.url),
])
