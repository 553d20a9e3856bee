// The dispatcher: routes each request by protocol era and method to its handler and
// returns the JSON-RPC response object. It keeps the one piece of connection state, the
// era pin (adr/0004): the first 2026-07-28 request pins the connection modern, an
// `initialize` pins it legacy; `server/discover` answers in any state without pinning.
import { isObject, messageOf } from "../util/json.ts";
import { isThenable, type MaybePromise, then } from "../util/maybe.ts";
import {
  ErrorCode,
  internalError,
  invalidParams,
  methodNotFound,
  ProtocolError,
  unsupportedVersion,
} from "../wire/errors.ts";
import { legacyCallResult, legacyTool, modernResult, modernTool } from "./eras.ts";
import type { Envelope, Request } from "../wire/extract.ts";
import {
  LEGACY_VERSIONS,
  LIST_TTL_MS,
  META_PROTOCOL_VERSION,
  MODERN_VERSIONS,
  SERVER_INFO,
} from "../wire/protocol.ts";
import { callTool, type CallToolResult } from "../primitives/tool_call.ts";
import { createToolLister } from "../primitives/tool_list.ts";
import type { Registry, Tool } from "../primitives/tools.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import type { JsonObject } from "../util/json.ts";
import type { ToolContext } from "../primitives/types.ts";

export interface DispatcherOptions {
  registry: Registry;
  /** How many tools one `tools/list` page holds. */
  pageSize: number;
  /** How long a tool call may run when the tool sets no `timeoutMs`. */
  toolTimeoutMs: number;
  /** Where failures the client is not told in full are reported. */
  diagnostics: Diagnostics;
}

export interface Dispatcher {
  /**
   * Answers one request with a JSON-RPC response object: at once when every step is
   * synchronous, else as a promise. Never throws or rejects.
   */
  request(request: Request, controller: AbortController): MaybePromise<JsonObject>;
}

/** The state a legacy (handshake-era) session keeps per connection. */
interface LegacySession {
  version: string;
  clientCapabilities: JsonObject;
  clientInfo: JsonObject | undefined;
}

type Pin = { era: "open" } | { era: "modern" } | { era: "legacy"; session: LegacySession };

/** Serves claim-less requests that arrive before any `initialize` (lenient, unpinned). */
const UNINITIALIZED: LegacySession = Object.freeze({
  version: LEGACY_VERSIONS[0],
  clientCapabilities: Object.freeze({}),
  clientInfo: undefined,
});

/** Methods the 2026-07-28 revision removed; a modern request for one gets -32601. */
const REMOVED_IN_2026 = new Set([
  "initialize",
  "ping",
  "logging/setLevel",
  "resources/subscribe",
  "resources/unsubscribe",
  "tasks/result",
]);

