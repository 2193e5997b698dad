import type { BinaryNode } from '@whiskeysockets/baileys';

/**
 * The server's verdicts, as data: what WhatsApp answers in a given situation and the public source that
 * shows it. The simulator's behaviour is only as true as these sources; a verdict without one does not
 * belong here.
 */
export interface Verdict<T> {
  value: T;
  /** Public source(s) documenting the behaviour. */
  source: string;
}

/** How long each QR ref lives: the first 60 s, each later one 20 s (Baileys' own defaults mirror the server's). */
export const QR_REFS: Verdict<{ count: number; firstMs: number; nextMs: number }> = {
  value: { count: 6, firstMs: 60_000, nextMs: 20_000 },
  source: 'Baileys 7.0.0-rc14 lib/Socket/socket.js (pair-device handler: qrTimeout || 60000, then 20000); '
    + 'whatsmeow qrchan.go emitQRs (a full set is 6 codes: 60 s while 6 remain, 20 s for each later one)',
};

const streamError = (attrs: Record<string, string>, children: BinaryNode[] = []): BinaryNode => ({ tag: 'stream:error', attrs, content: children });

/**
 * A login the server refuses (unknown or removed device, or another noise key): `<failure reason="401">`,
 * which clients take as logged out.
 */
export const LOGIN_REFUSED: Verdict<{ reason: string }> = {
  value: { reason: '401' },
  source: 'whatsmeow connectionevents.go handleConnectFailure (reason 401 → LoggedOut); Baileys Socket/socket.js CB:failure (reason as status code)',
};

/** The `<stream:error>` stanzas the server ends a session with. */
export const STREAM_ERRORS = {
  /** After pairing: the client must reconnect with its new credentials (Baileys: 515 restartRequired). */
  restart: {
    node: () => streamError({ code: '515' }),
    source: 'whatsmeow connectionevents.go handleStreamError (code 515: reconnect); Baileys Types DisconnectReason.restartRequired',
  },
  /** Another socket logged in with the same device (Baileys: 440 connectionReplaced). */
  replaced: {
    node: () => streamError({}, [{ tag: 'conflict', attrs: { type: 'replaced' } }]),
    source: 'Baileys 7.0.0-rc14 Utils/generics.js CODE_MAP (a <conflict> child without code → 440 connectionReplaced); '
      + 'whatsmeow handleStreamError (newer versions: conflict type="replaced" → StreamReplaced)',
  },
  /** The phone removed this companion (Baileys: 401 loggedOut). */
  deviceRemoved: {
    node: () => streamError({ code: '401' }, [{ tag: 'conflict', attrs: { type: 'device_removed' } }]),
    source: 'whatsmeow connectionevents.go handleStreamError (code 401 with conflict type="device_removed" → LoggedOut)',
  },
} as const;

/** Codes the control API may close a client's socket with, and how each reaches the client. */
export const CLOSE_CODES: Verdict<Record<number, string>> = {
  value: {
    408: 'stream:error code=408 (Baileys reports 408 connectionLost/timedOut)',
    428: 'the WebSocket is closed without a stream error (Baileys reports 428 connectionClosed)',
    500: 'stream:error code=500 (Baileys reports 500 badSession)',
    503: 'stream:error code=503 (Baileys reports 503 unavailableService)',
    440: 'stream:error with <conflict type="replaced"/>, as when another socket of the device logs in (Baileys reports 440 connectionReplaced)',
    403: '<failure reason="403" location="…"/>, as for a banned or blocked number (Baileys reports 403 forbidden): SESSION_REFUSALS.forbidden',
    411: '<ib><downgrade_webclient/></ib>, the server telling a web client it is not in multi-device (Baileys reports 411 multideviceMismatch): SESSION_REFUSALS.multideviceMismatch',
  },
  source: 'Baileys 7.0.0-rc14 lib/Types/index.js DisconnectReason and lib/Utils/generics.js getErrorCodeFromStreamError (the code attribute wins); '
    + 'STREAM_ERRORS.replaced for 440; SESSION_REFUSALS for 403 and 411',
};

