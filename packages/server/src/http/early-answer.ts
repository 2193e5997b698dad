import type { Duplex } from 'node:stream';
import type { Request, Response } from 'express';

/** A rest of body up to this is left to Node, which reads and discards it and keeps the connection. */
const DISCARD_MAX_BYTES = 64 * 1024;

/** How long a connection answered before its upload stays half-closed, so the client reads the answer. */
const LINGER_MS = 500;

/**
 * Prepares an answer sent before the request body was read (unknown route or key, bad token, a
 * declared length over the limit). A small rest is left to Node, which discards it after the answer
 * and keeps the connection. A larger or unbounded one is never read: the answer says
 * `Connection: close`, and the connection is half-closed once the answer is written and destroyed
 * {@link LINGER_MS} later, without reading meanwhile (the kernel's buffers fill and the client's
 * sending stalls). Node would destroy it at once (its
 * `socket.destroySoon()` after a closing answer), and a socket destroyed with unread upload bytes
 * sends a TCP reset, which can discard the answer before the client reads it; Go's net/http waits
 * the same way before closing (`closeWriteAndWait`).
 */
export function answerBeforeBody(req: Request | undefined, res: Response): void {
  if (!req || req.complete) return;
  const length = req.headers['content-length'];
  const chunked = req.headers['transfer-encoding'] !== undefined;
  if (!chunked && (length === undefined || Number(length) <= DISCARD_MAX_BYTES)) return;
  closeAfterAnswer(req, res);
}

/**
 * Makes the answer to `req` close its connection without reading the rest of the upload:
 * `Connection: close`, and once the answer is written the connection is half-closed, then destroyed
 * {@link LINGER_MS} later (see {@link answerBeforeBody}). For a request refused or timed out while its
 * body was arriving, whatever its size.
 */
export function closeAfterAnswer(req: Request, res: Response): void {
  res.setHeader('Connection', 'close');
  const socket = req.socket;
  socket.destroySoon = () => {
    // Node resumes the request to discard its body after the answer: keep the socket paused instead.
    socket.pause();
    socket.on('resume', () => socket.pause());
    socket.end();
    destroyAfterLinger(socket);
  };
}

/**
 * Destroys a connection whose answer was written and whose side is ended, {@link LINGER_MS} later: time
 * for the client to read the answer, however it behaves (a socket destroyed with unread bytes resets).
 */
export function destroyAfterLinger(socket: Duplex): void {
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
