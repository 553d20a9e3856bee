// Protocol constants: the reserved `_meta` keys and the server's identity (the versions
// served and what each supports are in versions.ts).
import denoConfig from "../../deno.json" with { type: "json" };

export const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
export const META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
export const META_LOG_LEVEL = "io.modelcontextprotocol/logLevel";
export const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";
export const META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

export const LOG_LEVELS: ReadonlySet<string> = new Set([
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
]);

/** The server's `Implementation`, as it appears in `serverInfo`. */
export const SERVER_INFO = { name: "toolshed", version: denoConfig.version } as const;

/**
 * How long a client may cache `server/discover` and `tools/list` results. Tools are
 * loaded once at start-up and never change while the process runs.
 */
export const LIST_TTL_MS = 300_000;
