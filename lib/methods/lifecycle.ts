// The methods that are about the connection rather than a primitive: the 2025-era
// handshake and ping, and 2026-07-28 discovery.
import { isObject } from "../util/json.ts";
import type { JsonObject } from "../util/json.ts";
import { ErrorCode, invalidParams, ProtocolError, unsupportedVersion } from "../wire/errors.ts";
import { SERVER_INFO } from "../wire/protocol.ts";
import { SESSION_VERSIONS, STATELESS_VERSIONS } from "../wire/versions.ts";
import type { MethodCall } from "./call.ts";
import { keptCopy, MAX_KEPT_CAPABILITIES_BYTES, MAX_KEPT_CLIENT_INFO_BYTES } from "./session.ts";

/**
 * The least severe log level a 2025-era session is sent until its client sets one with
 * `logging/setLevel` (the spec lets the server choose; adr/0024): clients that never set a
 * level (Mastra's, for one) show a tool's messages, as with the official SDK's servers, but
 * not its debug chatter. 2026-07-28 asks per request, and sends none when it does not.
 */
const DEFAULT_LOG_LEVEL = "info";

/** `initialize`: negotiates a 2025-era version and pins the session to it. */
export function initialize({ params, ctx, capabilities, options }: MethodCall): JsonObject {
  const requested = params.protocolVersion;
  if (typeof requested !== "string") {
    throw invalidParams("Invalid params: protocolVersion must be a string");
  }
  const clientCapabilities = params.capabilities ?? {};
  if (!isObject(clientCapabilities)) {
    throw invalidParams("Invalid params: capabilities must be an object");
  }
  const session = ctx.session;
  if (!session) {
    throw new ProtocolError(
      ErrorCode.InvalidRequest,
      "Invalid request: initialize needs a connection that keeps a session",
    );
  }
  if (session.pin.era === "stateless") throw unsupportedVersion(STATELESS_VERSIONS, requested);
  if (session.pin.era === "session") {
    throw new ProtocolError(
      ErrorCode.InvalidRequest,
      `Invalid request: the connection is already initialized for "${session.pin.client.protocolVersion}"`,
    );
  }
  const clientInfo = isObject(params.clientInfo)
    ? keptCopy(params.clientInfo, MAX_KEPT_CLIENT_INFO_BYTES)
    : undefined;
  const kept = keptCopy(clientCapabilities, MAX_KEPT_CAPABILITIES_BYTES);
  // Echo a supported 2025-era version, else offer the newest of them; never 2026-07-28.
  const version = SESSION_VERSIONS.includes(requested) ? requested : SESSION_VERSIONS[0];
  // Every call of the session shares these: frozen copies, so no tool can change another's
  // view, bounded, so that a session holds what its table counts (session.ts).
  session.pin = {
    era: "session",
    client: {
      protocolVersion: version,
      clientCapabilities: kept.copy,
      clientInfo: clientInfo?.copy,
      keptBytes: kept.bytes + (clientInfo?.bytes ?? 0),
    },
  };
  session.logLevel ??= DEFAULT_LOG_LEVEL;
  return {
    protocolVersion: version,
    capabilities,
    serverInfo: options.serverInfo ?? SERVER_INFO,
  };
}

/** `ping` (2025 era): an empty result. */
export function ping(): JsonObject {
  return {};
}

/** `server/discover` (2026-07-28): what the server speaks and offers; answered in any state. */
export function discover({ capabilities }: MethodCall): JsonObject {
  return { supportedVersions: STATELESS_VERSIONS, capabilities };
}
