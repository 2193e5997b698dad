/**
 * The Bot API objects this channel reads, as core.telegram.org/bots/api documents them (the members
 * it uses; Telegram sends more).
 */
export interface TgUser {
  id: number;
  is_bot: boolean;
  first_name: string;
  last_name?: string;
  username?: string;
}

export interface TgChat {
  id: number;
  type: 'private' | 'group' | 'supergroup' | 'channel';
  title?: string;
}

export interface TgPhotoSize {
  file_id: string;
  file_unique_id: string;
  width: number;
  height: number;
  file_size?: number;
}

export interface TgFile {
  file_id: string;
  file_unique_id: string;
  file_name?: string;
  mime_type?: string;
  file_size?: number;
  file_path?: string;
}

export interface TgMessage {
  message_id: number;
  from?: TgUser;
  chat: TgChat;
  /** Unix seconds. */
  date: number;
  text?: string;
  caption?: string;
  photo?: TgPhotoSize[];
  document?: TgFile;
  video?: TgFile;
  audio?: TgFile;
  voice?: TgFile;
  location?: { latitude: number; longitude: number };
  reply_to_message?: TgMessage;
}

/** One incoming update (`getUpdates` item, or the body of a webhook request). */
export interface TgUpdate {
  update_id: number;
  message?: TgMessage;
  edited_message?: TgMessage;
}

/** Parley's message id of a Telegram message: message ids are unique per chat only, so the chat is part of it. */
export function messageIdOf(chatId: number | string, messageId: number): string {
  return `${chatId}_${messageId}`;
}

/** The Telegram `message_id` inside a Parley message id. */
export function telegramMessageId(id: string): number | undefined {
  const match = /^-?\d+_(\d+)/.exec(id);
  return match ? Number(match[1]) : undefined;
}
