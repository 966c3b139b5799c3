// Live mode: the page's calls sent for real to the local edge worker (worker, started by
// scripts/run.sh), which forwards them to the local sandbox. The page's server (www/serve.mjs) proxies
// `live/*` to the worker, so the page stays same-origin; `live/status` says whether a worker is there.
// The calls go through the worker's own client (worker/client), which the page's server serves
// as `./worker-client.js`: imported on first use, so that the page itself still runs from any static
// server (live mode needs the page's server anyway).

/** Whether a worker is reachable through the page's server: `{ live, worker? }`. */
export async function liveStatus() {
  try {
    const res = await fetch('./live/status', { cache: 'no-store' });
    if (!res.ok) return { live: false };
    const body = await res.json();
    return { live: body?.live === true, worker: body?.worker };
  } catch {
    return { live: false };
  }
}

/**
 * A call's artifact as the sandbox answered it: the worker lists each call's own files, and the files it
 * answered back unchanged (inherited echoes) once per batch (`inherited`, with their count per call).
 * One call per request, as the page sends them, makes the batch's echoes that call's.
 * @param {any} artifact @param {unknown} inherited
 */
function withEchoes(artifact, inherited) {
  const { inherited: count, ...rest } = artifact;
  if (typeof count !== 'number' || count === 0 || !Array.isArray(inherited) || !Array.isArray(rest.files)) return rest;
  return { ...rest, files: [...inherited, ...rest.files] };
}

/**
 * Sends the trace's calls one by one to a fresh conversation of the worker and returns, per step, what
 * the sandbox answered: `{ result: { status, artifact? }, output?, error?, sent? }`. The result is what
 * the page then replays in place of the trace's own.
 * @param {{ steps: any[], agents: Record<string, { codeSessionKey?: string }> }} trace
 */
export async function sendToWorker(trace) {
  const { WorkerError, createClient } = await import('./worker-client.js');
  // No token: the page's server adds it on the way to the worker, so the page never holds it.
  const worker = createClient({ baseUrl: './live' });
  const conversation = `devtools-${crypto.randomUUID()}`;
  const answers = [];
  for (const [i, step] of trace.steps.entries()) {
    const agent = step.agent !== undefined ? trace.agents[step.agent] : undefined;
    let body;
    try {
      body = await worker.toolCalls(conversation, [step.call], { agent: agent?.codeSessionKey });
    } catch (e) {
      // The page shows where a refusal happened: the step it was sent for.
      if (e instanceof WorkerError) e.path = `steps[${i}]`;
      throw e;
    }
    const r = body.results[0] ?? {};
    const artifact = r.artifact === undefined ? undefined : withEchoes(r.artifact, body.inherited);
    answers.push({
      result: { status: r.status === 'error' ? 'error' : 'success', ...(artifact !== undefined ? { artifact } : {}) },
      ...(r.output ? { output: r.output } : {}),
      ...(r.error ? { error: { name: 'SandboxError', code: r.error.code, path: '', message: r.error.message } } : {}),
    });
  }
  return answers;
}