/**
 * The two ways WhatsApp refuses a session for good that are not stream errors. Both end the stream; the
 * client must not retry.
 */
export const SESSION_REFUSALS = {
  /**
   * A banned or blocked number: `<failure reason="403" location="…">` (the location is the server's edge,
   * `etn`, `frc`, `vll` in the wild). Baileys takes the failure's reason as the close's status code
   * (`CB:failure` → Boom 'Connection Failure', `data` the failure's attributes).
   */
  forbidden: {
    node: (): BinaryNode => ({ tag: 'failure', attrs: { reason: '403', location: 'sim' } }),
    source: 'Baileys 7.0.0-rc14 lib/Socket/socket.js CB:failure; https://github.com/tgalal/yowsup/issues/3043 (<failure reason="403" location="etn">: '
      + 'the number is banned); WhiskeySockets/Baileys PR #280, #535 (403 for banned or blocked numbers, named forbidden), issue #1245 (a ban: 503, then 403); '
      + 'whatsmeow types/events/events.go ConnectFailureMainDeviceGone = 403 ("now called LOCKED in the whatsapp web code"), a logged-out reason (IsLoggedOut)',
  },
  /**
   * A web client the server takes for one that never joined multi-device: `<ib><downgrade_webclient/></ib>`.
   * Baileys ends the socket with 411 'Multi-device beta not joined'.
   */
  multideviceMismatch: {
    node: (): BinaryNode => ({ tag: 'ib', attrs: {}, content: [{ tag: 'downgrade_webclient', attrs: {} }] }),
    source: 'Baileys 7.0.0-rc14 lib/Socket/socket.js (CB:ib,,downgrade_webclient → DisconnectReason.multideviceMismatch 411)',
  },
} as const;

/**
 * Pairing-code requests (`link_code_companion_reg`, stage `companion_hello`) are validated by WhatsApp:
 * `companion_platform_display` must be a real browser with a real OS in parentheses, else the iq is answered
 * `<error code="400" text="bad-request"/>` (QR linking accepts any label). Measured against production in
 * WhiskeySockets/Baileys PR #2769 (`Chrome (Acme)` → 400, `Chrome (Windows)` → accepted) and PR #2559
 * (`Chrome (Custom Label)` → 400); PR #614 changed Baileys' default browser to make pairing codes work;
 * issue #1167 and PR #2409: the Desktop platform is refused. Baileys builds the display as
 * `${browser[1]} (${browser[0]})`, so Parley's `Chrome (Parley)` is refused.
 */
export const PAIRING_CODE_DISPLAY: Verdict<{ browsers: string[]; systems: string[]; refusal: { code: number; text: string } }> = {
  value: {
    browsers: ['Chrome', 'Firefox', 'Safari', 'Edge', 'Opera', 'IE'],
    systems: ['Windows', 'Mac OS', 'Ubuntu', 'Linux'],
    refusal: { code: 400, text: 'bad-request' },
  },
  source: 'https://github.com/WhiskeySockets/Baileys/pull/2769, /pull/2559, /pull/614, /pull/2409, /issues/1167',
};

/**
 * Business stanzas (interactive native-flow buttons): a `<message>` whose `<biz>` node lacks what live
 * clients send is refused with `<ack error="479">` and not delivered. Measured against production in
 * tulir/whatsmeow PR #1235: `<biz><interactive type="native_flow" v="1"/></biz>` → ack error 479; delivered
 * and rendered: `<biz actual_actors="2" host_storage="2" privacy_mode_ts="…">` with
 * `<interactive type="native_flow" v="1"><native_flow v="9" name="mixed"/></interactive>` and
 * `<quality_control decision_id="…"/>`. No `<biz>` at all is accepted (the server cannot read the
 * encrypted message; nothing renders). Baileys 7.0.0-rc14 names 479 `SmaxInvalid` (Utils/decode-wa-message.js,
 * "stanza rejected by server" in Socket/messages-recv.js handleBadAck).
 */
