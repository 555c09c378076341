/**
 * Test harness for the web globals: a vm context made exactly as in production, the globals
 * built inside it from their source text and installed as its globals, and helpers to run code
 * there and to generate reproducible inputs. The name keeps it out of the published files and out
 * of the test runner's file list.
 */
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import vm from 'node:vm'
import { createWebGlobals, type WebGlobals, type WebGlobalsHost } from './web-globals.js'
import { createWebGlobalsHost } from '../web-globals-host.js'
import { compileContextScript } from '../context-script.js'
import type { capturePrimordials, Primordials } from '../primordials.js'

const primordialsScript = compileContextScript<typeof capturePrimordials>('code-runtime:primordials')

export interface GlobalsContext {
  readonly context: vm.Context
  /** The globals as `createWebGlobals` returned them (objects of the context). */
  readonly globals: WebGlobals
  /** The primordials captured in the context, as the web globals received them. */
  readonly primordials: Primordials
  /** Runs a script in the context and returns its completion value as it is. */
  run(code: string): unknown
  /** Runs a script in the context and returns its completion copied by this realm's JSON. */
  runJson(code: string): unknown
}

export function createGlobalsContext(host: WebGlobalsHost = createWebGlobalsHost()): GlobalsContext {
  const context = vm.createContext(Object.create(null) as object, { codeGeneration: { strings: false, wasm: false } })
  const primordials = primordialsScript.runIn(context)()
  const globals = createWebGlobals(context, primordials, host)
  const install = vm.runInContext(
    `(globals) => { for (const name of Object.keys(globals)) Object.defineProperty(globalThis, name, { value: globals[name], writable: true, configurable: true, enumerable: false }) }`,
    context,
  ) as (globals: WebGlobals) => void
  install(globals)
  const run = (code: string): unknown => vm.runInContext(code, context)
  return {
    context,
    globals,
    primordials,
    run,
    // This realm's JSON reads the context's objects; the context's own JSON may be poisoned.
    runJson: code => JSON.parse(JSON.stringify(run(code)) ?? 'null') as unknown,
  }
}

/** A small seeded generator (mulberry32), so every corpus is the same on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let mixed = state
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1)
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61)
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296
  }
}

/** Random strings mixing ASCII, Latin-1, BMP, astral pairs and lone surrogates. */
export function randomStrings(count: number, maxLength: number, seed: number): string[] {
  const random = seededRandom(seed)
  const pick = (low: number, high: number): number => low + Math.floor(random() * (high - low + 1))
  const strings: string[] = []
  for (let index = 0; index < count; index++) {
    let text = ''
    const length = pick(0, maxLength)
    for (let unit = 0; unit < length; unit++) {
      const choice = random()
      if (choice < 0.35) text += String.fromCharCode(pick(0, 0x7f))
      else if (choice < 0.5) text += String.fromCharCode(pick(0x80, 0x7ff))
      else if (choice < 0.7) text += String.fromCharCode(pick(0x800, 0xd7ff))
      else if (choice < 0.8) text += String.fromCodePoint(pick(0x10000, 0x10ffff))
      else if (choice < 0.87) text += String.fromCharCode(pick(0xd800, 0xdbff))
      else if (choice < 0.94) text += String.fromCharCode(pick(0xdc00, 0xdfff))
      else text += String.fromCharCode(pick(0xe000, 0xffff))
    }
    strings.push(text)
  }
  return strings
}

/** Random byte arrays biased towards the bytes that start, continue or break UTF-8 sequences. */
export function randomByteArrays(count: number, maxLength: number, seed: number): number[][] {
  const random = seededRandom(seed)
  const interesting = [
    0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xee, 0xef, 0xf0,
    0xf1, 0xf4, 0xf5, 0xfe, 0xff, 0xbb,
  ]
  const arrays: number[][] = []
  for (let index = 0; index < count; index++) {
    const bytes: number[] = []
    const length = Math.floor(random() * (maxLength + 1))
    for (let position = 0; position < length; position++) {
      bytes.push(
        random() < 0.7
          ? (interesting[Math.floor(random() * interesting.length)] as number)
          : Math.floor(random() * 256),
      )
    }
    arrays.push(bytes)
  }
  return arrays
}

/** A thrown value described as plain data: its name, message and code. */
export interface ThrownSummary {
  threw: true
  name: string
  message: string
  code?: unknown
}

export function summarizeThrown(error: unknown): ThrownSummary {
  const record = error as { name?: unknown; message?: unknown; code?: unknown }
  const summary: ThrownSummary = { threw: true, name: String(record.name), message: String(record.message) }
  if (record.code !== undefined) summary.code = record.code
  return summary
}

/** Source of a function, evaluated in the context, that summarizes a thrown value the same way. */
export const SUMMARIZE_THROWN_SOURCE = `(error) => { const summary = { threw: true, name: String(error.name), message: String(error.message) }; if (error.code !== undefined) summary.code = error.code; return summary }`

/**
 * The web globals give a program Node 20's answers on every Node version, so a program behaves
 * the same wherever its host runs. Node 22 and 24 changed a few of their own answers (messages of
 * structuredClone's argument checks, the shape of a cloned error's `stack`, URLSearchParams of
 * `null`, TextDecoder options), so a test that compares with "what Node does" compares with Node
 * 20's answer, kept in `test/fixtures/web-globals-node20.json`. On Node 20 the record is checked
 * against Node itself on every run, so it cannot drift; `RECORD_NODE20=1` on Node 20 rewrites it.
 */
export function asNode20Does(name: string, computeHere: () => unknown): unknown {
  const recordUrl = new URL('../../../../test/fixtures/web-globals-node20.json', import.meta.url)
  const record = JSON.parse(readFileSync(recordUrl, 'utf8')) as Record<string, unknown>
  if (process.versions.node.split('.')[0] !== '20') {
    if (!(name in record))
      throw new Error(`No record of Node 20's answer for "${name}": run this test on Node 20 with RECORD_NODE20=1.`)
    return record[name]
  }
  const here = JSON.parse(JSON.stringify(computeHere())) as unknown
  if (process.env['RECORD_NODE20'] === '1') {
    record[name] = here
    writeFileSync(recordUrl, `${JSON.stringify(record, null, 2)}\n`)
  }
  assert.deepEqual(
    record[name],
    here,
    `The record of Node 20's answer for "${name}" is out of date: rerun on Node 20 with RECORD_NODE20=1.`,
  )
  return here
}
