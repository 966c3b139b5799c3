// What the `Gate` methods that take a host's handling and the forwarding path do with their arguments
// before the module sees them (gate.js calls these): the answer-shaping flags read and kept out of the
// module, a sandbox body passed as it is (text or bytes), and a dispatched request's context that is
// still the object the gate handed out marked `unchanged` instead of read again.
import { encoder } from './call.js';
import { gateError } from './errors.js';
import { ReadOptions, bodyOf, flag, isRecord, lengthOf, member, read } from './read-once.js';
import { batchAndBodies, headAndBody, unchangedRequest } from './wire.js';

/**
 * The options of `completeEventBatch` / `settleEager` for the module: the requests as the host left
 * them, a context that is still the very object handed out (`handed`: request id → context) marked
 * `unchanged` (and not read again); anything else is read as the host's.
 * @param {unknown} options @param {Map<string, unknown> | undefined} handed
 */
export function hostHandling(options, handed) {
  if (!isRecord(options)) return options;
  const requests = member(options, 'requests', 'options');
  // The members read here are written as read; the others go to the module as they are (it ignores
  // a key it does not know, and refuses a misspelt one).
  const given = new Map([
    ['results', member(options, 'results', 'options')],
    ['rejected', member(options, 'rejected', 'options')],
    ['now', member(options, 'now', 'options')],
    ['requests', requests],
  ]);
  if (!Array.isArray(requests)) return new ReadOptions(options, given);
  const n = lengthOf(requests, 'options.requests');
  const out = new Array(n);
  for (let i = 0; i < n; i++) {
    const at = `options.requests[${i}]`;
    const r = read(requests, i, at);
    if (!isRecord(r)) {
      out[i] = r;
      continue;
    }
    const id = member(r, 'id', at);
    const ctx = member(r, 'codeSessionContext', at);
    out[i] =
      handed !== undefined && typeof id === 'string' && handed.has(id) && handed.get(id) === ctx
        ? unchangedRequest(id)
        : { id, codeSessionContext: ctx };
  }
  given.set('requests', out);
  return new ReadOptions(options, given);
}

/**
 * `sandboxRequest`'s options for the module, and how its answer is handed out (`bodyBytes`,
 * `withFiles`: this layer's business, never the module's).
 * @param {unknown} options
 */
export function requestOptions(options) {
  if (!isRecord(options)) return { options, bytes: false, files: false };
  const bytes = flag(options, 'bodyBytes');
  const files = flag(options, 'withFiles');
  return { options: new ReadOptions(options, REQUEST_FLAGS), bytes, files };
}

/** `sandboxRequest`'s flags, read here and left out of the module's text. */
const REQUEST_FLAGS = new Map([['bodyBytes', undefined], ['withFiles', undefined]]);
/** `sandboxAnswer`'s body taken as it is (text or bytes) and its flag, left out of the module's text. */
const ANSWER_TAKEN = new Map([['body', undefined], ['withArtifact', undefined]]);

/**
 * The module's answer to `sandboxRequest` (its head and body, wire.js) as the request handed out.
 * @param {string} out @param {boolean} bytes @param {boolean} files
 */
export function forwardedRequest(out, bytes, files) {
  const [head, body] = headAndBody(out);
  return withBody(head, body, bytes, files);
}

/**
 * The module's answer to `forwardEventBatch` (the batch without the bodies, then each request's body,
 * wire.js) as the batch handed out, each refused call with its refusal as the error `sandboxRequest`
 * would throw.
 * @param {string} out @param {boolean} bytes @param {boolean} files
 */
export function forwardedBatch(out, bytes, files) {
  const [batch, bodies] = batchAndBodies(out);
  const requests = batch.requests;
  for (let i = 0; i < requests.length; i++) withBody(requests[i], bodies[i], bytes, files);
  batch.refused = batch.refused.map((r) => ({ id: r.id, name: r.name, error: gateError(r.code, r.path, r.message) }));
  return batch;
}

/** A request's head with its `body` (text or bytes) and, when asked, the refs it sends (`files`). */
function withBody(head, body, bytes, files) {
  // The refs sent are the body's own (which leaves `files` out when there are none).
  if (files) head.files = JSON.parse(body).files ?? [];
  head.body = bytes ? encoder.encode(body) : body;
  return head;
}

/**
 * `sandboxAnswer`'s answer object for the module: the body as it is, never as a JSON string (its text,
 * or its bytes as `raw`), and whether the artifact is wanted back (`withArtifact`).
 * @param {object} answer
 */
export function answerOptions(answer) {
  const { body, raw } = bodyOf(answer);
  const artifact = flag(answer, 'withArtifact');
  const known = raw === undefined ? new Map([['body', body], ['withArtifact', undefined]]) : ANSWER_TAKEN;
  return { options: new ReadOptions(answer, known), raw, artifact };
}
