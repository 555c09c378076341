/**
 * In-context script `code-runtime:globals/node-errors`: the errors the web globals throw, shaped
 * as Node's (its `code`, its "Received ..." wording, DOMException names), built from the context's
 * own Error classes so that no error of the substrate's realm ever reaches the program.
 *
 * Like every in-context script it is evaluated from its source text: it names no global and no
 * module-level helper, and uses only the {@link Primordials} it is given.
 */
import type { Primordials } from '../primordials.js'

export function createNodeErrors(primordials: Primordials) {
  'use strict'
  const {
    create,
    defineData,
    frozenRecord,
    getOwnPropertyDescriptor,
    getPrototypeOf,
    hasOwn,
    stringSlice,
    symbolToString,
    ErrorConstructor,
    TypeErrorConstructor,
  } = primordials

  /** An error carrying Node's `code`, so programs written against Node can branch on it. */
  function codedError(Constructor: ErrorConstructor, message: string, code: string): Error {
    const error = new Constructor(message)
    defineData(error, 'code', code, true)
    return error
  }
  function missingArguments(message: string): Error {
    return codedError(TypeErrorConstructor, message, 'ERR_MISSING_ARGS')
  }
  function invalidThis(type: string): Error {
    return codedError(TypeErrorConstructor, `Value of "this" must be of type ${type}`, 'ERR_INVALID_THIS')
  }
  function invalidArgumentType(message: string): Error {
    return codedError(TypeErrorConstructor, message, 'ERR_INVALID_ARG_TYPE')
  }
  /** The name of the nearest `constructor` found without running any getter; `Object` by default. */
  function constructorNameOf(value: object): string {
    let prototype: object | null = value
    for (let depth = 0; prototype !== null && depth < 1000; depth++) {
      const constructorDescriptor = getOwnPropertyDescriptor(prototype, 'constructor')
      const constructor: unknown =
        constructorDescriptor !== undefined && hasOwn(constructorDescriptor, 'value')
          ? constructorDescriptor.value
          : undefined
      if (typeof constructor === 'function') {
        const nameDescriptor = getOwnPropertyDescriptor(constructor, 'name')
        const name: unknown =
          nameDescriptor !== undefined && hasOwn(nameDescriptor, 'value') ? nameDescriptor.value : undefined
        if (typeof name === 'string' && name !== '') return name
      }
      prototype = getPrototypeOf(prototype) as object | null
    }
    return 'Object'
  }
  /** The "Received ..." tail of Node's argument errors. */
  function describeReceived(value: unknown): string {
    if (value === null || value === undefined) return `Received ${value === null ? 'null' : 'undefined'}`
    if (typeof value === 'function') {
      const nameDescriptor = getOwnPropertyDescriptor(value, 'name')
      const name: unknown = nameDescriptor !== undefined && hasOwn(nameDescriptor, 'value') ? nameDescriptor.value : ''
      return `Received function ${typeof name === 'string' && name !== '' ? name : '<anonymous>'}`
    }
    if (typeof value === 'object') return `Received an instance of ${constructorNameOf(value)}`
    if (typeof value === 'symbol') return `Received type symbol (${symbolToString(value)})`
    let shown = typeof value === 'string' ? `'${value}'` : `${value as number}${typeof value === 'bigint' ? 'n' : ''}`
    if (shown.length > 28) shown = `${stringSlice(shown, 0, 25)}...`
    return `Received type ${typeof value} (${shown})`
  }
  const domExceptionCodes = create(null) as Record<string, number>
  domExceptionCodes.InvalidCharacterError = 5
  domExceptionCodes.TypeMismatchError = 17
  domExceptionCodes.QuotaExceededError = 22
  domExceptionCodes.DataCloneError = 25
  /** Node throws DOMExceptions here; this one is an `Error` of the context with the same name and code. */
  class DOMException extends ErrorConstructor {
    constructor(message: string, name: string) {
      super(message)
      defineData(this, 'name', name, false)
      defineData(this, 'code', hasOwn(domExceptionCodes, name) ? domExceptionCodes[name] : 0, false)
    }
  }
  /** A fresh error of the context for a host service that failed or answered out of shape. */
  function hostFailure(operation: string): Error {
    return new ErrorConstructor(`${operation} could not be completed in this sandbox.`)
  }

  return frozenRecord({
    codedError,
    missingArguments,
    invalidThis,
    invalidArgumentType,
    describeReceived,
    DOMException,
    hostFailure,
  })
}

/** The record {@link createNodeErrors} returns. */
export type NodeErrors = ReturnType<typeof createNodeErrors>
