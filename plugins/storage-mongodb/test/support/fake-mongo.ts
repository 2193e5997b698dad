import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { BSON, type Document } from 'mongodb';

const OP_REPLY = 1;
const OP_QUERY = 2004;
const OP_MSG = 2013;
const HEADER_BYTES = 16;

/** A MongoDB server's side of one conversation, for {@link startFakeMongo}. */
export interface FakeMongoOptions {
  /** The `hello`/`isMaster` answer (the wire and size fields are added). */
  hello: Document;
}

/** A fake MongoDB listening on loopback: its address, the commands it was sent, and close. */
export interface FakeMongo {
  port: number;
  /** The name of every command received, in order (`ismaster` as the driver spells it, `hello`, `createIndexes`, …). */
  commands: string[];
  close(): Promise<void>;
}

/**
 * Enough of MongoDB's wire protocol for the real driver to discover a deployment and run commands
 * against it: the legacy OP_QUERY handshake (`isMaster` on `admin.$cmd`, answered with OP_REPLY) and
 * OP_MSG commands (section kind 0; kind 1 document sequences are skipped), each answered with one
 * document. `hello`/`isMaster` answer `options.hello` (without `topologyVersion`, so the driver polls
 * rather than streams); every other command answers `{ok: 1}`. One message at a time per socket.
 */
export async function startFakeMongo(options: FakeMongoOptions): Promise<FakeMongo> {
  const commands: string[] = [];
  const sockets = new Set<Socket>();
  const helloAnswer = (): Document => ({
    ...options.hello, maxBsonObjectSize: 16 * 1024 * 1024, maxMessageSizeBytes: 48_000_000, maxWriteBatchSize: 100_000,
    localTime: new Date(), minWireVersion: 0, maxWireVersion: 21, ok: 1,
  });
  const answer = (command: Document): Document => {
    const name = Object.keys(command)[0] ?? '';
    commands.push(name);
    return name === 'hello' || name.toLowerCase() === 'ismaster' ? helloAnswer() : { ok: 1 };
  };
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 4 && buffered.length >= buffered.readInt32LE(0)) {
        const length = buffered.readInt32LE(0);
        const message = buffered.subarray(0, length);
        buffered = buffered.subarray(length);
        socket.write(reply(message, answer));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    commands,
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}

function header(length: number, requestId: number, responseTo: number, opCode: number): Buffer {
  const out = Buffer.alloc(HEADER_BYTES);
  out.writeInt32LE(length, 0);
  out.writeInt32LE(requestId, 4);
  out.writeInt32LE(responseTo, 8);
  out.writeInt32LE(opCode, 12);
  return out;
}

/** The answer to one request message. */
function reply(message: Buffer, answer: (command: Document) => Document): Buffer {
  const requestId = message.readInt32LE(4);
  const opCode = message.readInt32LE(12);
  if (opCode === OP_QUERY) {
    // flags, fullCollectionName (cstring), numberToSkip, numberToReturn, query.
    const nameEnd = message.indexOf(0, HEADER_BYTES + 4);
    const query = BSON.deserialize(message.subarray(nameEnd + 9));
    const body = Buffer.from(BSON.serialize(answer(query)));
    const fields = Buffer.alloc(20);
    fields.writeInt32LE(1, 16); // responseFlags 0, cursorID 0, startingFrom 0, numberReturned 1
    return Buffer.concat([header(HEADER_BYTES + fields.length + body.length, requestId + 1, requestId, OP_REPLY), fields, body]);
  }
  if (opCode !== OP_MSG) throw new Error(`fake MongoDB: unexpected opCode ${opCode}`);
  let at = HEADER_BYTES + 4;
  let command: Document | undefined;
  while (at < message.length && !command) {
    const kind = message.readUInt8(at);
    if (kind === 0) command = BSON.deserialize(message.subarray(at + 1, at + 1 + message.readInt32LE(at + 1)));
    else at += 1 + message.readInt32LE(at + 1);
  }
  const body = Buffer.from(BSON.serialize(answer(command ?? {})));
  const flags = Buffer.alloc(5); // flagBits 0, section kind 0
  return Buffer.concat([header(HEADER_BYTES + flags.length + body.length, requestId + 1, requestId, OP_MSG), flags, body]);
}
