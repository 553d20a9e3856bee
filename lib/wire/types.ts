// JSON-RPC shapes shared by the layers above.

/** A JSON-RPC request id. toolshed accepts strings and safe integers. */
export type RequestId = string | number;

/** A JSON-RPC error object. */
export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}
