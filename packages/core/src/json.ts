// Lossless JSON and its byte accounting, without the cordis seam: light enough to load inside
// every sandbox (the root entry pulls in cordis).
export {
  formatLosslessJsonRefusal,
  isLosslessJson,
  safeLosslessJsonText,
  safeSnapshotLosslessJson,
  snapshotLosslessJson,
  type LosslessJsonOptions,
  type LosslessJsonRefusal,
  type LosslessJsonSnapshot,
  type LosslessJsonText,
} from './lossless-json.js'
export { stringifyJsonValue } from './json-text.js'
export type { CodeJsonValue } from './types.js'
export type { Checked } from './checked.js'
export {
  jsonStringByteLength,
  jsonValueByteLength,
  logsByteLength,
  OutputLedger,
  type OutputLedgerOptions,
} from './output-ledger.js'
