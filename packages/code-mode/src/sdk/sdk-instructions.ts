/**
 * The short guide that goes with the declarations: how a program is written and how tool calls
 * behave. Worded for a model; every rule here is one the runtime and the dispatcher enforce.
 * This is the only place the rules are written: the `run_code` descriptions (here and in the MCP
 * server, with the declarations shown or fetched) compose them from `EmittedSdk.instructions`, so
 * the model reads each rule once per request.
 */
import { TOOL_NAME_PROPERTY, type ResolvedSdkEmitterOptions } from './sdk-options.js'

/** The usage instructions for an SDK with these global names (and tools that need approval, when `hasApprovals`). */
export function writeSdkInstructions(
  { namespace, errorClassName }: ResolvedSdkEmitterOptions,
  hasApprovals = false,
): string {
  return [
    'Write the body of an async function in TypeScript; erasable syntax only (no enum, namespace or parameter properties).',
    `Call tools as \`await ${namespace}.name(args)\`. A failed call throws ${errorClassName} with \`${TOOL_NAME_PROPERTY}\`.`,
    `Independent @readOnly calls can overlap: \`await Promise.all([${namespace}.a(x), ${namespace}.b(y)])\`.`,
    ...(hasApprovals
      ? [
          `A @needsApproval call waits for a person, who may decline it: it then throws ${errorClassName}; catch it to go on without.`,
        ]
      : []),
    'Return or console.log only what you need next.',
  ].join('\n')
}
