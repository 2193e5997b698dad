export { default } from './plugin.js';
export { createSignalDriver, type SignalDriverOptions } from './driver.js';
export { isGroupId, normalizeSignalAddress, SIGNAL_ADDRESSING } from './addressing.js';
export type { SignalEnvelope, SignalPush } from './inbound.js';
