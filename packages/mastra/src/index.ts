// What a Mastra user needs: the one call that turns an Agent's tools into `run_code`, its
// options and the tool it returns. Schema reading and the tools' context are internal.

// Mastra tools in, one run_code Mastra tool out
export { codeModeTool, RUN_CODE_TOOL_ID, type CodeModeToolOptions, type RunCodeMastraTool } from './code-mode-tool.js'
// What run_code resolves with, as Mastra records it in the tool result (`payload.result`)
export type { RunCodeInput, RunCodeOutput } from '@code-runtime/code-mode'
