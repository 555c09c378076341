/**
 * `Map.prototype.set` and `Set.prototype.add` past V8's largest collection: V8 aborts the whole
 * process a little above 2^24 entries instead of throwing, so the sandbox refuses the entry first
 * with the RangeError V8 would have thrown at its own limit.
 */
import type { ResourceGuardLimits } from '../context-bootstrap.js'
import type { BootstrapKit } from './bootstrap-kit.js'

export function installCollectionGuards({ primordials }: BootstrapKit, limits: ResourceGuardLimits): void {
  const {
    defineProperty,
    apply,
    RangeErrorConstructor,
    MapConstructor,
    mapHas,
    mapSize,
    SetConstructor,
    setHas,
    setSize,
  } = primordials
  // Some allocations abort the whole process in V8 instead of throwing. Refusing them here turns
  // a host crash into an ordinary RangeError the program can see.
  function guardMethod(owner: object, name: string, check: (receiver: unknown, args: unknown[]) => void): void {
    const original = (owner as Record<string, (...args: unknown[]) => unknown>)[name] as (...args: unknown[]) => unknown
    const guarded = {
      [name](this: unknown, ...args: unknown[]): unknown {
        check(this, args)
        return apply(original, this, args)
      },
    }[name] as (...args: unknown[]) => unknown
    // The native `length` (2 for Map.prototype.set, 1 for Set.prototype.add), not the rest parameter's 0.
    defineProperty(guarded, 'length', { value: original.length, configurable: true })
    defineProperty(owner, name, { value: guarded, writable: true, configurable: true, enumerable: false })
  }
  guardMethod(MapConstructor.prototype, 'set', (receiver, args) => {
    const size = mapSize(receiver)
    if (size >= limits.maxCollectionSize && !mapHas(receiver as Map<unknown, unknown>, args[0])) {
      throw new RangeErrorConstructor(`Map maximum size exceeded (${limits.maxCollectionSize} entries in this sandbox)`)
    }
  })
  guardMethod(SetConstructor.prototype, 'add', (receiver, args) => {
    const size = setSize(receiver)
    if (size >= limits.maxCollectionSize && !setHas(receiver, args[0])) {
      throw new RangeErrorConstructor(`Set maximum size exceeded (${limits.maxCollectionSize} entries in this sandbox)`)
    }
  })
}
