import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BotApiAnswer } from '../bot-api.js';
import type { TgMessage, TgUpdate, TgUser } from '../telegram-types.js';

/** One Bot API call the mock received. */
export interface BotApiCall {
  token: string;
  method: string;
  /** JSON parameters, or the text fields of a multipart body. */
  params: Record<string, unknown>;
  /** Uploaded files of a multipart body, by field. */
  files: Record<string, { name: string; type: string; data: Buffer }>;
}

/** A user of the mock's world, who can write to a bot. */
export interface MockUser {
  id: number;
  first_name: string;
  last_name?: string;
  username?: string;
}

interface Bot {
  user: TgUser;
  webhook?: { url: string; secret?: string };
  nextMessageId: number;
  nextUpdateId: number;
}

const UPLOAD_FIELDS = { sendPhoto: 'photo', sendDocument: 'document', sendVideo: 'video', sendAudio: 'audio', sendVoice: 'voice' } as const;

/** A file the mock serves. */
interface MockFile {
  path: string;
  data: Buffer;
  declaredSize?: number;
  stalls?: boolean;
}

/**
 * A local Telegram Bot API that behaves as core.telegram.org/bots/api documents it, for the methods
 * this channel uses: every answer is `{ ok, result }` or `{ ok: false, error_code, description }`
 * (with `parameters.retry_after` on 429); unknown tokens answer 401 `Unauthorized`; unknown chats
 * 400 `Bad Request: chat not found`; empty texts 400 `Bad Request: message text is empty`; uploads
 * are multipart. Updates are delivered to the webhook `setWebhook` set, with its secret token header.
 */
export class MockBotApi {
  readonly calls: BotApiCall[] = [];
  private readonly bots = new Map<string, Bot>();
  private readonly chats = new Set<number>();
  private readonly files = new Map<string, MockFile>();
  private rateLimited?: { method: string; retryAfter: number };

  private constructor(private readonly server: ReturnType<typeof createServer>, readonly url: string) {}

