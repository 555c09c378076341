/**
 * Code that runs INSIDE the program's vm context, before anything else (the web globals capture
 * the constructors it installs): it routes every way the context has to allocate array-buffer
 * memory through a check, so that the array-buffer budget is enforced even while the program
 * loops synchronously and never yields to the substrate's event loop.
 *
 * Array buffers live outside the V8 heap and its cap. The substrate measures what they hold; this
 * code only decides when to ask: before an allocation whose size is known up front (so a single
 * oversized `new ArrayBuffer(n)` is refused before it happens), and after each megabyte or so of
 * allocations whose size is only known afterwards.
 *
 * Like context-bootstrap.ts, {@link installArrayBufferGuard} is evaluated from its source text:
 * self-contained, no imports, and it captures every intrinsic it uses before the program runs.
 */

/** What the substrate offers the guard. Primitives in, nothing out. */
export interface ArrayBufferGuardHost {
  /**
   * Measures the substrate's array-buffer memory plus `pendingBytes` about to be allocated; over
   * the budget, ends the run (it does not return). A no-op otherwise.
   */
  checkArrayBuffers(pendingBytes: number): void
}

/** Allocations smaller than this add up before the substrate is asked; a check costs ~1 µs. */
export const ARRAY_BUFFER_SAMPLE_BYTES = 1024 * 1024

/**
 * The most bytes one allocation could ever get on a 64-bit host: the 47 bits of user address space
 * x86-64 and arm64 give a process (128 TiB). A larger request is one V8 refuses itself with the
 * catchable `RangeError` the language specifies (`new ArrayBuffer(7 * 2 ** 50)`, `2 ** 53 - 1`),
 * so the guard lets it through instead of ending the run for it; should it ever succeed (a
 * larger address space), the count after the allocation still ends the run before the program
 * can touch the memory.
 */
export const LARGEST_MAPPABLE_BYTES = 2 ** 47

