// Requests the server sends to the client (2025-era sampling, elicitation, roots), with
// their answers routed back by id. The transport hands every client response to settle().
import type { JsonObject } from "../util/json.ts";
import { isObject, messageOf } from "../util/json.ts";
import type { RequestId } from "../wire/types.ts";
import type { Outbound } from "../methods/context.ts";

/** The client answered a server request with a JSON-RPC error. */
class ClientError extends Error {
  constructor(readonly method: string, readonly error: unknown) {
    const detail = isObject(error) && typeof error.message === "string"
      ? error.message
      : JSON.stringify(error) ?? String(error);
    super(`The client answered ${method} with an error: ${detail}`);
    this.name = "ClientError";
  }
}

interface Pending {
  method: string;
  resolve(result: JsonObject): void;
  reject(error: Error): void;
  signal: AbortSignal;
  onAbort(): void;
}

/** Our ids never collide with a client's: they are strings with our prefix and a counter. */
const ID_PREFIX = "toolshed-";

/**
 * `send` writes one message to the client; `signal` is that of the request on whose behalf
 * it goes (the one given to `request`), so a transport with a stream per request (HTTP) can
 * put it on that request's stream. stdio has one stream and ignores it.
 */
export function createOutbound(
  send: (message: JsonObject, signal: AbortSignal) => void,
): Outbound {
  const pending = new Map<RequestId, Pending>();
  let next = 1;
  let closed: string | undefined;

  function forget(id: RequestId): Pending | undefined {
    const entry = pending.get(id);
    if (!entry) return undefined;
    pending.delete(id);
    entry.signal.removeEventListener("abort", entry.onAbort);
    return entry;
  }

  return {
    request(method, params, signal) {
      if (closed !== undefined) return Promise.reject(new Error(closed));
      if (signal.aborted) return Promise.reject(new Error(messageOf(signal.reason)));
      const id = `${ID_PREFIX}${next++}`;
      return new Promise<JsonObject>((resolve, reject) => {
        const onAbort = () => {
          if (!forget(id)) return;
          const reason = messageOf(signal.reason);
          send({
            jsonrpc: "2.0",
            method: "notifications/cancelled",
            params: { requestId: id, reason },
          }, signal);
          reject(new Error(`${method} was cancelled: ${reason}`));
        };
        pending.set(id, { method, resolve, reject, signal, onAbort });
        signal.addEventListener("abort", onAbort, { once: true });
        send({ jsonrpc: "2.0", id, method, params }, signal);
      });
    },
    settle(response) {
      if (response.id === null) return false;
      const entry = forget(response.id);
      if (!entry) return false;
      if (response.result !== undefined) entry.resolve(response.result);
      else entry.reject(new ClientError(entry.method, response.error ?? "no result"));
      return true;
    },
    close(reason) {
      closed = reason;
      for (const id of [...pending.keys()]) forget(id)!.reject(new Error(reason));
    },
    pending: () => pending.size,
  };
}
