export { startTestHost, TEST_HOST_ADMIN_TOKEN, type TestHost, type TestHostOptions } from './test-host.js';
export { freePort } from '@parley/testkit';
export { CLUSTER_ADMIN_TOKEN, CLUSTER_SECRET, NodeProcess, type NodeOptions, type NodeSettings, type NodeStorage, type StoragePluginEntry } from './cluster-node.js';
