import { ALL_WA_PATCH_NAMES } from '@whiskeysockets/baileys';
import type { BaileysSocket } from '../socket.js';

/**
 * A full resync (spec 4.1 POST /{key}/instance/resync): forgets the app-state version each collection was
 * synced to, so Baileys asks WhatsApp for every collection from the start (version 0, `return_snapshot`)
 * and replays the address book, chat states and labels. `resyncAppState` alone asks from the synced
 * versions and gets only what changed since: nothing at all after storage was wiped
 * (DELETE /{key}/actions/storage).
 */
export async function fullResync(socket: BaileysSocket): Promise<void> {
  await socket.authState.keys.set({ 'app-state-sync-version': Object.fromEntries(ALL_WA_PATCH_NAMES.map((name) => [name, null])) });
  await socket.resyncAppState(ALL_WA_PATCH_NAMES, false);
}
