// Generated from the operation registry (src/registry.rs): do not edit. The package's static
// functions, each running its operation, and its constants (crates/generate/src/constants.rs); their types and
// documentation are in ops.d.ts.
// `CSG_WRITE_GENERATED=1 cargo test -p code-session-gate-generate` rewrites it.
import { callStaticOp, constant } from './call.js';

export function toInjectedFileRef(file, execSessionId) {
  return callStaticOp('toInjectedFileRef', [file, execSessionId]);
}

export function planToolRequests(calls, options) {
  return callStaticOp('planToolRequests', [calls, options]);
}

export function buildExecRequest(options) {
  return callStaticOp('buildExecRequest', [options]);
}

export function readExecResponse(options) {
  return callStaticOp('readExecResponse', [options]);
}

export function buildSandboxRequest(options) {
  return callStaticOp('buildSandboxRequest', [options]);
}

export function readSandboxResponse(options) {
  return callStaticOp('readSandboxResponse', [options]);
}

export function stripTrustedFields(modelArgs) {
  return callStaticOp('stripTrustedFields', [modelArgs]);
}

export function explainInjectedFileRef(file, execSessionId) {
  return callStaticOp('explainInjectedFileRef', [file, execSessionId]);
}

export function diffSessions(before, after) {
  return callStaticOp('diffSessions', [before, after]);
}

export function limits() {
  return constant('limits');
}

export function trustedFields() {
  return constant('trustedFields');
}

export function codeExecutionTools() {
  return constant('codeExecutionTools');
}

export function codeEnvKinds() {
  return constant('codeEnvKinds');
}

export function verdictBits() {
  return constant('verdictBits');
}
