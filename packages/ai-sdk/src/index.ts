// What a user of Code Mode with the Vercel AI SDK needs: the one call that turns a ToolSet into
// the run_code tool, what that tool resolves with, and the helpers around it (approval tools, the
// session's end). Schema reading, call options and live logs are internal.

// A ToolSet in, one run_code tool out
export {
  codeModeTool,
  disposeCodeModeTool,
  toolsNeedingApproval,
  type CodeModeAiTool,
  type CodeModeToolOptions,
  type RunCodeToolsContext,
} from './code-mode-tool.js'
// What run_code resolves with: progress (preliminary results), then the run's result
export type { CodeModeToolOutput, CodeModeToolProgress, CodeModeToolResult } from './run-code-output.js'

// Host-facing errors: Code Mode's own class, for CodeModeError.is(error)
export { CodeModeError, type CodeModeErrorCode } from '@code-runtime/code-mode'
