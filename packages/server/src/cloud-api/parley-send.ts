import type { MessageSuffix, SendBodies } from '../send/send-bodies.js';

/** One Parley send: the path suffix of `POST /{key}/message/…` and its body. */
export type ParleySend = { [S in MessageSuffix]: { suffix: S; body: SendBodies[S] } }[MessageSuffix];
