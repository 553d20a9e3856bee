// The server of primitives already loaded, at once: what createServer builds from tools made in
// code, for tests and benches that need it synchronously (a test harness's HTTP server). It
// loads the HTTP transport with it, which createServer loads only for a server that serves HTTP.
import type { Server, ServerConfig } from "./create_server.ts";
import { composeLoaded } from "./create_server.ts";
import * as http from "../transports/http/server.ts";

export function serverOf(
  primitives: NonNullable<ServerConfig["primitives"]>,
  config: Omit<ServerConfig, "primitives" | "redis" | "watch"> = {},
): Server {
  return composeLoaded(primitives, config, http);
}
