/**
 * `@parley/channel-baileys/testing`: a Baileys socket double for tests and benchmarks. It behaves
 * like Baileys' socket on the surface the adapter uses (same events, real signal repository over the
 * adapter's auth state, messages built by Baileys) and never touches the network.
 */
export { boom, createFakeSocket, FAKE_LINKED_AT, FakeSockets, type FakeControls, type FakeSocket, type SocketCall } from './fake-socket.js';
export { ReceivePath, type Envelope } from './receive-path.js';
export { encryptEventResponse, encryptPollVote, type AnswerScope } from './peer-answers.js';
export { groupNode, participatingAnswer, type GroupNodeSpec } from './wa-groups.js';
export { WHATSAPP_RECORD_MEMBERS } from './record-members.js';
export {
  CDN_HOST, cdnTls, documentMessage, encryptMedia, fixedResolver, startCdn,
  type CdnFile, type CdnLink, type CdnRequest, type EncryptedMedia, type FakeCdn,
} from './wa-cdn.js';
