/** JSON-RPC error codes MCP answers with. */
export const ProtocolCode = {
  InvalidRequest: -32600,
  InvalidParams: -32602,
  /** The specification's "Resource not found". */
  ResourceNotFound: -32002,
} as const;

/**
 * An error the SDK answers as a JSON-RPC error with this code, message and data. The SDK's own
 * `McpError` would do, but it prefixes its message with "MCP error <code>:", which the client's
 * `McpError` then prefixes again.
 */
export class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}
