/**
 * Declarations of the globals the runtime gives every program beyond ECMAScript's own (which
 * `lib.es2023.d.ts` declares): console, timers, the web globals built in the program's context,
 * and the small `process` shim. Only what the runtime really provides (docs/CONTRACT.md,
 * "Standard globals", "Console", "A minimal process"), so a program that uses something else
 * gets a hint that names it. Written as a script (no imports or exports): its names are global.
 */
export const RUNTIME_GLOBALS_FILE_NAME = 'code-runtime-globals.d.ts'

export const RUNTIME_GLOBALS_DECLARATIONS = `
interface Console {
  log(...data: unknown[]): void
  info(...data: unknown[]): void
  debug(...data: unknown[]): void
  warn(...data: unknown[]): void
  error(...data: unknown[]): void
  trace(...data: unknown[]): void
  dir(item?: unknown, options?: unknown): void
  dirxml(...data: unknown[]): void
  table(tabularData?: unknown, properties?: readonly string[]): void
  assert(condition?: boolean, ...data: unknown[]): void
  count(label?: string): void
  countReset(label?: string): void
  time(label?: string): void
  timeLog(label?: string, ...data: unknown[]): void
  timeEnd(label?: string): void
  group(...label: unknown[]): void
  groupCollapsed(...label: unknown[]): void
  groupEnd(): void
  clear(): void
}
declare var console: Console

declare function setTimeout(callback: (...args: never[]) => void, delay?: number, ...args: unknown[]): number
declare function setInterval(callback: (...args: never[]) => void, delay?: number, ...args: unknown[]): number
declare function setImmediate(callback: (...args: never[]) => void, ...args: unknown[]): number
declare function clearTimeout(id: number | undefined): void
declare function clearInterval(id: number | undefined): void
declare function clearImmediate(id: number | undefined): void
declare function queueMicrotask(callback: () => void): void
declare function structuredClone<T>(value: T, options?: { transfer?: unknown[] }): T
declare function atob(data: string): string
declare function btoa(data: string): string

type BufferSource = ArrayBuffer | SharedArrayBuffer | ArrayBufferView

interface TextEncoder {
  readonly encoding: string
  encode(input?: string): Uint8Array
  encodeInto(source: string, destination: Uint8Array): { read: number; written: number }
}
declare var TextEncoder: { prototype: TextEncoder; new (): TextEncoder }

interface TextDecoder {
  readonly encoding: string
  readonly fatal: boolean
  readonly ignoreBOM: boolean
  decode(input?: BufferSource, options?: { stream?: boolean }): string
}
declare var TextDecoder: {
  prototype: TextDecoder
  new (label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean }): TextDecoder
}

interface URLSearchParams {
  readonly size: number
  append(name: string, value: string): void
  delete(name: string, value?: string): void
  get(name: string): string | null
  getAll(name: string): string[]
  has(name: string, value?: string): boolean
  set(name: string, value: string): void
  sort(): void
  forEach(callback: (value: string, key: string, parent: URLSearchParams) => void, thisArg?: unknown): void
  keys(): IterableIterator<string>
  values(): IterableIterator<string>
  entries(): IterableIterator<[string, string]>
  [Symbol.iterator](): IterableIterator<[string, string]>
  toString(): string
}
declare var URLSearchParams: {
  prototype: URLSearchParams
  new (init?: string | Iterable<readonly [string, string] | readonly string[]> | Record<string, string> | URLSearchParams): URLSearchParams
}

interface URL {
  hash: string
  host: string
  hostname: string
  href: string
  readonly origin: string
  password: string
  pathname: string
  port: string
  protocol: string
  search: string
  readonly searchParams: URLSearchParams
  username: string
  toString(): string
  toJSON(): string
}
declare var URL: {
  prototype: URL
  new (url: string | URL, base?: string | URL): URL
  canParse(url: string | URL, base?: string | URL): boolean
}

interface Crypto {
  randomUUID(): \`\${string}-\${string}-\${string}-\${string}-\${string}\`
  getRandomValues<T extends Int8Array | Uint8Array | Uint8ClampedArray | Int16Array | Uint16Array | Int32Array | Uint32Array | BigInt64Array | BigUint64Array>(array: T): T
}
declare var crypto: Crypto

declare var process: {
  readonly stdout: { write(text: string, callback?: () => void): boolean }
  readonly stderr: { write(text: string, callback?: () => void): boolean }
  readonly env: Readonly<Record<string, string | undefined>>
}
`
