// Every answer the worker gives in the end-to-end tests is held to its OpenAPI document (the worker's
// src/contract.js, as src/openapi.js serves it at GET /openapi.json): a status the route does not list, or
// a body not of the route's shape, fails the test that received it. The harness installs `checkAnswers`
// around fetch, for the base URLs of the workers it starts.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { openApiDocument } from '../../worker/src/openapi.js';

// ajv is a dependency of the worker's package (its tests' contract check), installed with it.
const require = createRequire(new URL('../../worker/package.json', import.meta.url));
const Ajv2020 = require('ajv/dist/2020.js').default;

const doc = openApiDocument();
const ajv = new Ajv2020({ strict: false, allErrors: true });
/** @type {Map<object, import('ajv').ValidateFunction>} */
const compiled = new Map();
const validatorOf = (schema) => {
  if (!compiled.has(schema)) compiled.set(schema, ajv.compile({ ...schema, components: doc.components }));
  return /** @type {import('ajv').ValidateFunction} */ (compiled.get(schema));
};

/** The document's templates as patterns over the path as sent (one segment each, `{name}` the rest). */
const TEMPLATES = Object.keys(doc.paths).map((template) => ({
  template,
  pattern: new RegExp(`^${template.replace(/\{name\}/, '.+').replace(/\{id\}/, '[^/]+')}$`),
}));

/** The answer of a path outside every route: an error of the common shape. */
const UNROUTED = new Set([400, 401, 404, 405, 429, 500]);

/**
 * Checks one answer of the worker against the document.
 * @param {string} method
 * @param {string} target the path and query as sent
 * @param {Response} res a clone the check may read
 */
export async function checkAnswer(method, target, res) {
  const path = target.replace(/[?#].*$/s, '');
  const where = `${method} ${path} → ${res.status}`;
  assert.ok(res.headers.get('x-request-id'), `${where}: every answer names its request (x-request-id)`);
  const route = TEMPLATES.find((t) => t.pattern.test(path));
  const operation = route && doc.paths[route.template][method.toLowerCase()];
  if (!operation) {
    assert.ok(res.status >= 400, `${where}: an answer outside every route of the document`);
    assert.ok(UNROUTED.has(res.status), `${where}: a status no route of the document has`);
    const body = await res.json();
    assert.ok(validatorOf(doc.components.schemas.Error)(body), `${where}: not the document's Error shape: ${JSON.stringify(body)}`);
    return;
  }
  const documented = operation.responses[String(res.status)];
  assert.ok(documented, `${where}: a status the document does not list for ${operation.operationId} (${Object.keys(operation.responses).join(', ')})`);
  const json = documented.content['application/json'];
  if (!json) return; // a file's bytes
  const text = await res.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    assert.fail(`${where}: the answer is not JSON: ${text.slice(0, 200)}`);
  }
  const validate = validatorOf(json.schema);
  assert.ok(validate(body), `${where}: not the document's shape: ${ajv.errorsText(validate.errors)}\n${text.slice(0, 500)}`);
}

/** Base URLs of the workers whose answers are checked. */
const checked = new Set();
let installed = false;

/** Checks every answer of the worker at `baseUrl` from now on (installs the check around fetch once). */
export function checkAnswers(baseUrl) {
  checked.add(baseUrl);
  if (installed) return;
  installed = true;
  const realFetch = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const res = await realFetch(input, init);
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const base = [...checked].find((b) => url.startsWith(`${b}/`));
    if (base !== undefined) {
      const method = (init?.method ?? (typeof input === 'object' && 'method' in input ? input.method : 'GET')).toUpperCase();
      await checkAnswer(method, url.slice(base.length), res.clone());
    }
    return res;
  };
}
