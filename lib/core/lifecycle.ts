// The methods that are about the connection rather than a primitive: the 2025-era
// handshake and ping, and 2026-07-28 discovery.
import { isObject } from "../util/json.ts";
import type { JsonObject } from "../util/json.ts";
import { ErrorCode, invalidParams, ProtocolError, unsupportedVersion } from "../wire/errors.ts";
import { SERVER_INFO } from "../wire/protocol.ts";
import { LEGACY_VERSIONS, MODERN_VERSIONS } from "../wire/versions.ts";
import type { MethodCall } from "./methods.ts";

/** `initialize`: negotiates a legacy version and pins the session to it. */
export function initialize({ request, ctx, capabilities }: MethodCall): JsonObject {
  const { params } = request;
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
  if (session.pin.era === "modern") throw unsupportedVersion(MODERN_VERSIONS, requested);
  if (session.pin.era === "legacy") {
    throw new ProtocolError(
      ErrorCode.InvalidRequest,
      `Invalid request: the connection is already initialized for "${session.pin.client.protocolVersion}"`,
    );
  }
  const clientInfo = isObject(params.clientInfo) ? params.clientInfo : undefined;
  // Echo a supported legacy version, else offer the newest legacy one; never 2026-07-28.
  const version = LEGACY_VERSIONS.includes(requested) ? requested : LEGACY_VERSIONS[0];
  // Every call of the session shares these: frozen, so no tool can change another's view.
  session.pin = {
    era: "legacy",
    client: {
      protocolVersion: version,
      clientCapabilities: deepFreeze(clientCapabilities),
      clientInfo: deepFreeze(clientInfo),
    },
  };
  return { protocolVersion: version, capabilities, serverInfo: SERVER_INFO };
}

/** `ping` (2025 era): an empty result. */
export function ping(): JsonObject {
  return {};
}

/** `server/discover` (2026-07-28): what the server speaks and offers; answered in any state. */
export function discover({ capabilities }: MethodCall): JsonObject {
  return { supportedVersions: MODERN_VERSIONS, capabilities };
}

/** Freezes a parsed JSON value and everything in it; returns it. */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}
