import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FakeSocket } from '../src/testing/index.js';
import { eachOpenHarness, INSTANCE_ID, OWN_JID, PEER_JID, PEER_LID, type Harness } from './harness.js';

const SAVED = '5511977776666@s.whatsapp.net';
const STRANGER = '5511933332222@s.whatsapp.net';
const LID_ONLY = '99990000000001@lid';

// A story with no statusJidList goes to the address book, as WhatsApp's "My contacts" (issue 25, defect 12).
describe('status stories: the default audience', () => {
  let h: Harness;
  let socket: FakeSocket;
  eachOpenHarness((harness, open) => {
    h = harness;
    socket = open;
  });

  it('is the address-book contacts (a saved name), LID-only ones under their number when known, never strangers or the account', async () => {
    const contacts = h.storage.contacts;
    await contacts.upsert(INSTANCE_ID, { id: SAVED, name: 'Ana (saved)', notify: 'Ana' });
    await contacts.upsert(INSTANCE_ID, { id: STRANGER, notify: 'Someone who wrote once' });
    await contacts.upsert(INSTANCE_ID, { id: PEER_LID, name: 'Maria (saved, known by LID)' });
    await contacts.upsert(INSTANCE_ID, { id: LID_ONLY, name: 'No number known' });
    await contacts.upsert(INSTANCE_ID, { id: OWN_JID, name: 'Me' });
    await contacts.upsert(INSTANCE_ID, { id: '120363000000000001@g.us', name: 'A group' });
    await socket.signalRepository.lidMapping.storeLIDPNMappings([{ lid: PEER_LID, pn: PEER_JID }]);

    const story = await h.adapter.capabilities.status!.text('We are open', []);
    const expected = [SAVED, PEER_JID, LID_ONLY].sort();
    assert.deepStrictEqual([...story.statusJidList].sort(), expected);
    const [[, , options]] = socket.callsTo('sendMessage') as [string, unknown, { statusJidList: string[] }][];
    assert.deepStrictEqual([...options.statusJidList].sort(), expected);
  });

  it('a given list is used as it is', async () => {
    await h.storage.contacts.upsert(INSTANCE_ID, { id: SAVED, name: 'Ana (saved)' });
    const story = await h.adapter.capabilities.status!.text('Only for you', [STRANGER]);
    assert.deepStrictEqual(story.statusJidList, [STRANGER]);
  });
});
