export { MockSignalNetwork, type MockSent } from './mock-signal-network.js';
