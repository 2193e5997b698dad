import type { InstanceClient } from '@parley/client';
import { sameViewForAll } from './api-assertions.js';
import type { Phone } from './conversation.js';

/** Sandbox phone numbers of the group end-to-end tests. */
export const GROUP_NUMBERS = {
  ALICE: '5511960000001',
  BOB: '5511960000002',
  CAROL: '5511960000003',
  DAVE: '5511960000004',
  ERIN: '5511960000005',
  /** A number no sandbox phone holds. */
  UNKNOWN: '5511960009999',
} as const;

/** A group JID no instance is in. */
export const NO_GROUP = '120363000000000001@g.us';

/**
 * The group calls the group tests make through each phone's typed client. `client` and `current`
 * (the JID of the group under test) are read at call time, since both are set in `before`.
 */
export function groupCalls(client: (key: string) => InstanceClient, current: () => string) {
  const groupOf = (p: Phone, groupJid = current()) => client(p.key).call('getGroup', { params: { groupJid } });
  return {
    groupOf,
    groupsOf: (p: Phone) => client(p.key).call('listGroups'),
    chatOf: async (p: Phone, jid: string) => (await client(p.key).call('listChats')).data.find((c) => c.id === jid)!,
    messagesOf: async (p: Phone, jid: string) => (await client(p.key).call('listChatMessages', { params: { jid } })).data,
    setting: (p: Phone, value: 'announcement' | 'not_announcement' | 'locked' | 'unlocked', groupJid = current()) =>
      client(p.key).call('changeGroupSetting', { params: { groupJid }, query: { setting: value } }),
    role: (p: Phone, action: 'promote' | 'demote', participants: string[], groupJid = current()) =>
      client(p.key).call('changeGroupRole', { params: { groupJid }, query: { action }, body: { participants } }),
    /** The group as every listed member's instance sees it: identical for each. */
    sameForAll: (members: Phone[]) => sameViewForAll(members, async (p) => (await groupOf(p)).data),
  };
}
