/**
 * A refusal of a control request: HTTP status, a stable code, a message for people and details
 * (`details.field`: the request field refused, a name or several). The HTTP layer answers it in Parley's
 * error model, `{"status","error":{"code","message","details"?}}`, a 400 naming a field as `validation_failed`.
 */
export class SimError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'SimError';
  }
}
