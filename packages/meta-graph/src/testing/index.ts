/**
 * Test helpers of the Meta channels: a local Graph API mock and the webhook signature. Exported as
 * `@parley/meta-graph/testing`, so both channel plugins test against the same mock.
 */
export * from './mock-graph.js';
export { signatureHeader } from '../security/signature.js';
export * from './driver-harness.js';
export * from './live-graph-test.js';
export * from './conformance-far-side.js';
export * from './meta-conformance.js';
export * from './inbound-expectations.js';
export * from './plugin-manifest-test.js';
export * from './inbound-harness.js';
