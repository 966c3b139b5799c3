// The two modules' bytes carried inside the JavaScript (their base64 texts, decoded on each call): what
// the inline entry compiles, and the node entry's fallback inside a bundle (imported by node-bundled.js
// before node.js runs), decoded there only when the `.wasm` is not beside the bundle.
import base64 from './code_session_gate_bg.base64.js';
import sandboxBase64 from './code_session_sandbox_bg.base64.js';
import { bytes } from './base64.js';
import { engine } from './engine.js';

engine.carriedCore = () => bytes(base64);
engine.carriedSandbox = () => bytes(sandboxBase64);
