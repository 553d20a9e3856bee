// An HTTP server in this process for tests: 127.0.0.1, a free port, the given primitives, test-sized
// limits and recorded diagnostics; `close()` shuts it down and waits until it has closed.
import { createCore } from "../lib/core/handle.ts";
import {
  contentsOf,
  createRegistry,
  type OtherPrimitives,
  type Registry,
} from "../lib/primitives/registry.ts";
import type { Tool } from "../lib/primitives/tools.ts";
import { type HttpOptions, type HttpServer, serveHttp } from "../lib/transports/http.ts";
import { recorder } from "./_diagnostics.ts";
import { withHangGuard } from "./_server_process.ts";

export interface TestHttpServer {
  server: HttpServer;
  /** What the server serves: swap it to reload. */
  registry: Registry;
  url: string;
  port: number;
  diagnostics: ReturnType<typeof recorder>;
  close(): Promise<void>;
}

export function serveForTest(
  tools: readonly Tool[],
  options: Partial<HttpOptions> = {},
  others: OtherPrimitives = {},
  core: { listChanged?: boolean } = {},
): TestHttpServer {
  const diagnostics = recorder();
  const registry = createRegistry(contentsOf(tools, others));
  const server = serveHttp({
    hostname: "127.0.0.1",
    port: 0,
    core: createCore({
      registry,
      pageSize: 100,
      toolTimeoutMs: 10_000,
      diagnostics,
      listChanged: core.listChanged,
    }),
    registry,
    allowedHosts: [],
    maxMessageBytes: 1 << 20,
    maxConcurrency: 8,
    shutdownGraceMs: 10_000,
    diagnostics,
    ...options,
  });
  return {
    server,
    registry,
    url: server.url,
    port: Number(new URL(server.url).port),
    diagnostics,
    async close() {
      await withHangGuard(server.shutdown("the test is over"), "shutdown");
      await withHangGuard(server.done, "the server closing");
    },
  };
}
