export * from './describe-error.js';
export * from './ids.js';
export * from './jid.js';
export * from './keyed-serial-queue.js';
export * from './net-guard.js';
export * from './private-files.js';
export * from './redact.js';
export * from './whatsapp-content.js';
