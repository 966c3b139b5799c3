// Work with a bound on what is in flight: the sandbox calls of a batch (at most the user's free run
// slots) and the worker's file checks and fetches (a few at a time, never a thousand at once).

/**
 * Runs `jobs` with at most `limit` of them in flight, keeping their order in the answer; once one fails,
 * no job that has not started starts, and the failure is the answer.
 * @template T
 * @param {(() => Promise<T>)[]} jobs
 * @param {number} limit
 * @returns {Promise<T[]>}
 */
export async function pooled(jobs, limit) {
  const out = new Array(jobs.length);
  let next = 0;
  let failed = false;
  const lane = async () => {
    while (next < jobs.length && !failed) {
      const i = next++;
      try {
        out[i] = await jobs[i]();
      } catch (e) {
        failed = true;
        throw e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, jobs.length)) }, lane));
  return out;
}
