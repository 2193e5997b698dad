import { Binary } from 'mongodb';
import type { DeadLetter, Delivery, InstanceRecord, MediaBlob, MessageRecord, NewDelivery } from '@parley/core';

/*
 * Pure mappings between Parley's records and MongoDB documents. Records are JSON-normalised on the
 * way in (as every back end stores them: undefined members vanish, Buffers inside message content
 * become `{type: 'Buffer', data: […]}`), so what is read back equals what a JSON store answers.
 */

/** `value` as JSON would store it: no undefined members, no functions, no class instances. */
export function jsonClean<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** An instance: `_id` is the public id, `seq` orders instances created in the same millisecond. */
export interface InstanceDocument extends Omit<InstanceRecord, 'id'> {
  _id: string;
  seq: number;
}

export function instanceToDocument(record: InstanceRecord, seq: number): InstanceDocument {
  const { id, ...rest } = jsonClean(record);
  return { _id: id, ...rest, seq };
}

export function documentToInstance(document: InstanceDocument): InstanceRecord {
  const { _id, seq: _seq, ...rest } = document;
  return { id: _id, ...rest };
}

/**
 * A message: the record's own fields, the `instance` partition, `ts` (numeric Unix seconds, for
 * sorting), `at` (the same instant as a Date, for the retention TTL index) and `seq` (insertion order
 * among equal timestamps).
 */
export interface MessageDocument extends MessageRecord {
  instance: string;
  ts: number;
  at: Date;
  seq: number;
}

/** Unix seconds of a record's text timestamp, 0 when it is not a number. */
export function messageSeconds(record: MessageRecord): number {
  const seconds = Number(record.messageTimestamp);
  return Number.isFinite(seconds) ? seconds : 0;
}

export function messageToDocument(instance: string, record: MessageRecord, seq: number): MessageDocument {
  const ts = messageSeconds(record);
  return { ...jsonClean(record), instance, ts, at: new Date(ts * 1000), seq };
}

export function documentToMessage(document: MessageDocument): MessageRecord {
  const { instance: _instance, ts: _ts, at: _at, seq: _seq, _id, ...record } = document as MessageDocument & { _id?: unknown };
  return record;
}

/** A chat or contact: the resource's fields plus the `instance` partition. */
export type PartitionedDocument<T> = T & { instance: string };

/** A chat or contact without the storage fields (`_id`, `instance`). */
export function documentToResource<T>(document: PartitionedDocument<T>): T {
  const { instance: _instance, _id, ...resource } = document as PartitionedDocument<T> & { _id?: unknown };
  return resource as T;
}

/** A change to a chat or contact: given fields are set, undefined ones ignored, null ones removed (a contact's `imgUrl`). */
export type ResourceChange<T> = { [K in keyof T]?: T[K] | null } & { id: string };

/**
 * The update of a merge-upsert: given fields are set (undefined ones ignored, null ones unset), the defaults of
 * the fields not given apply only when the document is created.
 */
export function mergeUpsert<T extends { id: string }>(
  instance: string,
  given: ResourceChange<T>,
  defaults: Omit<T, 'id'>,
): { filter: { instance: string; id: string }; update: { $set?: Record<string, unknown>; $unset?: Record<string, ''>; $setOnInsert?: Record<string, unknown> } } {
  const set: Record<string, unknown> = {};
  const unset: Record<string, ''> = {};
  for (const [name, value] of Object.entries(given)) {
    if (name === 'id' || value === undefined) continue;
    if (value === null) unset[name] = '';
    else set[name] = jsonClean(value);
  }
  const setOnInsert: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(defaults)) {
    if (!(name in set) && !(name in unset)) setOnInsert[name] = value;
  }
  // Empty operators are omitted: servers before 5.0 refuse them.
  const update: { $set?: Record<string, unknown>; $unset?: Record<string, ''>; $setOnInsert?: Record<string, unknown> } = {};
  if (Object.keys(set).length > 0) update.$set = set;
  if (Object.keys(unset).length > 0) update.$unset = unset;
  if (Object.keys(setOnInsert).length > 0) update.$setOnInsert = setOnInsert;
  return { filter: { instance, id: given.id }, update };
}

/** Media bytes as BSON binary (subtype 0), with their metadata. Documents are limited to 16 MiB. */
export interface MediaDocument {
  instance: string;
  messageId: string;
  data: Binary;
  mimetype: string;
  fileName?: string;
}

export function mediaToDocument(instance: string, messageId: string, blob: MediaBlob): MediaDocument {
  // Binary keeps a reference to the bytes it is given: copy, so later changes to the caller's Buffer do not leak in.
  const document: MediaDocument = { instance, messageId, data: new Binary(Buffer.from(blob.data)), mimetype: blob.mimetype };
  if (blob.fileName !== undefined) document.fileName = blob.fileName;
  return document;
}

export function documentToMedia(document: MediaDocument): MediaBlob {
  const blob: MediaBlob = { data: Buffer.from(document.data.value()), mimetype: document.mimetype };
  if (document.fileName !== undefined) blob.fileName = document.fileName;
  return blob;
}

/** A plugin state document: the value as JSON text, so any JSON (keys with `$` or `.` included) round-trips. */
export interface StateDocument {
  namespace: string;
  id: string;
  json: string;
}

export function stateToDocument(namespace: string, id: string, value: unknown): StateDocument {
  return { namespace, id, json: JSON.stringify(value) ?? 'null' };
}

export function documentToState<T>(document: StateDocument): T {
  return JSON.parse(document.json) as T;
}

/** A queued or dead delivery: `_id` is the delivery id, `seq` its enqueue order, `lane` its lane id. */
export interface DeliveryDocument extends Omit<NewDelivery, 'id'> {
  _id: string;
  attempts: number;
  nextAttemptAt: number;
  lastError?: string;
  lastStatus?: number;
  lane: string;
  seq: number;
  state: 'queued' | 'dead';
  deadAt?: number;
}

export function deliveryToDocument(delivery: NewDelivery, lane: string, seq: number): DeliveryDocument {
  const { id, instance, url, format, eventId, eventType, body, createdAt } = delivery;
  return {
    _id: id, instance, url, format, eventId, eventType, body, createdAt,
    attempts: 0, nextAttemptAt: createdAt, lane, seq, state: 'queued',
  };
}

export function documentToDelivery(document: DeliveryDocument): Delivery {
  const delivery: Delivery = {
    id: document._id, instance: document.instance, url: document.url, format: document.format, eventId: document.eventId,
    eventType: document.eventType, body: document.body, createdAt: document.createdAt, attempts: document.attempts,
    nextAttemptAt: document.nextAttemptAt,
  };
  if (document.lastError !== undefined) delivery.lastError = document.lastError;
  if (document.lastStatus !== undefined) delivery.lastStatus = document.lastStatus;
  return delivery;
}

export function documentToDeadLetter(document: DeliveryDocument): DeadLetter {
  return { ...documentToDelivery(document), deadAt: document.deadAt ?? 0 };
}

/** The lane of a delivery: its instance and URL (instance ids hold no spaces, URLs no raw spaces). */
export function deliveryLane(instance: string, url: string): string {
  return `${instance} ${url}`;
}