  /** Starts the mock on a free loopback port. */
  static async start(): Promise<MockBotApi> {
    let mock!: MockBotApi;
    const server = createServer((req, res) => {
      mock.handle(req, res).catch((err: unknown) => answer(res, 500, { ok: false, error_code: 500, description: `Internal Server Error: ${String(err)}` }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    mock = new MockBotApi(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return mock;
  }

  /** Creates a bot (as @BotFather would) and answers its token `<id>:<secret>`. */
  addBot(id: number, username: string): string {
    const token = `${id}:${randomBytes(18).toString('base64url')}`;
    this.bots.set(token, { user: { id, is_bot: true, first_name: username, username }, nextMessageId: 1, nextUpdateId: 100_000 });
    return token;
  }

  /** A private chat with `user` exists (the user pressed Start): bots can only write to such chats. */
  addChat(chatId: number): void {
    this.chats.add(chatId);
  }

  /** The webhook `setWebhook` set for a bot. */
  webhookOf(token: string): { url: string; secret?: string } | undefined {
    return this.bot(token)?.webhook;
  }

  /** The next call of `method` answers 429 with `retry_after` (Telegram's flood control). */
  rateLimit(method: string, retryAfter: number): void {
    this.rateLimited = { method, retryAfter };
  }

  /** `user` writes `message` (text, photo, …) to the bot: builds the Update and POSTs it to the webhook. */
  async userWrites(token: string, user: MockUser, message: Partial<TgMessage>, date: number): Promise<{ update: TgUpdate; status: number; body: unknown }> {
    const bot = this.bot(token);
    if (!bot?.webhook) throw new Error('the bot has no webhook (setWebhook was not called)');
    this.chats.add(user.id);
    const update: TgUpdate = {
      update_id: bot.nextUpdateId++,
      message: { message_id: bot.nextMessageId++, from: { is_bot: false, ...user }, chat: { id: user.id, type: 'private' }, date, ...message },
    };
    return { update, ...(await this.deliver(token, update)) };
  }

  /** POSTs an Update to the bot's webhook exactly as Telegram does (JSON, secret header when set); answers the webhook's reply. */
  async deliver(token: string, update: TgUpdate): Promise<{ status: number; body: unknown }> {
    const webhook = this.bot(token)?.webhook;
    if (!webhook) throw new Error('the bot has no webhook');
    const res = await fetch(webhook.url, {
      method: 'POST', body: JSON.stringify(update),
      headers: { 'content-type': 'application/json', ...(webhook.secret ? { 'x-telegram-bot-api-secret-token': webhook.secret } : {}) },
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }

  /**
   * Stores a file `getFile` can answer and the file URL serves. `declaredSize`: the `file_size`
   * `getFile` answers instead of the real one (a network that lies); `stalls`: the file URL sends its
   * headers and first byte, then nothing more (a host gone silent).
   */
  addFile(fileId: string, data: Buffer, options: Pick<MockFile, 'declaredSize' | 'stalls'> = {}): void {
    this.files.set(fileId, { path: `documents/file_${this.files.size}`, data, ...options });
  }

  reset(): void {
    this.calls.length = 0;
    this.rateLimited = undefined;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private bot(token: string): Bot | undefined {
    return this.bots.get(token);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const file = /^\/file\/bot([^/]+)\/(.+)$/.exec(req.url ?? '');
    if (file) {
      const found = [...this.files.values()].find((f) => f.path === file[2]);
      if (!this.bot(file[1]!) || !found) return answer(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      if (found.stalls) res.write(found.data.subarray(0, 1));
      else res.end(found.data);
      return;
    }
    const route = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '');
    if (!route) return answer(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
    const [, token, method] = route as unknown as [string, string, string];
    const call: BotApiCall = { token, method, ...(await parseBody(req, Buffer.concat(chunks))) };
    this.calls.push(call);
    const bot = this.bot(token);
    if (!bot) return answer(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
    if (this.rateLimited?.method === method) {
      const retryAfter = this.rateLimited.retryAfter;
      this.rateLimited = undefined;
      return answer(res, 429, { ok: false, error_code: 429, description: `Too Many Requests: retry after ${retryAfter}`, parameters: { retry_after: retryAfter } });
    }
    const result = this.result(bot, call);
    if ('error' in result) return answer(res, result.code, { ok: false, error_code: result.code, description: result.error });
    answer(res, 200, { ok: true, result: result.value });
  }

  private result(bot: Bot, call: BotApiCall): { value: unknown } | { code: number; error: string } {
    const p = call.params;
    switch (call.method) {
      case 'getMe':
        return { value: bot.user };
      case 'setWebhook':
        if (typeof p.url !== 'string' || p.url === '') return { code: 400, error: 'Bad Request: bad webhook: An HTTPS URL must be provided for webhook' };
        bot.webhook = { url: p.url, ...(typeof p.secret_token === 'string' ? { secret: p.secret_token } : {}) };
        return { value: true };
      case 'getFile': {
        const found = this.files.get(String(p.file_id));
        return found ? { value: { file_id: p.file_id, file_unique_id: `u${p.file_id}`, file_size: found.declaredSize ?? found.data.length, file_path: found.path } } : { code: 400, error: 'Bad Request: invalid file_id' };
      }
      case 'sendChatAction':
        return this.chats.has(Number(p.chat_id)) ? { value: true } : { code: 400, error: 'Bad Request: chat not found' };
      case 'sendMessage':
        if (typeof p.text !== 'string' || p.text.trim() === '') return { code: 400, error: 'Bad Request: message text is empty' };
        return this.sent(bot, p, { text: p.text });
      case 'sendPhoto':
      case 'sendDocument':
      case 'sendVideo':
      case 'sendAudio':
      case 'sendVoice':
        return this.media(bot, call, UPLOAD_FIELDS[call.method]);
      default:
        return { code: 404, error: 'Not Found' };
    }
  }

  private media(bot: Bot, call: BotApiCall, field: (typeof UPLOAD_FIELDS)[keyof typeof UPLOAD_FIELDS]) {
    const upload = call.files[field];
    if (!upload) return { code: 400, error: `Bad Request: there is no ${field} in the request` };
    const fileId = `F${randomBytes(12).toString('hex')}`;
    this.files.set(fileId, { path: `${field}s/file_${this.files.size}`, data: upload.data });
    const described = { file_id: fileId, file_unique_id: `u${fileId}`, file_size: upload.data.length };
    const member = field === 'photo'
      ? { photo: [{ ...described, width: 1, height: 1 }] }
      : { [field]: { ...described, file_name: upload.name, mime_type: upload.type } };
    return this.sent(bot, call.params, { ...member, ...(typeof call.params.caption === 'string' ? { caption: call.params.caption } : {}) });
  }

  private sent(bot: Bot, p: Record<string, unknown>, content: Partial<TgMessage>): { value: TgMessage } | { code: number; error: string } {
    const chatId = Number(p.chat_id);
    if (!this.chats.has(chatId)) return { code: 400, error: 'Bad Request: chat not found' };
    return {
      value: {
        message_id: bot.nextMessageId++, from: bot.user, chat: { id: chatId, type: chatId < 0 ? 'group' : 'private' },
        date: Math.floor(Date.now() / 1000), ...content,
      },
    };
  }
}

function answer(res: ServerResponse, status: number, body: BotApiAnswer<unknown>): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** JSON or multipart parameters, as the Bot API accepts them (multipart parsed by the platform's own `Request`). */
async function parseBody(req: IncomingMessage, raw: Buffer): Promise<Pick<BotApiCall, 'params' | 'files'>> {
  const type = req.headers['content-type'] ?? '';
  if (type.startsWith('multipart/form-data')) {
    const form = await new Request('http://mock/', { method: 'POST', headers: { 'content-type': type }, body: new Uint8Array(raw) }).formData();
    const params: Record<string, unknown> = {};
    const files: BotApiCall['files'] = {};
    for (const [name, value] of form) {
      if (typeof value === 'string') params[name] = name === 'reply_parameters' ? JSON.parse(value) : value;
      else files[name] = { name: value.name, type: value.type, data: Buffer.from(await value.arrayBuffer()) };
    }
    return { params, files };
  }
  return { params: raw.length ? (JSON.parse(raw.toString('utf8')) as Record<string, unknown>) : {}, files: {} };
}
