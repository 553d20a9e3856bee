// The trace and span of the code running now, when telemetry is on (adr/0041): structured log
// lines carry them as `trace_id` and `span_id`. The telemetry module sets the reader when it
// loads; without telemetry there is none, and nothing is read.

export interface SpanIds {
  readonly traceId: string;
  readonly spanId: string;
}

let reader: (() => SpanIds | undefined) | undefined;

/** Lets the log read the active span's ids (the telemetry module, when it is on). */
export function readActiveSpanWith(read: () => SpanIds | undefined): void {
  reader = read;
}

/** The active span's ids, or undefined (no telemetry, or no span). */
export function activeSpan(): SpanIds | undefined {
  return reader?.();
}
