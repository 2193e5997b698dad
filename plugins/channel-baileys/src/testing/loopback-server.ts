import { once } from 'node:events';
import type { AddressInfo, Server, Socket } from 'node:net';

/** A server of a test listening on loopback. */
export interface LoopbackListener {
  port: number;
  /** Destroys the connections still open (a stalled download's included), then closes the server. */
  close(): Promise<void>;
}

/** Starts `server` on a free port of 127.0.0.1, keeping track of its connections so `close` ends them too. */
export async function listenOnLoopback(server: Server): Promise<LoopbackListener> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}
