import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ReportedStatuses } from '../src/events/reported-statuses.js';

describe('ReportedStatuses: a status moves once per recipient, whatever number of its devices acknowledge it', () => {
  it('a second delivered (another device) does not advance; read and played do, once each; lower ranks after higher do not', () => {
    const reported = new ReportedStatuses();
    assert.deepEqual(['delivered', 'delivered', 'read', 'delivered', 'read', 'played', 'read'].map((s) => reported.advances('A', s as never)),
      [true, false, true, false, false, true, false]);
  });

  it('keeps messages and group members apart; sent and failed are never held back', () => {
    const reported = new ReportedStatuses();
    assert.equal(reported.advances('A', 'delivered'), true);
    assert.equal(reported.advances('B', 'delivered'), true);
    assert.equal(reported.advances('G', 'delivered', '5511900000001@s.whatsapp.net'), true);
    assert.equal(reported.advances('G', 'delivered', '5511900000002@s.whatsapp.net'), true);
    assert.equal(reported.advances('G', 'delivered', '5511900000001@s.whatsapp.net'), false);
    assert.equal(reported.advances('G', 'delivered'), true, 'the message itself is not a member');
    for (let i = 0; i < 3; i++) assert.equal(reported.advances('A', 'sent'), true);
    for (let i = 0; i < 3; i++) assert.equal(reported.advances('A', 'failed'), true);
  });
});
