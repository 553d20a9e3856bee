// Test helper: an OTLP/HTTP receiver (JSON) on 127.0.0.1 that a main.ts with Deno's
// OpenTelemetry on (OTEL_DENO=true, otelEnv) exports to, and what it received, as spans and
// histogram points. What arrives is awaited by polling until it is there, within a generous
// bound; nothing measures time.

/** Only a guard against a hang: what is awaited usually arrives as the process exits. */
const ARRIVAL_BOUND_MS = 30_000;

export interface ReceivedSpan {
  scope: string;
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  status: { code?: number; message?: string };
}

export interface ReceivedPoint {
  metric: string;
  unit: string;
  attributes: Record<string, unknown>;
  explicitBounds: number[];
  count: number;
}

export interface Receiver {
  readonly endpoint: string;
  readonly spans: ReceivedSpan[];
  readonly points: ReceivedPoint[];
  /** Resolves once `done` holds of what arrived; fails past the bound. */
  until(what: string, done: () => boolean): Promise<void>;
  close(): Promise<void>;
}

type OtlpValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
};
type OtlpAttribute = { key: string; value: OtlpValue };

function attributesOf(list: OtlpAttribute[] = []): Record<string, unknown> {
  return Object.fromEntries(list.map(({ key, value }) => [
    key,
    value.stringValue ?? (value.intValue === undefined ? undefined : Number(value.intValue)) ??
      value.doubleValue ?? value.boolValue,
  ]));
}

/** An OTLP/HTTP receiver (JSON) on 127.0.0.1: what it is sent, as spans and metric points. */
export function startReceiver(): Receiver {
  const spans: ReceivedSpan[] = [];
  const points: ReceivedPoint[] = [];
  let arrived = () => {};
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const body = await request.json();
    const path = new URL(request.url).pathname;
    if (path === "/v1/traces") {
      for (const resource of body.resourceSpans ?? []) {
        for (const scoped of resource.scopeSpans ?? []) {
          for (const span of scoped.spans ?? []) {
            spans.push({
              scope: scoped.scope?.name,
              name: span.name,
              kind: span.kind,
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? "",
              attributes: attributesOf(span.attributes),
              links: span.links ?? [],
              status: span.status ?? {},
            });
          }
        }
      }
    } else if (path === "/v1/metrics") {
      for (const resource of body.resourceMetrics ?? []) {
        for (const scoped of resource.scopeMetrics ?? []) {
          for (const metric of scoped.metrics ?? []) {
            for (const point of metric.histogram?.dataPoints ?? []) {
              points.push({
                metric: metric.name,
                unit: metric.unit,
                attributes: attributesOf(point.attributes),
                explicitBounds: point.explicitBounds,
                count: Number(point.count),
              });
            }
          }
        }
      }
    }
    arrived();
    return Response.json({});
  });
  return {
    endpoint: `http://127.0.0.1:${server.addr.port}`,
    spans,
    points,
    async until(what, done) {
      const deadline = Date.now() + ARRIVAL_BOUND_MS;
      while (!done()) {
        if (Date.now() > deadline) throw new Error(`Did not receive ${what}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 250);
          arrived = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    },
    close: () => server.shutdown(),
  };
}

/** The environment that turns Deno's OpenTelemetry on, exporting to `receiver`. */
export function otelEnv(receiver: Receiver): Record<string, string> {
  return {
    OTEL_DENO: "true",
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_SERVICE_NAME: "toolshed-telemetry-test",
  };
}

export function randomHex(bytes: number): string {
  return [...crypto.getRandomValues(new Uint8Array(bytes))]
    .map((byte) => byte.toString(16).padStart(2, "0")).join("");
}
