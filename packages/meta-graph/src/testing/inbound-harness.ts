import { beforeEach } from 'node:test';
import type { ChannelDriver, ChannelEventPayload, InstanceRecord, SocialLink, Storage } from '@parley/core';
import { signatureHeader } from '../security/signature.js';
import { createDriverHarness, testInstance, type DriverHarness } from './driver-harness.js';
import { deliverOk, fixtureReader } from './inbound-expectations.js';

/** What a channel's inbound-webhook test file declares: its driver, its storage and the account it links. */
export interface InboundHarnessOptions {
  /** `import.meta.url` of the test file: fixtures are read from the plugin's `test/fixtures`. */
  testFileUrl: string;
  /** A fresh driver of the channel (profile lookups as the test wants them). */
  createDriver(): ChannelDriver;
  /** A fresh real storage back end (not initialized yet). */
  storage(): Storage;
  /** The instance's id and the account it links; webhook bodies are signed with its app secret. */
  instanceId: string;
  link: SocialLink;
}

/** The driver harness of the current test, over storage made fresh before each test, and signed deliveries. */
export interface InboundHarness {
  /** The current test's harness (one instance, linking the declared account). */
  readonly harness: DriverHarness;
  /** The current test's storage, initialized. */
  readonly storage: Storage;
  /** `test/fixtures/<name>.json` of the channel plugin. */
  fixture(name: string): Buffer;
  /** The headers Meta sends with `body`, signed with the link's app secret or with `secret`. */
  signed(body: Buffer, secret?: string): Record<string, string>;
  /** Posts a fixture, signed; asserts the 200 and answers every event emitted so far. */
  deliver(name: string): Promise<ChannelEventPayload[]>;
  /** Another harness of a fresh driver over the current storage (a restart), for `instances` (default: the declared one). */
  rewire(instances?: InstanceRecord[]): DriverHarness;
}

/**
 * Registers a `beforeEach` that gives each test fresh storage and a fresh driver harness with the
 * declared instance, as the Instagram and Messenger inbound-mapping tests need.
 */
export function useInboundHarness(options: InboundHarnessOptions): InboundHarness {
  const fixture = fixtureReader(options.testFileUrl);
  const signed = (body: Buffer, secret = options.link.appSecret): Record<string, string> => (
    { 'content-type': 'application/json', 'x-hub-signature-256': signatureHeader(body, secret) }
  );
  let current: { harness: DriverHarness; storage: Storage } | undefined;
  const state = () => {
    if (!current) throw new Error('useInboundHarness: used outside a test');
    return current;
  };
  const rewire = (instances = [testInstance(options.instanceId, [options.link])]) => createDriverHarness(options.createDriver(), state().storage, instances);
  beforeEach(async () => {
    const storage = options.storage();
    await storage.init();
    current = { storage, harness: createDriverHarness(options.createDriver(), storage, [testInstance(options.instanceId, [options.link])]) };
  });
  return {
    get harness() { return state().harness; },
    get storage() { return state().storage; },
    fixture,
    signed,
    rewire,
    deliver(name) {
      const body = fixture(name);
      return deliverOk(state().harness, body, signed(body));
    },
  };
}
