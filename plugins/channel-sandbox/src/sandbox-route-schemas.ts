/**
 * JSON Schemas of the sandbox driver's routes: the server checks request bodies against them and
 * shows them in its OpenAPI document.
 */

/** At most this many lines per order, each of at most this quantity. */
const MAX_ORDER_ITEMS = 100;
const MAX_ORDER_QUANTITY = 10_000;

/** The answer envelope of the sandbox routes: `{status: 200, data}`. */
function okAnswer(data: Record<string, unknown>): Record<string, unknown> {
  return { type: 'object', required: ['status', 'data'], properties: { status: { type: 'integer' }, data } };
}

/** `POST /sandbox/{key}/scan`: no body (scan the QR code) or the pairing code the phone enters. */
export const SCAN_BODY = {
  type: 'object',
  additionalProperties: false,
  properties: { code: { type: 'string', minLength: 1, maxLength: 64, description: 'The pairing code shown by POST /{key}/instance/pairing-code' } },
};

export const SCAN_ANSWER = okAnswer({
  type: 'object',
  required: ['phoneConnected', 'user'],
  properties: {
    phoneConnected: { type: 'boolean' },
    user: {
      type: 'object',
      required: ['id'],
      properties: { id: { type: 'string' }, lid: { type: 'string' }, name: { type: 'string' }, imageProfile: { type: 'string' } },
    },
  },
});

/** `POST /sandbox/{key}/order`: the seller's number and the lines to buy. */
export const ORDER_BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['to', 'items'],
  properties: {
    to: { type: 'string', minLength: 1, maxLength: 64, description: 'The seller: a sandbox phone number or its user JID' },
    items: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_ORDER_ITEMS,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['productId'],
        properties: {
          productId: { type: 'string', minLength: 1, maxLength: 64 },
          quantity: { type: 'integer', minimum: 1, maximum: MAX_ORDER_QUANTITY, description: 'Default 1' },
        },
      },
    },
  },
};

export const ORDER_ANSWER = okAnswer({
  type: 'object',
  required: ['orderId', 'token', 'messageId', 'order'],
  properties: {
    orderId: { type: 'string' },
    token: { type: 'string', description: 'What the seller passes to GET /{key}/business/order/{orderId}?token=' },
    messageId: { type: 'string', description: 'The orderMessage the seller received' },
    order: { type: 'object', description: 'The order, as the seller\'s GET /{key}/business/order/{orderId} answers it' },
  },
});

/** `GET /sandbox/{key}/mobile-code`: the registration code the simulated phone received. */
export const MOBILE_CODE_ANSWER = okAnswer({
  type: 'object',
  required: ['code', 'method', 'expiresAt', 'attemptsLeft'],
  properties: {
    code: { type: 'string', description: 'What POST /{key}/instance/mobile/verify takes: `123-456`' },
    method: { type: 'string', enum: ['sms', 'voice'] },
    expiresAt: { type: 'string', format: 'date-time' },
    attemptsLeft: { type: 'integer', description: 'Wrong codes the code still takes before it is void' },
  },
});
