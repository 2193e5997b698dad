/**
 * A refusal of a control request: HTTP status, a stable code, a message for people and details. The HTTP
 * layer answers it as `{"error":{"code","message","details"}}`, Parley's error model.
 */
export class SimError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'SimError';
  }
}
