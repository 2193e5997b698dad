/**
 * @parley/client — a typed client of the Parley REST API for Node and browsers. Operation names,
 * inputs and answers come from the server's route schemas (see `src/generated/operations.ts`).
 */
export {
  InstanceClient, ParleyClient, type CallArgs, type EventsOptions, type InstanceCallArgs, type InstanceOperationId, type OperationId,
  type OperationResponse, type ParleyClientOptions, type RequestOptions,
} from './parley-client.js';
export type { FetchLike } from './fetch-like.js';
export { ParleyApiError } from './parley-api-error.js';
export { streamEvents, type StreamedEvent, type StreamEventsOptions } from './stream-events.js';
export { API_VERSION, operations, type ErrorBody, type Operations } from './generated/operations.js';
