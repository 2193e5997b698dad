export {
  describeChannelConformance, type ChannelConformanceDeclaration, type ChannelConformanceHarness, type ChannelConformanceRun, type ChannelFarSide,
  type ConformanceHost, type ConformanceInboundKind, type InboundAttachment, type InboundRequest, type RouteCall,
} from './channel-conformance.js';
export { CONFORMANCE_MEDIA_LIMITS } from './channel-conformance-media.js';
export {
  describeOutboxConformance, describeRecordStoreConformance, describeStorageConformance, type OutboxHarness, type RecordStoreHarness, type StorageHarness,
  type StoreHarness,
} from './storage-conformance.js';
export { describeClusterStoreConformance } from './cluster-store-conformance.js';
export { describeSignalsConformance, type SignalsHarness } from './signals-conformance.js';
export { describeMessagePageCases } from './storage-message-pages.cases.js';
export { scanAll } from './scan-all.js';
export { filledInstanceRecord, messageRecord, newDelivery } from './storage-fixtures.js';
export { exampleContent } from './channel-conformance-examples.js';
export { startHttpReceiver, type HttpReceiver, type ReceivedRequest, type ReceiverReply, type Responder } from './http-receiver.js';
export { describeWebhookFormatConformance, type WebhookFormatConformanceFixtures } from './webhook-format-conformance.js';
export {
  EXTENSION_EVENT_IDS, INTERNAL_EVENT_NAMES, SPEC_EVENT_IDS, webhookEventFixtures, type ExtensionEventId, type InternalEventName, type SpecEventId,
  type WebhookEventFixtures,
} from './webhook-event-fixtures.js';
export { eventually, TcpProxy } from './tcp-proxy.js';
export { freePort } from './free-port.js';
export { describeSinkConformance, sinkTestMessage, type ReceivedSinkMessage, type SinkConformanceHarness, type SinkReader } from './sink-conformance.js';
export { FakeClock } from './fake-clock.js';
export { instanceRecord } from './instance-fixtures.js';
export { runner, VITEST_TIMEOUT_MS, type TestContext, type TestRunner } from './test-runner.js';
export { answers, LOCAL_SERVICES, serviceUrlOrSkip, type ServiceOptions } from './service-env.js';
export { assertStorageManifest, driverSummary, registerPlugin } from './plugin-registration.js';
export { shippedChannelDirectory } from './channel-directory.js';
export { startHttpProxy, startMediaHost, startSocksProxy, type ConnectSeen, type LocalServer, type SocksSeen } from './local-proxies.js';
export { startCountingListener, type CountingListener } from './counting-listener.js';
export { killLeftovers, spawnNode, untilProcess, type NodeProcess } from './node-process.js';
