/**
 * What every server a test starts takes from the environment the run itself was started with:
 * SVC_SDK_SHORTCUTS, which CI sets to `off` for a second run of `npm test` and of the guarantees
 * (.ci/run), so that each suite also holds with the MCP SDK doing all its own work. Tests give
 * servers an environment of their own; this is added to it.
 */
export const RUN_ENV: Readonly<Record<string, string>> = process.env.SVC_SDK_SHORTCUTS ? { SVC_SDK_SHORTCUTS: process.env.SVC_SDK_SHORTCUTS } : {};