const CAPABILITIES = { tools: {} };

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { registry, toolTimeoutMs, diagnostics } = options;
  const listTools = createToolLister(registry, options.pageSize);
  let pin: Pin = { era: "open" };

  function serveModern(
    request: Request,
    envelope: Envelope,
    controller: AbortController,
  ): MaybePromise<JsonObject> {
    const { method, params } = request;
    if (!MODERN_VERSIONS.includes(envelope.protocolVersion)) {
      throw unsupportedVersion(MODERN_VERSIONS, envelope.protocolVersion);
    }
    if (method === "server/discover") {
      return modernResult({
        supportedVersions: MODERN_VERSIONS,
        capabilities: CAPABILITIES,
        ttlMs: LIST_TTL_MS,
        cacheScope: "public",
      });
    }
    if (pin.era === "legacy") {
      throw new ProtocolError(
        ErrorCode.UnsupportedProtocolVersion,
        `Unsupported protocol version: this connection was initialized for "${pin.session.version}"`,
        { supported: [pin.session.version], requested: envelope.protocolVersion },
      );
    }
    pin = { era: "modern" };
    switch (method) {
      case "tools/list":
        return modernResult({
          ...listTools(params.cursor, "modern", modernTool),
          ttlMs: LIST_TTL_MS,
          cacheScope: "public",
        });
      case "tools/call":
        return then(runTool(request, controller, envelope).result, modernResult);
      default:
        throw REMOVED_IN_2026.has(method)
          ? methodNotFound(method, `(removed in protocol version ${MODERN_VERSIONS[0]})`)
          : methodNotFound(method);
    }
  }

  function serveLegacy(request: Request, controller: AbortController): MaybePromise<JsonObject> {
    const { method, params } = request;
    if (method === "initialize") return initialize(params);
    // A modern method, or any request on a modern connection, without its _meta. On a
    // legacy connection server/discover is just a method the session does not have (and
    // its error must not speak 2026-07-28).
    if ((method === "server/discover" && pin.era !== "legacy") || pin.era === "modern") {
      throw invalidParams(`Missing required _meta field: ${META_PROTOCOL_VERSION}`);
    }
    const session = pin.era === "legacy" ? pin.session : UNINITIALIZED;
    switch (method) {
      case "ping":
        return {};
      case "tools/list":
        return listTools(
          params.cursor,
          session.version,
          (tool) => legacyTool(tool, session.version),
        );
      case "tools/call": {
        const { tool, result } = runTool(request, controller, {
          protocolVersion: session.version,
          clientInfo: session.clientInfo,
          clientCapabilities: session.clientCapabilities,
        });
        return then(result, (ready) => legacyCallResult(ready, tool, session.version));
      }
      default:
        throw methodNotFound(method);
    }
  }

  function initialize(params: JsonObject): JsonObject {
    const requested = params.protocolVersion;
    if (typeof requested !== "string") {
      throw invalidParams("Invalid params: protocolVersion must be a string");
    }
    const capabilities = params.capabilities ?? {};
    if (!isObject(capabilities)) {
      throw invalidParams("Invalid params: capabilities must be an object");
    }
    if (pin.era === "modern") throw unsupportedVersion(MODERN_VERSIONS, requested);
    if (pin.era === "legacy") {
      throw new ProtocolError(
        ErrorCode.InvalidRequest,
        `Invalid request: the connection is already initialized for "${pin.session.version}"`,
      );
    }
    const clientInfo = isObject(params.clientInfo) ? params.clientInfo : undefined;
    // Echo a supported legacy version, else offer the newest legacy one; never 2026-07-28.
    const version = LEGACY_VERSIONS.includes(requested) ? requested : LEGACY_VERSIONS[0];
    // Every call of the session shares these: frozen, so no tool can change another's view.
    pin = {
      era: "legacy",
      session: {
        version,
        clientCapabilities: deepFreeze(capabilities),
        clientInfo: deepFreeze(clientInfo),
      },
    };
    return { protocolVersion: version, capabilities: CAPABILITIES, serverInfo: SERVER_INFO };
  }

  /** Starts a `tools/call`, or throws the -32602 its params deserve. */
  function runTool(
    request: Request,
    controller: AbortController,
    client: Pick<ToolContext, "protocolVersion" | "clientInfo" | "clientCapabilities">,
  ): { tool: Tool; result: MaybePromise<CallToolResult> } {
    const { name, arguments: given } = request.params;
    const args = given === undefined ? {} : given;
    if (typeof name !== "string") throw invalidParams("Invalid params: name must be a string");
    if (!isObject(args)) throw invalidParams("Invalid params: arguments must be an object");
    const tool = registry.byName.get(name);
    if (!tool) throw invalidParams(`Unknown tool: "${name}"`);
    const result = callTool(tool, args, {
      controller,
      defaultTimeoutMs: toolTimeoutMs,
      diagnostics,
      context: {
        requestId: request.id,
        protocolVersion: client.protocolVersion,
        clientInfo: client.clientInfo,
        clientCapabilities: client.clientCapabilities,
      },
    });
    return { tool, result };
  }

  return {
    request(request, controller) {
      const answer = (result: JsonObject) => ({ jsonrpc: "2.0", id: request.id, result });
      const fail = (error: unknown) => {
        if (error instanceof ProtocolError) {
          return { jsonrpc: "2.0", id: request.id, error: error.toRpcError() };
        }
        diagnostics.error(`Request "${request.method}" failed`, error);
        return { jsonrpc: "2.0", id: request.id, error: internalError(messageOf(error)) };
      };
      try {
        const result = request.envelope
          ? serveModern(request, request.envelope, controller)
          : serveLegacy(request, controller);
        return isThenable(result)
          ? (result as Promise<JsonObject>).then(answer, fail)
          : answer(result);
      } catch (error) {
        return fail(error);
      }
    },
  };
}

/** Freezes a parsed JSON value and everything in it; returns it. */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}
