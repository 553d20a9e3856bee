// The lazy loaders of the composition root (adr/0051, adr/0061 §6): each feature's modules are
// imported by a literal `import()` only for a server that has the feature on, so a stdio server
// that has none loads none of them. The root decides when; these say what is loaded.
import type { Diagnostics } from "../util/diagnostics.ts";
import { messageOf } from "../util/json.ts";
import { readActiveSpanWith } from "../util/active_span.ts";
import { parseRate, type Rate } from "../primitives/rate.ts";
import type { LoadedServer } from "../discovery/server_dir.ts";
import type { RateLimiter } from "../core/rate_limit.ts";
import type { ServerConfig } from "./config.ts";
import type { SharedState } from "./shared_state.ts";
import type { Defaults } from "../settings/table.ts";

/**
 * The rate limits (adr/0043), when any may apply: a per-caller limit, a tool with its own, or a
 * watched directory (a reload may bring one). Their module is imported only then; with Redis,
 * their buckets are shared through it.
 */
export async function rateLimiterOf(
  config: ServerConfig,
  loaded: LoadedServer,
  shared: SharedState | undefined,
  diagnostics: Diagnostics,
): Promise<RateLimiter | undefined> {
  const perCaller = config.rateLimit === undefined ? undefined : rateOf(config.rateLimit);
  const toolLimits = loaded.tools.tools.some((tool) => tool.rateLimit !== undefined);
  if (perCaller === undefined && !toolLimits && !config.watch) return undefined;
  const [{ createRateLimiter }, { createLocalBuckets }] = await Promise.all([
    import("../core/rate_limit.ts"),
    import("../util/token_buckets.ts"),
  ]);
  const local = createLocalBuckets();
  const buckets = shared === undefined ? local : await shared.rateBuckets(local, diagnostics);
  return createRateLimiter({ perCaller, buckets });
}

/** The per-caller rate, or a start-up error naming where it came from. */
function rateOf(text: string): Rate {
  try {
    return parseRate(text);
  } catch (error) {
    throw new Error(`Invalid rate limit: ${messageOf(error)}`);
  }
}

/** The modules of --metrics: what is measured, and its listener. */
export type MetricsModules =
  & typeof import("./metrics.ts")
  & typeof import("./metrics_listener.ts");

export async function loadMetrics(): Promise<MetricsModules> {
  const [measured, listener] = await Promise.all([
    import("./metrics.ts"),
    import("./metrics_listener.ts"),
  ]);
  return { ...measured, ...listener };
}

/** Traces and metrics through Deno's OpenTelemetry (core/telemetry.ts), made once it is on. */
export type Telemetry = ReturnType<typeof import("../core/telemetry.ts").createTelemetry>;

export async function loadTelemetry(): Promise<Telemetry> {
  const { createTelemetry } = await import("../core/telemetry.ts");
  try {
    const telemetry = createTelemetry();
    // Lines of a structured log name the span they are said in (adr/0044).
    readActiveSpanWith(telemetry.activeSpanIds);
    return telemetry;
  } catch (error) {
    throw new Error(
      `Cannot record telemetry: Deno's OpenTelemetry is off in this process (start it with ` +
        `OTEL_DENO=true): ${messageOf(error)}`,
    );
  }
}

/** The HTTP side (http_side.ts, with the HTTP transport): `serveHttp`, and what `fetch` serves. */
export type HttpModule = typeof import("./http_side.ts");

export function loadHttp(): Promise<HttpModule> {
  return import("./http_side.ts");
}

/** Hot reload's module (adr/0051), for a server that watches. */
export function loadReload(): Promise<typeof import("../discovery/reload.ts")> {
  return import("../discovery/reload.ts");
}

/** Code mode's view and sandbox (code/code_view.ts, adr/0073), made once it is on. */
export type CodeModeModule = import("../code/code_view.ts").CodeMode;

/** Code mode for a server that serves it (`--code-mode`): its modules load only then. */
export async function loadCodeMode(
  config: ServerConfig & Defaults,
  diagnostics: Diagnostics,
): Promise<CodeModeModule | undefined> {
  if (!config.codeMode) return undefined;
  const { createCodeMode } = await import("../code/code_view.ts");
  return createCodeMode({
    limits: {
      heapMb: config.codeHeapMb,
      timeoutMs: config.codeTimeoutMs,
      maxCalls: config.codeMaxCalls,
      maxConsoleBytes: CODE_CONSOLE_BYTES,
      maxResultBytes: config.maxOutputBytes,
      poolSize: config.codePool,
    },
    destructive: config.codeDestructive === true,
    maxResultChars: config.codeResultChars,
    diagnostics,
  });
}

/** The console output one run of code keeps (adr/0073): enough to debug, not to flood. */
const CODE_CONSOLE_BYTES = 64 * 1024;
