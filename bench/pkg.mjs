// Imports the built package (pkg/node.js) for the bench scripts, retrying for a while when the import
// fails: pkg/ may be rebuilt by scripts/build.sh while the bench starts. A retry imports the entry
// under a new URL query, since a failed module evaluation stays cached under its URL.
const ENTRY = new URL('../pkg/node.js', import.meta.url);
export const PKG_ENTRY = ENTRY.href;

/** @returns {Promise<typeof import('../pkg/node.js')>} */
export async function importGate({ attempts = 8, delayMs = 1500 } = {}) {
  let last;
  for (let i = 0; i < attempts; i++) {
    try {
      return await import(i === 0 ? ENTRY.href : `${ENTRY.href}?retry=${i}`);
    } catch (e) {
      last = e;
      await new Promise((r) => setTimeout(r, delayMs));
    }
  }
  throw new Error(`cannot import ${ENTRY.pathname} after ${attempts} attempts (is pkg/ built? scripts/build.sh): ${last?.message ?? last}`);
}
