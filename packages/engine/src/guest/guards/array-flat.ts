/** `flat` and `flatMap`, written out as the spec's loops: nested arrays say nothing of their size up front. */
import {
  ObjectConstructor,
  defineProperty,
  apply,
  reflectGet,
  reflectHas,
  isArray,
  StringConstructor,
  ArrayPrototype,
  TypeErrorConstructor,
  type Native,
} from './intrinsics.js'
import { maxLength, refuse } from './sandbox-limits.js'
import { toInteger, toLength, createDataProperty, requireCoercible } from './spec-operations.js'
import { pinned } from './stable-reads.js'

export function installFlatGuards(): void {
  // flat and flatMap walk nested arrays the receiver's length says nothing about; they are
  // written out here, as the spec does, so the walk is a loop the compute budget can stop.
  const nativeMap = ArrayPrototype.map
  function flattenInto(
    target: object,
    source: object,
    sourceLength: number,
    start: number,
    depth: number,
    mapper?: { fn: unknown; thisArg: unknown },
  ): number {
    let targetIndex = start
    for (let sourceIndex = 0; sourceIndex < sourceLength; sourceIndex++) {
      const key = StringConstructor(sourceIndex)
      if (!reflectHas(source, key)) continue
      let element: unknown = reflectGet(source, key)
      if (mapper !== undefined) element = apply(mapper.fn as Native, mapper.thisArg, [element, sourceIndex, source])
      if (depth > 0 && isArray(element)) {
        const elementLength = toLength(reflectGet(element as object, 'length'))
        targetIndex = flattenInto(target, element as object, elementLength, targetIndex, depth - 1)
      } else {
        if (targetIndex >= maxLength) refuse('Array.prototype.flat', targetIndex + 1)
        createDataProperty(target, targetIndex, element)
        targetIndex++
      }
    }
    return targetIndex
  }
  /** ArraySpeciesCreate(object, 0), exactly as the native methods do it. */
  function speciesCreate(object: object): object {
    return apply(nativeMap, pinned(object, { length: 0 }), [() => undefined]) as object
  }
  const flatMethods = {
    flat(this: unknown, depth?: unknown): unknown[] {
      const object = ObjectConstructor(requireCoercible(this, 'flat')) as object
      const sourceLength = toLength(reflectGet(object, 'length'))
      const depthNumber = depth === undefined ? 1 : toInteger(depth)
      const target = speciesCreate(object)
      flattenInto(target, object, sourceLength, 0, depthNumber < 0 ? 0 : depthNumber)
      return target as unknown[]
    },
    flatMap(this: unknown, mapper: unknown, thisArg?: unknown): unknown[] {
      const object = ObjectConstructor(requireCoercible(this, 'flatMap')) as object
      const sourceLength = toLength(reflectGet(object, 'length'))
      if (typeof mapper !== 'function') throw new TypeErrorConstructor(`flatMap mapper function is not callable`)
      const target = speciesCreate(object)
      flattenInto(target, object, sourceLength, 0, 1, { fn: mapper, thisArg })
      return target as unknown[]
    },
  }
  // The native `length`s: `flat([depth])` and `flatMap(mapper[, thisArg])`.
  defineProperty(flatMethods.flat, 'length', { value: 0, configurable: true })
  defineProperty(flatMethods.flatMap, 'length', { value: 1, configurable: true })
  defineProperty(ArrayPrototype, 'flat', {
    value: flatMethods.flat,
    writable: true,
    configurable: true,
    enumerable: false,
  })
  defineProperty(ArrayPrototype, 'flatMap', {
    value: flatMethods.flatMap,
    writable: true,
    configurable: true,
    enumerable: false,
  })
}
