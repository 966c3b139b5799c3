// Generated from the operation registry (src/registry.rs): do not edit.
// `CSG_WRITE_GENERATED=1 cargo test -p code-session-gate-generate` rewrites it.

/**
 * The `Gate` methods written from the registry (its `[plain]` operations): each passes its arguments
 * in order and answers the parsed answer, or nothing when the operation answers `void`.
 * @type {ReadonlyArray<readonly [name: string, parameters: number, answersNothing: boolean]>}
 */
export const PLAIN_METHODS = [
  ['classify', 1, false],
  ['isEagerExcluded', 2, false],
  ['suppressEagerTool', 1, true],
  ['updateSession', 3, true],
  ['foldResults', 3, true],
  ['completeDirectBatch', 3, true],
  ['seedRun', 2, true],
  ['seedAgents', 1, true],
  ['sessions', 0, false],
  ['session', 1, false],
  ['snapshot', 0, false],
  ['explain', 2, false],
];
