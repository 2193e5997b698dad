import type { SocketConfig } from '@whiskeysockets/baileys';

/** A Baileys-shaped logger that drops everything: the simulator's own use of Baileys' Signal code is quiet. */
export const silentLogger: SocketConfig['logger'] = {
  level: 'silent', child: () => silentLogger, trace() {}, debug() {}, info() {}, warn() {}, error() {},
};
