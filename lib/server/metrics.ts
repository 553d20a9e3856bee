// Prometheus metrics (--metrics; adr/0042), imported by the composition root only when they are
// on. Defines every metric toolshed exposes: what the request middleware counts (core/metrics.ts),
// the answers of the MCP endpoint by status (an HTTP step), and gauges read when Prometheus
// scrapes, from the parts that already know them (the transports' engines, the endpoint's
// sessions and streams, the tasks, the Redis link, the process). Served on a listener of its own
// (metrics_listener.ts), so that /metrics is never on the MCP endpoint's address.
import { isThenable } from "../util/maybe.ts";
import { createMetricRegistry, type GaugeReading } from "../util/metrics.ts";
import { SERVER_INFO } from "../wire/protocol.ts";
import type { Tasks } from "../tasks/tasks.ts";
import type { CoreMiddleware } from "../core/chain.ts";
import { requestMetrics } from "../core/metrics.ts";
import type { HttpStep } from "../transports/http/exchange.ts";

/** What one transport holds now; HTTP also has sessions and streams. */
export interface Load {
  readonly running: number;
  readonly waiting: number;
  readonly sessions?: number;
  readonly streams?: number;
}

interface Metrics {
  /** Counts requests by method, tool and outcome (the core's built-in, outside authorize). */
  readonly middleware: CoreMiddleware;
  /** Counts the MCP endpoint's answers by status (outermost of the endpoint's steps). */
  readonly httpStep: HttpStep;
  /** Adds a transport's load to the gauges (summed over all); returns how to take it away. */
  watch(load: () => Load): () => void;
  /** The text exposition of every metric now. */
  text(): string;
}

interface MetricsSources {
  readonly tasks: Tasks;
  /** Undefined without --redis; else whether the link to Redis is up now. */
  readonly redisUp?: () => boolean;
}

export function createMetrics(sources: MetricsSources): Metrics {
  const registry = createMetricRegistry();
  const middleware = requestMetrics(registry);
  const responses = registry.counter(
    "toolshed_http_responses_total",
    "Answers of the MCP endpoint by HTTP status (refusals before any method runs included)",
    ["status"],
  );
  const loads = new Set<() => Load>();
  const sum = (of: (load: Load) => number | undefined) => {
    let total = 0;
    for (const load of loads) total += of(load()) ?? 0;
    return total;
  };
  registry.gauge(
    "toolshed_requests_running",
    "Requests running now (listen streams included)",
    [],
    () => sum((load) => load.running),
  );
  registry.gauge(
    "toolshed_requests_waiting",
    "Requests waiting for a slot (--max-concurrency)",
    [],
    () => sum((load) => load.waiting),
  );
  registry.gauge(
    "toolshed_sessions",
    "Live 2025-era HTTP sessions",
    [],
    () => sum((load) => load.sessions),
  );
  registry.gauge(
    "toolshed_open_streams",
    "HTTP event streams open now (answers streamed, session GET streams, listens)",
    [],
    () => sum((load) => load.streams),
  );
  registry.gauge(
    "toolshed_tasks",
    "Tasks running on this instance, by status",
    ["status"],
    (): GaugeReading => {
      const running = sources.tasks.running();
      return [
        { labels: ["working"], value: running.working },
        { labels: ["input_required"], value: running.input_required },
      ];
    },
  );
  const { redisUp } = sources;
  registry.gauge(
    "toolshed_redis_up",
    "Whether Redis answers (1) or not (0); absent without --redis",
    [],
    () => redisUp === undefined ? undefined : redisUp() ? 1 : 0,
  );
  registry.gauge(
    "toolshed_build_info",
    "The toolshed version serving, as a label (the value is always 1)",
    ["version"],
    () => [{ labels: [SERVER_INFO.version], value: 1 }],
  );
  registry.gauge(
    "process_resident_memory_bytes",
    "Resident memory size in bytes",
    [],
    () => Deno.memoryUsage().rss,
  );
  const started = Math.round(performance.timeOrigin) / 1000;
  registry.gauge(
    "process_start_time_seconds",
    "Start time of the process since the Unix epoch, in seconds",
    [],
    () => started,
  );

  /** By status: a handful of series (200, 202, 400, 401, 403, 404, 406, 413, 429, 503 …). */
  const byStatus = new Map<number, { inc(): void }>();
  const count = (status: number) => {
    let counter = byStatus.get(status);
    if (counter === undefined) byStatus.set(status, counter = responses.labels(String(status)));
    counter.inc();
  };
  const counted = (response: Response): Response => {
    count(response.status);
    return response;
  };
  // A step that throws is answered 500 by the listener (handler.ts failed()).
  const failed = (error: unknown): never => {
    count(500);
    throw error;
  };
  const httpStep: HttpStep = (next) => (exchange) => {
    let response;
    try {
      response = next(exchange);
    } catch (error) {
      return failed(error);
    }
    return isThenable(response)
      ? (response as Promise<Response>).then(counted, failed)
      : counted(response);
  };

  return {
    middleware,
    httpStep,
    watch(load) {
      loads.add(load);
      return () => loads.delete(load);
    },
    text: registry.text,
  };
}
