// A feature that is off costs what its absence would (issue 42, adr/0074 step 12):
// its modules are loaded only by a server that has it on (lib/server/features.ts imports them
// with `import()`), so a server with every feature off loads the modules a build without them
// would, less the few named below, which discovery and the HTTP endpoint need to recognise what
// turns a feature on. What an off feature adds per request is held by
// tests/http_composition_test.ts (the endpoint's steps and the core's middleware).
import { deepStrictEqual } from "node:assert/strict";
import { moduleGraph, reachable, repositoryFiles } from "./_module_graph.ts";

/** The modules of each feature of phases 3–4, by path prefix. */
const FEATURES: Record<string, readonly string[]> = {
  "OAuth": ["lib/auth/", "lib/transports/http/oauth"],
  "metrics": ["lib/core/metrics.ts", "lib/server/metrics", "lib/util/metrics.ts"],
  "telemetry": ["lib/core/telemetry.ts"],
  "rate limits": ["lib/core/rate_limit.ts", "lib/util/token_buckets.ts"],
  "toolsets": ["lib/primitives/toolsets.ts", "lib/transports/http/toolsets.ts"],
  "mounted servers": ["lib/mounts/"],
  "code mode": ["lib/code/"],
  "OpenAPI": ["lib/openapi/"],
  "shared state (Redis)": ["lib/redis/", "lib/server/shared_state.ts"],
};

/** Loaded with every feature off, and why: what a build without the feature would load too. */
const STDIO_START: Record<string, string> = {
  "lib/primitives/toolsets.ts":
    "discovery names the toolsets (the tools folder's subfolders), and the server's view of its tools (--read-only too) is made with it",
  "lib/mounts/names.ts": "discovery tells a mount file (tools/*.mcp.json) from a sidecar",
  "lib/code/runner_command.ts": "main.ts tells code mode's runner from a serve by its name",
  "lib/openapi/file_names.ts": "discovery tells an API file (tools/*.openapi.json) from a sidecar",
};
const HTTP_SIDE: Record<string, string> = {
  "lib/primitives/toolsets.ts":
    "as at the stdio start; the endpoint's routes name code mode's path",
  "lib/transports/http/toolsets.ts":
    "its step is composed only with toolsets, a narrowed view or --watch (3.8 KB)",
  "lib/transports/http/oauth.ts":
    "its step is composed only with OAuth on; loaded with the endpoint, 27 KB with the five below",
  "lib/transports/http/oauth_challenge.ts": "oauth.ts's, as above",
  "lib/transports/http/oauth_metadata.ts": "the metadata route, made only with OAuth on",
  "lib/auth/algorithms.ts": "oauth.ts's, as above",
  "lib/auth/claims.ts": "oauth.ts's, as above",
  "lib/auth/token_shape.ts": "oauth.ts's, as above",
};

/** The modules of any feature that loading `root` loads, before any `import()` runs. */
async function featureModulesOf(root: string): Promise<string[]> {
  const loaded = repositoryFiles(reachable(await moduleGraph(root), true));
  const prefixes = Object.values(FEATURES).flat();
  return loaded.filter((file) => prefixes.some((prefix) => file.startsWith(prefix)));
}

Deno.test("a stdio server with every feature off loads none of their modules but what discovery needs to see one", async () => {
  deepStrictEqual(await featureModulesOf("main.ts"), Object.keys(STDIO_START).sort());
});

Deno.test("the HTTP side, loaded for --http, loads of the features' modules only the endpoint's named ones", async () => {
  deepStrictEqual(
    await featureModulesOf("lib/server/http_side.ts"),
    Object.keys(HTTP_SIDE).sort(),
  );
});
