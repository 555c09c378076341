/**
 * The metrics of `serve --http`'s admission (run-admission.ts), through `@opentelemetry/api`
 * alone: how long each admitted run waited to start (`code_runtime.admission.wait`, seconds, an
 * immediate start counted as 0), how many runs wait now (`code_runtime.admission.waiting`, all
 * principals together: a principal is a caller's identity, never an attribute), and the runs
 * refused because the queue was full (`code_runtime.admission.refused`, by which bound).
 *
 * As in code-mode's run-metrics.ts, the instruments are made from the meter provider registered
 * now and made again when it changes (the metrics API has no proxy); nothing here registers
 * anything.
 */
import { metrics, type Counter, type Histogram, type MeterProvider } from '@opentelemetry/api'
import { PACKAGE_INFO } from '../package-info.js'

// From 1 ms (a release hands the slot on at once) to a minute (a run at its wall budget ahead).
const SECONDS_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]

/** What an admission tells the `waiting` gauge. */
export interface CountedAdmission {
  /** Runs waiting to start now, all principals together. */
  readonly waitingRuns: number
}

interface Instruments {
  readonly wait: Histogram
  readonly refused: Counter
}

// Weakly held: an admission dropped with its server must not be kept alive by the gauge.
const countedAdmissions = new Set<WeakRef<CountedAdmission>>()
let made: { readonly provider: MeterProvider; readonly instruments: Instruments } | undefined

function instruments(): Instruments {
  const provider = metrics.getMeterProvider()
  if (made?.provider === provider) return made.instruments
  const meter = provider.getMeter(PACKAGE_INFO.name, PACKAGE_INFO.version)
  meter
    .createObservableUpDownCounter('code_runtime.admission.waiting', {
      description: 'Runs waiting for their turn to start (--max-runs, --max-runs-per-principal), all callers together.',
    })
    .addCallback(result => {
      let waiting = 0
      for (const held of countedAdmissions) {
        const admission = held.deref()
        if (admission === undefined) countedAdmissions.delete(held)
        else waiting += admission.waitingRuns
      }
      result.observe(waiting)
    })
  made = {
    provider,
    instruments: {
      wait: meter.createHistogram('code_runtime.admission.wait', {
        description: 'How long an admitted run waited for its turn to start (0 for one that started at once).',
        unit: 's',
        advice: { explicitBucketBoundaries: SECONDS_BUCKETS },
      }),
      refused: meter.createCounter('code_runtime.admission.refused', {
        description: 'Runs refused at once because the queue was full, by the bound that was reached.',
      }),
    },
  }
  return made.instruments
}

/** Records the wait of one admitted run, in milliseconds. */
export function recordAdmissionWait(waitedMs: number): void {
  instruments().wait.record(waitedMs / 1_000)
}

/** Counts one run refused at once: the whole queue (`total`) or its caller's share (`principal`) was full. */
export function recordAdmissionRefused(bound: 'total' | 'principal'): void {
  instruments().refused.add(1, { 'code_runtime.admission.bound': bound })
}

/** Counts `admission`'s waiting runs in `code_runtime.admission.waiting`. */
export function countAdmission(admission: CountedAdmission): void {
  countedAdmissions.add(new WeakRef(admission))
  // The gauge's callback is added to the meter of the provider registered now.
  instruments()
}
