// What the CommonJS bundles take from Node's modules rather than the global scope (esbuild's `inject`
// points every free use in the bundle at these exports): Jest's `jsdom` environment, and any `vm`
// context made without them, runs CommonJS code under a global scope with no TextEncoder or
// TextDecoder. In plain Node they are the same classes as the globals.
export { TextDecoder, TextEncoder } from 'node:util';
