// The HTTP side of the composition root (adr/0025, adr/0051): what `serveHttp` listens with and
// what `fetch` serves through, made from the one core and the HTTP settings, and what only a
// server reached over HTTP refuses or warns of at start. features.ts's loadHttp imports it, with
// the HTTP transport, only for a server created with `http` or at `fetch`'s first request: a
// stdio server loads none of it.
import { type Diagnostics, warn } from "../util/diagnostics.ts";
import type { Registry } from "../primitives/registry.ts";
import type { ServerMeta } from "../primitives/server_identity.ts";
import type { LoadedServer } from "../discovery/server_dir.ts";
import type { Core } from "../core/handle.ts";
import {
  createMcpHttp,
  type HttpOptions,
  type HttpServer,
  serveHttp,
} from "../transports/http/server.ts";
import type { McpHttp } from "../transports/http/handler.ts";
import { type Defaults, type Slice, sliceOf, STATE_KEY_ENV } from "../settings/table.ts";
import { resolveSettings } from "../settings/rules.ts";
import type { ServerConfig } from "./config.ts";
import type { SharedState } from "./shared_state.ts";

/** How to listen for HTTP; what the server's configuration says is the default for the rest. */
export type HttpListen =
  & Omit<
    HttpOptions,
    "core" | "registry" | "meta" | "diagnostics" | keyof Slice<"http"> | SharedLimit
  >
  & Partial<Pick<HttpOptions, "diagnostics" | keyof Slice<"http"> | SharedLimit>>;
type SharedLimit = "maxMessageBytes" | "maxConcurrency" | "shutdownGraceMs";

/** What the HTTP side is made from: the configuration, the core, and what the root made. */
export interface HttpWiring {
  readonly config: ServerConfig & Defaults;
  readonly core: Core;
  readonly registry: Registry;
  readonly meta: ServerMeta | undefined;
  readonly diagnostics: Diagnostics;
  readonly instance: string | undefined;
  readonly degraded: () => string | undefined;
  readonly sessionEnded: HttpOptions["sessionEnded"];
  /** With `metrics`: their step, around the endpoint's own. */
  readonly outerSteps: HttpOptions["outerSteps"];
  /** Read each request's address: a rate limit may key callers by it. */
  readonly callerAddresses: boolean;
  readonly toolsets: HttpOptions["toolsets"];
}

/** What a server created with `http` refuses (OAuth embedded without its URL) or warns of. */
export function checkHttp(
  config: ServerConfig,
  loaded: LoadedServer,
  shared: SharedState | undefined,
  diagnostics: Diagnostics,
): void {
  // Embedded, toolshed cannot know the URL clients reach the app by: tokens must name it.
  if (config.oauth && typeof config.http === "object" && config.oauth.publicUrl === undefined) {
    throw new Error(
      "Cannot serve OAuth embedded without oauth.publicUrl: the endpoint's URL as clients reach " +
        "it (https://mcp.example.com/mcp), which access tokens must name as their audience",
    );
  }
  if (shared === undefined && config.http) {
    if (config.stateKeys === undefined) {
      warn(
        diagnostics,
        `${STATE_KEY_ENV} is not set: the requestState of input_required answers is sealed ` +
          "with a random key of this process, which no other instance can open (set it to the " +
          "same secret on every instance behind a load balancer, or give them --redis)",
      );
    }
    if (loaded.tools.tools.some((tool) => tool.task !== undefined)) {
      warn(
        diagnostics,
        "Tasks are kept in this process's memory: no other instance can answer for them " +
          "(pass --redis URL to every instance behind a load balancer)",
      );
    }
  }
}

/** Listens for Streamable HTTP (`Server.serveHttp`). */
export function listenHttp(wiring: HttpWiring, listen: HttpListen): HttpServer {
  const { config, core, registry, meta, diagnostics, instance, degraded, sessionEnded } = wiring;
  const { shutdownGraceMs, maxConcurrency } = config;
  return serveHttp({
    maxConcurrency,
    shutdownGraceMs,
    // The HTTP settings, as the flags gave them; what `listen` says wins.
    ...sliceOf(config, "http"),
    instanceName: instance,
    degraded,
    diagnostics,
    oauth: config.oauth,
    sessionEnded,
    callerAddresses: wiring.callerAddresses,
    toolsets: wiring.toolsets,
    ...listen,
    core,
    registry,
    meta,
    outerSteps: wiring.outerSteps,
  });
}

/** What `fetch` serves through (`Server.fetch`): the MCP endpoint and the probes. */
export function embedHttp(wiring: HttpWiring): McpHttp {
  const { config, core, registry, meta, diagnostics, instance, degraded, sessionEnded } = wiring;
  const { maxMessageBytes, maxConcurrency } = config;
  // What `fetch` serves by: the HTTP settings, and `http`'s own over them.
  const embedding = resolveSettings({
    ...sliceOf(config, "http"),
    ...(typeof config.http === "object" ? config.http : {}),
  });
  return createMcpHttp({
    ...embedding,
    allowedHosts: embedding.allowedHosts ?? [],
    oauth: config.oauth,
    core,
    registry,
    diagnostics,
    maxConcurrency,
    maxMessageBytes,
    instanceName: instance,
    degraded,
    sessionEnded,
    outerSteps: wiring.outerSteps,
    callerAddresses: wiring.callerAddresses,
    toolsets: wiring.toolsets,
    meta,
  });
}
