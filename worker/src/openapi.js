// The OpenAPI 3.1 document of the worker, made from its contract (src/contract.js) and served without
// auth at `GET /openapi.json`: no second, hand-kept copy of the routes, their bodies or their errors.
import { COMMON_ERRORS, GATE_CODE, ROUTES, SCHEMAS } from './contract.js';

/** The contract's version (the document's `info.version`): raised when a route or a shape changes. */
export const CONTRACT_VERSION = '1.1.0';

const STATUS_TEXT = {
  400: 'Bad request',
  401: 'Unauthenticated',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  413: 'Too large',
  429: 'Too many requests (Retry-After says when to try again)',
  500: 'The worker cannot answer (its log says why under the request id)',
  502: 'The sandbox refused or failed',
  504: 'The sandbox did not answer in time',
};

const REQUEST_ID = { description: "The request's id, also `error.requestId` and in the worker's log line", schema: { type: 'string' } };

/** A route's error codes by status: its own and the common ones of its kind. */
export function errorsOf(/** @type {import('./contract.js').RouteSpec} */ route) {
  /** @type {Record<number, string[]>} */
  const out = {};
  const common = route.auth ? COMMON_ERRORS : {};
  for (const source of [common, route.errors]) {
    for (const [status, codes] of Object.entries(source)) out[Number(status)] = [...new Set([...(out[Number(status)] ?? []), ...codes])];
  }
  return out;
}

/** The schema of an error answer with one of `codes` (a gate refusal: any snake_case code). */
function errorSchema(/** @type {string[]} */ codes) {
  const named = codes.filter((c) => c !== GATE_CODE);
  const code = codes.includes(GATE_CODE) ? { type: 'string', pattern: '^[a-z][a-z_]*$', description: `${named.join(', ')}, or a code of the gate's (the package's CodeSessionGateErrorCode)` } : { enum: named };
  return { allOf: [{ $ref: '#/components/schemas/Error' }, { type: 'object', properties: { error: { type: 'object', properties: { code } } } }] };
}

function content(/** @type {string} */ name) {
  if (name === 'bytes') return { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } };
  return { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } };
}

function parameters(/** @type {import('./contract.js').RouteSpec} */ route) {
  const out = [];
  if (route.path.includes('{id}')) {
    out.push({ name: 'id', in: 'path', required: true, description: "The conversation, scoped to the caller", schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' } });
  }
  if (route.path.includes('{name}')) {
    out.push({ name: 'name', in: 'path', required: true, description: 'A relative file path (an encoded / separates directories), at most 255 characters', schema: { type: 'string' } });
  }
  if (['list', 'upload', 'download'].includes(route.action)) {
    out.push({ name: 'agent', in: 'query', required: false, description: "The partition (the agent's codeSessionKey); default GATE_CONFIG's, else execute_code", schema: { type: 'string', maxLength: 256 } });
  }
  return out;
}

/** The document. */
export function openApiDocument() {
  /** @type {Record<string, Record<string, unknown>>} */
  const paths = {};
  for (const route of ROUTES) {
    const responses = {
      200: { description: 'OK', headers: { 'x-request-id': REQUEST_ID }, content: content(route.answer) },
    };
    for (const [status, codes] of Object.entries(errorsOf(route))) {
      responses[status] = {
        description: `${STATUS_TEXT[/** @type {keyof typeof STATUS_TEXT} */ (status)] ?? 'Error'}: ${codes.map((c) => (c === GATE_CODE ? "the gate's codes" : c)).join(', ')}`,
        headers: { 'x-request-id': REQUEST_ID, 'x-error-code': { description: 'error.code', schema: { type: 'string' } } },
        content: { 'application/json': { schema: errorSchema(codes) } },
      };
    }
    paths[route.path] ??= {};
    paths[route.path][route.method.toLowerCase()] = {
      operationId: route.action.replace(/-(\w)/g, (_, c) => c.toUpperCase()),
      summary: route.summary,
      security: route.auth ? [{ bearer: [] }] : [],
      parameters: parameters(route),
      ...(route.body ? { requestBody: { required: true, content: content(route.body) } } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'code-session-gate worker',
      version: CONTRACT_VERSION,
      description: "Gates an LLM's tool calls with code-session-gate and forwards them to a code sandbox (codeapi or LibreCodeInterpreter); the worker's README documents every setting and behaviour.",
    },
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: "A caller's token: HS256, EdDSA, ES256 or RS256 as the worker is configured; scope files:prime marks a host's" } },
      schemas: SCHEMAS,
    },
  };
}
