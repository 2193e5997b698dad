import type { SocketConfig } from '@whiskeysockets/baileys';

/** A Baileys logger that drops everything. */
export const silent: SocketConfig['logger'] = { level: 'silent', child: () => silent, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
