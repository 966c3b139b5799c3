// Types of `code-session-gate/inline` (inline.js): instantiated synchronously at import from the
// inlined module, so the constants are set from the start, as in the Node and workerd entries.
export * from './node.js';
export { default } from './node.js';
