// Types of the workerd entry (workerd.js): instantiated synchronously at import, as the Node entry.
export * from './node.js';
export { default } from './node.js';
