/** The parameter through which a session run's prologue hands its top-level functions to the session. */
export const SESSION_KEEP_PARAMETER = '__codeRuntimeKeep'
