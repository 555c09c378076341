// What a LangChain.js app needs to give its agent Code Mode: the one call that turns its tools
// into a run_code tool, and the types of that tool and its artifact.

// LangChain tools in, one run_code tool out
export {
  codeModeTool,
  type CodeModeLangChainTool,
  type CodeModeToolOptions,
  type RunCodeArtifact,
  type RunCodeToolOutput,
} from './code-mode-tool.js'
