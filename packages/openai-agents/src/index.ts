// The public surface: one call that turns an Agent's function tools into one run_code function
// tool, its options, and where an app reads a run's structured outcome.

// Code Mode for the OpenAI Agents SDK: function tools in, one run_code function tool out
export { codeModeTool, type CodeModeToolOptions, type RunCodeCall } from './code-mode-tool.js'
// A run's structured outcome on its run item (customData), for the app; the model reads the text
export { readRunCodeOutput, RUN_CODE_CUSTOM_DATA_KEY } from './run-code-output.js'
