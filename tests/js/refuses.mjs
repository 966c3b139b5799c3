// The assertion every refusal test makes: `fn` throws a CodeSessionGateError with a stable code (and
// the offending path, when given).
import assert from 'node:assert/strict';

/** Asserts `fn` throws a CodeSessionGateError with `code` (and `path` when given); returns the error. */
export function refuses(fn, code, path) {
  let thrown;
  try {
    fn();
  } catch (e) {
    thrown = e;
  }
  assert.ok(thrown instanceof Error, `expected a throw with code ${code}`);
  assert.equal(thrown.name, 'CodeSessionGateError', thrown.message);
  assert.equal(thrown.code, code, thrown.message);
  if (path !== undefined) assert.equal(thrown.path, path, thrown.message);
  return thrown;
}
