/**
 * A JSON-RPC error answer (`{code, message}`) with the real server's codes: -32700 parse error, -32600 invalid
 * request, -32601 method not found, -32602 invalid params, -32603 internal. It is a reply to a client's bad
 * request, thrown inside the RPC layer only and always turned into a response, never a crash.
 */
export class RpcError extends Error {
  readonly code: number;

  constructor(code: number, message: string) {
    super(message);
    this.name = 'RpcError';
    this.code = code;
  }
}
