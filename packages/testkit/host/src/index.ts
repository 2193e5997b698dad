export { startTestHost, TEST_HOST_ADMIN_TOKEN, type TestHost, type TestHostOptions } from './test-host.js';
