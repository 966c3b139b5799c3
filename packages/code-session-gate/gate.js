// Generated from the operation registry (src/registry.rs): do not edit.
// `CSG_WRITE_GENERATED=1 cargo test -p code-session-gate-generate` rewrites it.
import { GateBase, callOp } from './gate-base.js';

/**
 * The code-session gate of one conversation (see GateBase, gate-base.js). The methods here are the
 * registry's `[plain]` operations: each passes its arguments in order and answers the parsed
 * answer (nothing for `void`); their TSDoc is in ops.d.ts.
 */
export class Gate extends GateBase {
  classify(name) {
    return callOp(this, 'classify', [name]);
  }

  isEagerExcluded(name, options) {
    return callOp(this, 'isEagerExcluded', [name, options]);
  }

  suppressEagerTool(name) {
    callOp(this, 'suppressEagerTool', [name]);
  }

  updateSession(key, artifact, options) {
    callOp(this, 'updateSession', [key, artifact, options]);
  }

  foldResults(path, results, options) {
    callOp(this, 'foldResults', [path, results, options]);
  }

  completeDirectBatch(batch, outcomes, options) {
    callOp(this, 'completeDirectBatch', [batch, outcomes, options]);
  }

  seedRun(initialSessions, agents) {
    callOp(this, 'seedRun', [initialSessions, agents]);
  }

  seedAgents(agents) {
    callOp(this, 'seedAgents', [agents]);
  }

  sessions() {
    return callOp(this, 'sessions', []);
  }

  session(key) {
    return callOp(this, 'session', [key]);
  }

  snapshot() {
    return callOp(this, 'snapshot', []);
  }

  explain(name, options) {
    return callOp(this, 'explain', [name, options]);
  }
}
