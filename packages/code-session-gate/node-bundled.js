// The node entry as bundlers building for Node take it (the `webpack` and `module` conditions under
// `node`: webpack and so Next.js's server builds, Rollup and so SvelteKit's adapter-node, Vite's SSR
// builds, esbuild --platform=node). A bundle is often deployed
// without node_modules and without the `.wasm` it never copied; the modules' base64 texts come with it
// (carried.js, evaluated before node.js) and are decoded only where the file beside is missing.
// Node itself never takes this file: it loads node.js without the texts. Deployers that trace files
// (@vercel/nft, as Nitro uses it) follow the import of node.js from here, and so ship
// what Node will load.
import './carried.js';

export * from './node.js';
export { default } from './node.js';