export const BUSINESS_STANZA: Verdict<{ refusal: number; bizAttributes: string[] }> = {
  value: { refusal: 479, bizAttributes: ['actual_actors', 'host_storage', 'privacy_mode_ts'] },
  source: 'https://github.com/tulir/whatsmeow/pull/1235; Baileys 7.0.0-rc14 lib/Utils/decode-wa-message.js SERVER_ERROR_CODES.SmaxInvalid',
};

/**
 * Brazilian mobile numbers got a ninth digit (a leading 9 after the area code) between 2012 and 2016, and
 * accounts registered before it are still filed by WhatsApp under the 8-digit form (`55 DD 8765-4321` →
 * `551187654321@s.whatsapp.net`) while people dial `55 DD 98765-4321`. WhatsApp's number lookup (usync
 * `contact`, Baileys `onWhatsApp`) answers the account's JID for either form; a message sent to the other
 * form is taken by the server and opens a "ghost" chat nobody reads. Reported in adiwajshing/Baileys
 * issue #1997 (onWhatsApp says both forms exist; "if I send a message with 9, it generates a chat with a
 * ghost account … and the message doesn't get anywhere"; the answer: send to the `jid` onWhatsApp returns),
 * salman0ansari/whatsapp-api-nodejs issues #233 and #254, canove/whaticket-community issue #306 (no error,
 * the message never arrives), vynect/venom issue #141 (the lookup answers the registered form), and
 * nizarfadlan/baileys-api PR #15 (resolve the JID before every send). EvolutionAPI/evolution-api PR #371 shows
 * the lookup itself: `onWhatsApp` of `5534998313925` and of `553498313925` both answer
 * `553498313925@s.whatsapp.net`; its issue #2062 shows a send to the form WhatsApp does not file staying PENDING
 * ("sent into a void"), and issue #357 the duplicate contacts a gateway makes of the two forms.
 */
export const NINTH_DIGIT: Verdict<{ country: string; mobile: RegExp }> = {
  value: { country: '55', mobile: /^55([1-9]{2})9(\d{8})$/ },
  source: 'https://github.com/adiwajshing/Baileys/issues/1997; https://github.com/salman0ansari/whatsapp-api-nodejs/issues/233, /issues/254; '
    + 'https://github.com/canove/whaticket-community/issues/306; https://github.com/vynect/venom/issues/141; https://github.com/nizarfadlan/baileys-api/pull/15; '
    + 'https://github.com/EvolutionAPI/evolution-api/pull/371, /issues/2062, /issues/357',
};

/**
 * A restricted account (WhatsApp's spam enforcement, "Your account has been restricted") may not message: the
 * server answers the message's `<ack>` with `error="463"` and delivers nothing. Baileys rc14 turns that ack into
 * a `messages.update` with status ERROR and `messageStubParameters: ['463', …]` (WhiskeySockets/Baileys issue
 * #2636 shows the update, issue #2441 the investigation: retries do not help); whatsmeow reports
 * "server returned error 463" from SendMessage (tulir/whatsmeow issue #1157; devlikeapro/waha issue #1904).
 */
export const RESTRICTED_ACCOUNT: Verdict<{ ackError: number }> = {
  value: { ackError: 463 },
  source: 'https://github.com/WhiskeySockets/Baileys/issues/2636, /issues/2441; https://github.com/tulir/whatsmeow/issues/1157; '
    + 'https://github.com/devlikeapro/waha/issues/1904',
};

/**
 * The server throttles logins: `<stream:error code="429"/>` ends a session it rate-limits, and clients are to
 * reconnect with a longer backoff. WhatsApp Web's WAWebHandleStreamError classifies code 429 as rate limiting
 * ("server is throttling connections"; whatsapp-rust issue #342 and PR #353 follow it: keep reconnecting, five
 * backoff steps further; PR #1263 reads the WA Web bundle), oxidezap/baileyrs PR #77 treats it as a rejected
 * session, and hertz-ai/HARTOS PR #108 reports a number rate-limited after a reconnect loop of 60+ logins a
 * minute. What triggers it — how many logins, from one IP or one account, in what window — is not public:
 * the simulator's limit (`loginLimit`) is a test parameter, off unless set, and not a measured threshold.
 */
