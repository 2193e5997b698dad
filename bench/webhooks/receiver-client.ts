/**
 * The bench's side of the webhook receiver (`receiver.ts`, forked in its own process): its URL and its
 * IPC commands. Used by bench/webhooks and bench/whatsapp-sim.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { CapturedRequest } from './receiver.js';

/** The receiver process and its IPC commands. */
export class Receiver {
  private constructor(private readonly child: ChildProcess, readonly url: string) {}

  /** `only`: a native event type, the only one the receiver records (see receiver.ts). */
  static async start(only?: string): Promise<Receiver> {
    const child = fork(fileURLToPath(new URL('./receiver.js', import.meta.url)), only ? [only] : [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const { port } = await Receiver.next<{ port: number }>(child, 'listening');
    return new Receiver(child, `http://127.0.0.1:${port}`);
  }

  private static next<T>(child: ChildProcess, cmd: string): Promise<T> {
    return new Promise((resolve) => {
      const on = (message: { cmd: string }) => {
        if (message.cmd !== cmd) return;
        child.off('message', on);
        resolve(message as T);
      };
      child.on('message', on);
    });
  }

  /** Resolves once `count` requests arrived since the last reset. */
  expect(count: number): Promise<unknown> {
    const reached = Receiver.next(this.child, 'reached');
    this.child.send({ cmd: 'expect', count });
    return reached;
  }

  async times(): Promise<[string, number][]> {
    const answer = Receiver.next<{ times: [string, number][] }>(this.child, 'times');
    this.child.send({ cmd: 'dump' });
    return (await answer).times;
  }

  /** Starts (and empties) or stops keeping every request (see receiver.ts). */
  capture(on: boolean): void {
    this.child.send({ cmd: 'capture', on });
  }

  /** The requests kept since capturing started. */
  async captured(): Promise<CapturedRequest[]> {
    const answer = Receiver.next<{ requests: CapturedRequest[] }>(this.child, 'requests');
    this.child.send({ cmd: 'captured' });
    return (await answer).requests;
  }

  /** Requests counted since the last reset. */
  async count(): Promise<number> {
    return (await this.times()).length;
  }

  reset(): void {
    this.child.send({ cmd: 'reset' });
  }

  async down(): Promise<void> {
    const done = Receiver.next(this.child, 'isDown');
    this.child.send({ cmd: 'down' });
    await done;
  }

  async up(): Promise<void> {
    const done = Receiver.next(this.child, 'isUp');
    this.child.send({ cmd: 'up' });
    await done;
  }

  stop(): void {
    this.child.disconnect();
  }
}
