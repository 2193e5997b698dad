export { startTestHost, TEST_HOST_ADMIN_TOKEN, type TestHost, type TestHostOptions } from './test-host.js';
export { CLUSTER_ADMIN_TOKEN, CLUSTER_SECRET, freePort, NodeProcess, type NodeOptions } from './cluster-node.js';
