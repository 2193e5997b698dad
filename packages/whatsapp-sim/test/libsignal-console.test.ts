import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { routeLibsignalConsole } from '../src/libsignal-console.js';

/** libsignal's own session record (CommonJS): its `closeSession` prints the whole session with console.info. */
const { SessionRecord } = createRequire(import.meta.url)('libsignal') as {
  SessionRecord: new () => { closeSession(session: unknown): void };
};
const SECRET = Buffer.from('a private key that must never be printed');
const session = () => ({ indexInfo: { closed: -1, baseKey: SECRET }, currentRatchet: { ephemeralKeyPair: { privKey: SECRET } } });

describe('routeLibsignalConsole', () => {
  let printed: unknown[][];
  let restore: () => void;
  beforeEach(() => {
    printed = [];
    const info = console.info;
    const warn = console.warn;
    console.info = (...args: unknown[]) => void printed.push(args);
    console.warn = (...args: unknown[]) => void printed.push(args);
    restore = () => {
      console.info = info;
      console.warn = warn;
    };
  });
  afterEach(() => restore());

  it('hands libsignal\'s messages to the handler as text only, never its session objects, and leaves other console calls alone', () => {
    const heard: string[][] = [];
    const undo = routeLibsignalConsole((level, message) => heard.push([level, message]));
    try {
      new SessionRecord().closeSession(session());
      console.info('an application line', 42);
    } finally {
      undo();
    }
    assert.deepEqual(heard, [['debug', 'Closing session:']]);
    assert.deepEqual(printed, [['an application line', 42]]);
  });

  it('gives every installed handler each message; the console is restored when the last one goes', () => {
    const first: string[] = [];
    const second: string[] = [];
    const undoFirst = routeLibsignalConsole((_level, message) => first.push(message));
    const undoSecond = routeLibsignalConsole((_level, message) => second.push(message));
    console.warn('Session already open');
    undoFirst();
    console.warn('Session already open');
    undoSecond();
    new SessionRecord().closeSession(session());
    assert.deepEqual([first, second], [['Session already open'], ['Session already open', 'Session already open']]);
    assert.equal(printed.length, 1, 'printed once nothing routes it');
    assert.equal(printed[0]![0], 'Closing session:');
  });
});
