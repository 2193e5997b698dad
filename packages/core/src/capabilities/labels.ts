import type { Label } from '../domain/resources.js';

/** Labels (spec 4.7). */
export interface LabelsCapability {
  list(): Promise<Label[]>;
  create(name: string, color?: number): Promise<Label>;
  /** JIDs of the chats carrying the label. Throws NotFoundError for an unknown label. */
  chats(labelId: string): Promise<string[]>;
  addToChat(labelId: string, jid: string): Promise<void>;
  removeFromChat(labelId: string, jid: string): Promise<void>;
  delete(labelId: string): Promise<void>;
}
