// The SDK's side of check-sdk: one installed release of `@librechat/agents` driven through its own
// objects. The pieces live in sdk/:
//
//   sdk/release.js  opening a release: its CommonJS build, its version, the shapes the drivers need
//                   (SdkShapeError names what is missing), the network and host seams, private helpers
//   sdk/harness.js  ToolNodes, in-process and host batches, the stream handler's eager prestart
//   sdk/ops.js      one driver per vector op, in the op's answer shape (NotObservable when a release
//                   cannot show an item)

export { NotObservable, SdkShapeError, loadSdk, quietly } from './sdk/release.js';
export { createDrivers } from './sdk/ops.js';
