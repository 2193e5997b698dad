import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { STATUS_BROADCAST, ValidationError } from '@parley/core';
import { GROUP_SUFFIX, isGroupJid, jidUser, LID_SUFFIX, RECIPIENT_PATTERN, recipientPatternOr, toJid, USER_SUFFIX } from '../src/index.js';

describe('toJid', () => {
  it('turns digits with country code into a user JID', () => {
    assert.equal(toJid('5511999990000'), '5511999990000@s.whatsapp.net');
    assert.equal(toJid('123456'), '123456@s.whatsapp.net');
    assert.equal(toJid('123456789012345'), '123456789012345@s.whatsapp.net');
  });

  it('strips +, spaces, dashes and parentheses and trims', () => {
    assert.equal(toJid(' +55 (11) 99999-0000 '), '5511999990000@s.whatsapp.net');
  });

  it('keeps JIDs of every accepted domain and maps @c.us to the user suffix', () => {
    for (const jid of ['5511999990000@s.whatsapp.net', '120363025246125888@g.us', '123456789012345@lid', 'status@broadcast', '1234@newsletter', '5511999990000:12@s.whatsapp.net']) {
      assert.equal(toJid(jid), jid);
    }
    assert.equal(toJid('5511999990000@c.us'), '5511999990000@s.whatsapp.net');
  });

  it('refuses too short, too long and non-digit numbers with a ValidationError naming the field', () => {
    for (const bad of ['12345', '1234567890123456', 'abc', '', '55119x999']) {
      assert.throws(() => toJid(bad, 'body.to'), (err: unknown) => {
        assert.ok(err instanceof ValidationError);
        assert.equal(err.status, 400);
        assert.equal(err.code, 'validation_failed');
        assert.equal(err.message, 'body.to must be a phone number with country code (6 to 15 digits) or a JID');
        return true;
      });
    }
  });

  it('refuses JIDs of unknown domains or with bad characters', () => {
    for (const bad of ['5511@example.com', 'a b@s.whatsapp.net', '@g.us', '5511@@g.us']) {
      assert.throws(() => toJid(bad, 'path.jid'), { name: 'ValidationError', message: 'path.jid is not a valid JID' });
    }
  });

  it('names "to" when no field is given', () => {
    assert.throws(() => toJid('x'), { message: 'to must be a phone number with country code (6 to 15 digits) or a JID' });
  });
});

describe('RECIPIENT_PATTERN', () => {
  const samples = [
    '5511999990000', '123456', '123456789012345', ' +55 (11) 99999-0000 ', '+5511999990000', '\t5511999990000\n', '(((123456)))',
    '5511999990000@s.whatsapp.net', '120363025246125888@g.us', '123456789012345@lid', 'status@broadcast', '1234@newsletter',
    '5511999990000:12@s.whatsapp.net', '5511999990000@c.us', ' 5511@g.us ',
    '12345', '1234567890123456', 'abc', '', '55119x999', '5511@example.com', 'a b@s.whatsapp.net', '@g.us', '5511@@g.us', '+', '5511 9999 9000 0000 1',
    '5511999990000@s.whatsapp.net.evil', 'ab_c.d-e@lid', '١٢٣٤٥٦٧', '123456\u00a0',
  ];

  it('accepts exactly what toJid accepts (the schemas state the rule the handlers enforce)', () => {
    const pattern = new RegExp(RECIPIENT_PATTERN, 'u');
    for (const value of samples) {
      let accepted = true;
      try {
        toJid(value);
      } catch {
        accepted = false;
      }
      assert.equal(pattern.test(value), accepted, JSON.stringify(value));
    }
  });

  it('recipientPatternOr adds alternatives', () => {
    const pattern = new RegExp(recipientPatternOr('\\s*\\d{1,32}\\s*'), 'u');
    for (const value of ['17841400000000000', '5511999990000', '5511@g.us']) assert.ok(pattern.test(value), value);
    for (const value of ['abc', '1234567890123456789012345678901234']) assert.ok(!pattern.test(value), value);
  });
});

describe('JID helpers', () => {
  it('jidUser drops the domain and the device suffix', () => {
    assert.equal(jidUser('5511999:3@s.whatsapp.net'), '5511999');
    assert.equal(jidUser('5511999@s.whatsapp.net'), '5511999');
    assert.equal(jidUser('120363@g.us'), '120363');
  });

  it('isGroupJid is true only for the group suffix', () => {
    assert.equal(isGroupJid('120363025246125888@g.us'), true);
    assert.equal(isGroupJid('5511999@s.whatsapp.net'), false);
    assert.equal(isGroupJid('123@lid'), false);
  });

  it('exports the suffix constants', () => {
    assert.deepEqual([USER_SUFFIX, GROUP_SUFFIX, LID_SUFFIX, STATUS_BROADCAST], ['@s.whatsapp.net', '@g.us', '@lid', 'status@broadcast']);
  });
});
