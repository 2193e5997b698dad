import {
  CapabilityNotSupportedError, ValidationError,
  type EventSink, type MediaBlob, type MediaInput, type MessageContent, type MessageRecord, type MessagingCapability, type PresenceRequest, type SendRequest,
} from '@parley/core';
import { sendError, type BotApi } from './bot-api.js';
import { downloadFile, type DownloadLimits } from './file-download.js';
import { messageIdOf, telegramMessageId, type TgFile, type TgMessage } from './telegram-types.js';

/**
 * What this channel sends, and the Bot API method each goes through: the send types whose REST
 * bodies take a `provider` and that Telegram can carry as they are (`button_action` would need an
 * inline keyboard mapping, which this example leaves out: it answers 422).
 */
const METHODS = { text: 'sendMessage', image: 'sendPhoto', video: 'sendVideo', audio: 'sendAudio', document: 'sendDocument' } as const;
type Sendable = Extract<SendRequest['content'], { type: keyof typeof METHODS }>;

/** A chat id: an integer (negative for groups), or `@username` of a public channel or supergroup. */
const CHAT_ID = /^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{4,31})$/;

/** Bot API chat actions for Parley's presences (`sendChatAction`); `available`/`paused` have none. */
const CHAT_ACTIONS: Partial<Record<PresenceRequest['status'], string>> = { composing: 'typing', recording: 'record_voice' };

/**
 * Sending through the Bot API. Media are uploaded (multipart), never passed by URL: the server has
 * already fetched them under its size and private-address rules.
 */
export class TelegramMessaging implements MessagingCapability {
  constructor(
    private readonly api: BotApi, private readonly token: () => Promise<string>, private readonly emit: EventSink, private readonly limits: DownloadLimits,
  ) {}

  supports(type: SendRequest['content']['type']): boolean {
    return type in METHODS;
  }

  async send(request: SendRequest): Promise<MessageRecord> {
    const content = request.content;
    if (!this.supports(content.type)) throw new CapabilityNotSupportedError('telegram', `sending ${content.type} messages`);
    const sendable = content as Sendable;
    const chatId = chatIdOf(request.to);
    const replyTo = request.quoted ? telegramMessageId(request.quoted.key.id) : undefined;
    const voice = sendable.type === 'audio' && sendable.ptt === true;
    let sent: TgMessage;
    try {
      sent = await this.api.call<TgMessage>(await this.token(), voice ? 'sendVoice' : METHODS[sendable.type], paramsOf(sendable, chatId, replyTo));
    } catch (err) {
      throw sendError(err);
    }
    const record: MessageRecord = {
      key: { remoteJid: String(sent.chat.id), fromMe: true, id: messageIdOf(sent.chat.id, sent.message_id) },
      message: recordOf(sendable, sent),
      messageTimestamp: String(sent.date),
      status: 'PENDING',
      provider: 'telegram',
    };
    // The Bot API answered with the message as Telegram stored it: that is `sent`. Bots get no delivery
    // or read receipts, so no later status comes. Emitted on the next turn of the event loop, after the
    // server has queued the record's storage (statuses apply in the instance's event order).
    setImmediate(() => this.emit({
      type: 'message.status', messageId: record.key.id, chatJid: record.key.remoteJid, recipientId: record.key.remoteJid, status: 'sent', timestamp: sent.date,
    }));
    return record;
  }

  async sendPresence(request: PresenceRequest): Promise<void> {
    const action = CHAT_ACTIONS[request.status];
    if (!action) return;
    try {
      await this.api.call(await this.token(), 'sendChatAction', { chat_id: chatIdOf(request.to), action });
    } catch (err) {
      throw sendError(err);
    }
  }

  /** A received file, through `getFile` and the file URL it answers (files up to 20 MB), within the host's limits of received media. */
  async downloadMedia(record: MessageRecord): Promise<MediaBlob | null> {
    const member = Object.values(record.message)[0] as { fileId?: unknown; mimetype?: unknown; fileName?: unknown } | undefined;
    if (!member || typeof member.fileId !== 'string') return null;
    const token = await this.token();
    const file = await this.api.call<TgFile>(token, 'getFile', { file_id: member.fileId }).catch((err: unknown) => {
      throw sendError(err);
    });
    if (!file.file_path) return null;
    return {
      data: await downloadFile(this.api.fileUrl(token, file.file_path), file.file_size, this.limits),
      mimetype: typeof member.mimetype === 'string' ? member.mimetype : 'application/octet-stream',
      ...(typeof member.fileName === 'string' ? { fileName: member.fileName } : {}),
    };
  }
}

function chatIdOf(to: string): string {
  const value = to.trim();
  if (!CHAT_ID.test(value)) throw new ValidationError('body.to must be a Telegram chat id (an integer) or @channelusername', { field: 'body.to' });
  return value;
}

function upload(form: FormData, field: string, media: MediaInput, fallbackName: string): void {
  form.append(field, new Blob([new Uint8Array(media.data)], { type: media.mimetype }), media.fileName ?? fallbackName);
}

/** The parameters of the Bot API call: JSON for text, multipart with the file for media. */
function paramsOf(content: Sendable, chatId: string, replyTo?: number): Record<string, unknown> | FormData {
  const reply = replyTo === undefined ? {} : { reply_parameters: { message_id: replyTo } };
  if (content.type === 'text') return { chat_id: chatId, text: content.text, ...reply };
  const form = new FormData();
  form.append('chat_id', chatId);
  if (replyTo !== undefined) form.append('reply_parameters', JSON.stringify(reply.reply_parameters));
  const caption = content.type === 'audio' ? undefined : content.caption;
  if (caption) form.append('caption', caption);
  if (content.type === 'image') upload(form, 'photo', content.media, 'photo.jpg');
  else if (content.type === 'video') upload(form, 'video', content.media, 'video.mp4');
  else if (content.type === 'audio' && content.ptt) upload(form, 'voice', content.media, 'voice.ogg');
  else if (content.type === 'audio') upload(form, 'audio', content.media, 'audio.mp3');
  else upload(form, 'document', { ...content.media, fileName: content.fileName }, content.fileName);
  return form;
}

/** The record member of a sent message; media keep the `file_id` Telegram gave the upload. */
function recordOf(content: Sendable, sent: TgMessage): MessageContent {
  const caption = content.type !== 'text' && content.type !== 'audio' && content.caption ? { caption: content.caption } : {};
  switch (content.type) {
    case 'text':
      return { extendedTextMessage: { text: content.text } };
    case 'image':
      return { imageMessage: { fileId: sent.photo?.at(-1)?.file_id, mimetype: content.media.mimetype, ...caption } };
    case 'video':
      return { videoMessage: { fileId: sent.video?.file_id, mimetype: content.media.mimetype, ...caption } };
    case 'audio':
      return { audioMessage: { fileId: (sent.voice ?? sent.audio)?.file_id, mimetype: content.media.mimetype, ptt: content.ptt === true } };
    case 'document':
      return { documentMessage: { fileId: sent.document?.file_id, mimetype: content.mimetype, fileName: content.fileName, ...caption } };
  }
}
