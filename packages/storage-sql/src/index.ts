export { deliveryOf, outboundOf, type DeliveryRow, type OutboundRow } from './queue-rows.js';
export { idempotencyOf, messageOf, STATUS_RANK_SQL, type IdempotencyRow, type MessageRow, type RecordRow } from './record-rows.js';
