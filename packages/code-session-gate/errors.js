// The package's errors: `CodeSessionGateError`s (made by guard.js `gateError`; the module makes its own
// refusals in Rust, crates/wasm/boundary errors.rs, with the same shape), and telling them from anything else.
import { ERROR_NAME } from './guard.js';
export { gateError } from './guard.js';

/**
 * Whether `e` is an error this package threw (`name` "CodeSessionGateError" with a string `code`), and,
 * when `code` is given, one of that code. Checks the shape, not `instanceof`, so that it holds across
 * the package's ESM and CommonJS copies and across realms.
 */
export function isCodeSessionGateError(e, code) {
  if (e === null || typeof e !== 'object') return false;
  try {
    return e.name === ERROR_NAME && typeof e.code === 'string' && (code === undefined || e.code === code);
  } catch {
    // A hostile getter or a revoked Proxy is not one of ours.
    return false;
  }
}

/** Words for a thrown value that cannot throw again (a hostile `message` getter, a revoked Proxy…). */
export function describe(e) {
  try {
    if (e instanceof Error) {
      const m = e.message;
      if (typeof m === 'string') return m;
    }
    if (typeof e === 'string') return e;
  } catch {
    // fall through
  }
  return 'a value that cannot be described';
}
