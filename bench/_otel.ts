// `--otel` for the end-to-end benchmarks (adr/0041): this commit's toolshed contestants run with
// Deno's OpenTelemetry on (OTEL_DENO=true), exporting OTLP over HTTP (protobuf, Deno's default)
// to a sink this process serves on 127.0.0.1, which reads each export and answers it as a
// collector would; contestants of `--against` run without. With `--against` a copy of this
// commit, the ratios are what telemetry costs when it is on.

export interface OtlpSink {
  /** The environment that turns Deno's OpenTelemetry on, exporting to this sink. */
  readonly env: Record<string, string>;
  /** Exports received so far. */
  exports(): number;
  close(): Promise<void>;
}

export function startOtlpSink(): OtlpSink {
  let received = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    await request.arrayBuffer();
    received++;
    return new Response(new Uint8Array(), {
      headers: { "content-type": "application/x-protobuf" },
    });
  });
  return {
    env: {
      OTEL_DENO: "true",
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${server.addr.port}`,
      OTEL_SERVICE_NAME: "toolshed-bench",
    },
    exports: () => received,
    close: () => server.shutdown(),
  };
}
