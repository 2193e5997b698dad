import { once } from 'node:events';
import { createServer, type AddressInfo, type Socket } from 'node:net';

/** A loopback TCP port that counts the connections made to it. */
export interface CountingListener {
  port: number;
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

/**
 * Listens on a loopback port, counts every connection and closes it at once: a test dials nothing
 * through it, it proves that nothing reached the port (a refused proxy, say).
 */
export async function startCountingListener(): Promise<CountingListener> {
  let count = 0;
  const server = createServer((socket: Socket) => {
    count++;
    socket.destroy();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => count,
    close: async () => {
      server.close();
      await once(server, 'close');
    },
  };
}