export const LOGIN_RATE_LIMIT: Verdict<{ code: number }> = {
  value: { code: 429 },
  source: 'https://github.com/oxidezap/whatsapp-rust/issues/342, /pull/353, /pull/1263; https://github.com/oxidezap/baileyrs/pull/77; '
    + 'https://github.com/hertz-ai/HARTOS/pull/108 (trigger thresholds: no public source)',
};

/**
 * View-once media reach the recipient's phone only: each companion (the recipient's and the sender's) gets
 * the message stanza with `<unavailable type="view_once"/>` and no ciphertext. whatsmeow names the type
 * (types/events/events.go UnavailableTypeViewOnce) and reports such a stanza without `<enc>` as an
 * UndecryptableMessage with IsUnavailable (message.go handleEncryptedMessage); Baileys 7.0.0-rc14 marks it
 * `key.isViewOnce` and keeps no CIPHERTEXT stub (Utils/decode-wa-message.js decryptMessageNode).
 */
export const VIEW_ONCE_FOR_COMPANIONS: Verdict<BinaryNode> = {
  value: { tag: 'unavailable', attrs: { type: 'view_once' } },
  source: 'whatsmeow types/events/events.go UnavailableTypeViewOnce and message.go handleEncryptedMessage; Baileys 7.0.0-rc14 lib/Utils/decode-wa-message.js',
};

/**
 * Disappearing-message timers WhatsApp offers, in seconds (0: off): 24 hours, 7 days, 90 days. A group's is
 * in its metadata as `<ephemeral expiration>` and changes are told as `<ephemeral expiration>` /
 * `<not_ephemeral/>` in a w:gp2 notification; a 1:1 chat's travels as an EPHEMERAL_SETTING protocol message.
 */
export const DISAPPEARING_TIMERS: Verdict<readonly number[]> = {
  value: [0, 86_400, 604_800, 7_776_000],
  source: 'whatsmeow disappearing timers (DisappearingTimer24Hours, DisappearingTimer7Days, DisappearingTimer90Days; ParseDisappearingTimerString '
    + '"0, 24h, 7d, 90d"), group.go parseGroupNode and parseGroupChange (ephemeral, not_ephemeral); Baileys 7.0.0-rc14 lib/Socket/groups.js '
    + 'groupToggleEphemeral and extractGroupMetadata, lib/Socket/messages-recv.js handleGroupNotification, lib/Utils/process-message.js (EPHEMERAL_SETTING)',
};

/**
 * Per-participant codes of a group's participant changes (`<participant jid error="…">` in the answer to an
 * add, remove, promote or demote, which Baileys' groupParticipantsUpdate returns as each `status`) that are
 * not 200, 404 (not on WhatsApp, not a member) or 409 (already a member):
 * - `full`: adding to a group at its member limit. WhatsApp Web's add-participants job answers 419 ("can't be
 *   added because the group is full"), as whatsapp-web.js maps its codes (403 there is an add the person's
 *   privacy settings allow only by invitation, 408 one who recently left, 417 a community refusal).
 * - `creator`: removing or demoting the group's creator (`superadmin`). No public source we found records
 *   WhatsApp's code for it (whatsmeow's UpdateGroupParticipants and Baileys' groupParticipantsUpdate pass any
 *   code through; neither names this case): the simulator answers 403, the refusal Parley documents
 *   (docs/rest-api.md, Groups) and its sandbox channel gives, so that both channels agree. Revisit when a
 *   capture of WhatsApp's answer is public.
 */
export const PARTICIPANT_CODES: Verdict<{ full: number; creator: number }> = {
  value: { full: 419, creator: 403 },
  source: 'whatsapp-web.js src/structures/GroupChat.js addParticipants errorCodes (419 group full; 403, 408, 409, 417); whatsmeow group.go '
    + 'UpdateGroupParticipants and types.GroupParticipant.Error; the creator code: no public source (see above)',
};