export function installArrayBufferGuard(
  host: ArrayBufferGuardHost,
  sampleBytes: number,
  largestMappableBytes: number,
): void {
  'use strict'
  const { checkArrayBuffers } = host
  const global = globalThis as unknown as Record<string, unknown>
  const { defineProperty, getOwnPropertyDescriptor, getPrototypeOf } = Object
  const { apply, construct } = Reflect
  const ProxyConstructor = Proxy
  const numberIsFinite = Number.isFinite

  const getter = (owner: object, key: string): ((this: unknown) => number) | undefined =>
    getOwnPropertyDescriptor(owner, key)?.get as ((this: unknown) => number) | undefined
  const TypedArrayPrototype = getPrototypeOf(Uint8Array.prototype) as object
  const typedArrayByteLength = getter(TypedArrayPrototype, 'byteLength')
  const arrayBufferByteLength = getter(ArrayBuffer.prototype, 'byteLength')
  const sharedByteLength =
    typeof SharedArrayBuffer === 'function' ? getter(SharedArrayBuffer.prototype, 'byteLength') : undefined

  let unchecked = 0
  function check(pendingBytes: number): void {
    // Never let a failure here become something the program can catch and retry around: the
    // substrate ends the run itself when the budget is exceeded; any other failure is ignored.
    try {
      checkArrayBuffers(pendingBytes)
    } catch {
      // The measurement failed; the next allocation asks again.
    }
  }
  /** Counts bytes just allocated; asks the substrate once enough have added up. */
  function allocated(bytes: number): void {
    unchecked += bytes
    if (unchecked < sampleBytes) return
    unchecked = 0
    check(0)
  }
  /**
   * Asks before an allocation of a known size that alone would be worth a check, unless no host
   * could satisfy it (then V8 throws its own RangeError, as in any realm).
   */
  function beforeAllocating(bytes: unknown): void {
    if (typeof bytes !== 'number' || !numberIsFinite(bytes) || bytes > largestMappableBytes) return
    if (bytes + unchecked >= sampleBytes) check(bytes)
  }
  function sizeOf(made: unknown, byteLength: ((this: unknown) => number) | undefined): number {
    if (byteLength === undefined) return 0
    try {
      return apply(byteLength, made, [])
    } catch {
      return 0
    }
  }

  // Constructors: `new X(n)`, `X.from`, `X.of`, subclasses and every species-created result
  // (`slice`, `map`, `filter`, `ArrayBuffer.prototype.slice`) construct through these proxies,
  // because `prototype.constructor` points at them too.
  function guardConstructor(
    name: string,
    bytesPerUnit: number,
    byteLength: ((this: unknown) => number) | undefined,
  ): void {
    const original = global[name] as (new (...args: unknown[]) => object) | undefined
    if (typeof original !== 'function') return
    const guarded = new ProxyConstructor(original, {
      construct(target, args: unknown[], newTarget: new (...args: unknown[]) => object) {
        const first = args[0]
        if (typeof first === 'number') beforeAllocating(first * bytesPerUnit)
        const made = construct(target, args, newTarget === guarded ? target : newTarget) as object
        allocated(sizeOf(made, byteLength))
        return made
      },
    })
    defineProperty(global, name, { value: guarded, writable: true, configurable: true, enumerable: false })
    defineProperty(original.prototype, 'constructor', {
      value: guarded,
      writable: true,
      configurable: true,
      enumerable: false,
    })
  }
  guardConstructor('ArrayBuffer', 1, arrayBufferByteLength)
  guardConstructor('SharedArrayBuffer', 1, sharedByteLength)
  const typedArrayNames = [
    'Int8Array',
    'Uint8Array',
    'Uint8ClampedArray',
    'Int16Array',
    'Uint16Array',
    'Int32Array',
    'Uint32Array',
    'Float16Array',
    'Float32Array',
    'Float64Array',
    'BigInt64Array',
    'BigUint64Array',
  ]
  for (let index = 0; index < typedArrayNames.length; index++) {
    const name = typedArrayNames[index] as string
    const constructor = global[name] as { BYTES_PER_ELEMENT?: unknown } | undefined
    const bytesPerElement = typeof constructor?.BYTES_PER_ELEMENT === 'number' ? constructor.BYTES_PER_ELEMENT : 1
    guardConstructor(name, bytesPerElement, typedArrayByteLength)
  }

  // Methods that allocate without a constructor call: copies of the same type (`toReversed`,
  // `toSorted`, `with`) are counted after the fact; growth to a requested size (`resize`,
  // `grow`, `transfer`) is checked before it happens.
  function guardMethod(
    owner: object | undefined,
    name: string,
    requestedBytes: ((args: unknown[]) => unknown) | undefined,
    byteLength: ((this: unknown) => number) | undefined,
  ): void {
    if (owner === undefined) return
    const original = getOwnPropertyDescriptor(owner, name)?.value as ((...args: unknown[]) => unknown) | undefined
    if (typeof original !== 'function') return
    const guarded = {
      [name](this: unknown, ...args: unknown[]): unknown {
        if (requestedBytes !== undefined) beforeAllocating(requestedBytes(args))
        const made = apply(original, this, args)
        allocated(sizeOf(made, byteLength))
        return made
      },
    }[name] as (...args: unknown[]) => unknown
    // Same arity as the built-in it replaces, so the program sees no difference in shape.
    defineProperty(guarded, 'length', {
      value: original.length,
      writable: false,
      enumerable: false,
      configurable: true,
    })
    defineProperty(owner, name, { value: guarded, writable: true, configurable: true, enumerable: false })
  }
  const firstArgument = (args: unknown[]): unknown => args[0]
  guardMethod(TypedArrayPrototype, 'toReversed', undefined, typedArrayByteLength)
  guardMethod(TypedArrayPrototype, 'toSorted', undefined, typedArrayByteLength)
  guardMethod(TypedArrayPrototype, 'with', undefined, typedArrayByteLength)
  guardMethod(ArrayBuffer.prototype, 'resize', firstArgument, undefined)
  guardMethod(ArrayBuffer.prototype, 'transfer', firstArgument, arrayBufferByteLength)
  guardMethod(ArrayBuffer.prototype, 'transferToFixedLength', firstArgument, arrayBufferByteLength)
  if (typeof SharedArrayBuffer === 'function')
    guardMethod(SharedArrayBuffer.prototype, 'grow', firstArgument, undefined)
  const Uint8ArrayStatics = Uint8Array as unknown as object
  guardMethod(Uint8ArrayStatics, 'fromBase64', undefined, typedArrayByteLength)
  guardMethod(Uint8ArrayStatics, 'fromHex', undefined, typedArrayByteLength)
}
