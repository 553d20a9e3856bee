// The fast test tier, for the edit loop: `deno task test:fast` runs every test file but the
// ones listed here (and the doc tests); `deno task test` runs them all, as CI does.
//
// The rule: a test file is listed here when it spends seconds on other processes (deno
// compile, bundle, publish or check; main.ts instances as its subject; the SDK clients over a
// process; redis-server) or on volume (randomized differential and bounds tests over tens of
// thousands to millions of cases). Everything else is fast, and a new test file is fast
// until it is listed: the core, the transports in process, the stdio and HTTP transcripts,
// the layers. A file that spawns one cheap process among in-process tests stays fast, as an
// exception named with its reason in tests/fast_tier_test.ts, which keeps this rule.
// Measured with `deno test -A --parallel --reporter=junit` (seconds of each file's tests on
// 2 cores, issue 23).
//
//   deno run -A tests/fast_tier.ts [deno test options …]

/** Test files left out of the fast tier, with the seconds their tests took. */
export const SLOW_TESTS: readonly string[] = [
  "tests/redis_faults_test.ts", // 22 s: redis-server stopped, stalled, restarted under main.ts
  "tests/shared_state_test.ts", // 18 s: main.ts instances sharing redis-server
  "tests/compile_test.ts", // 15 s: deno compile, deno check
  "tests/publish_test.ts", // 40 s: deno compile twice, the official mcpb CLI on Node.js, main.ts
  "tests/bundle_test.ts", // 14 s: deno bundle, deno publish --dry-run
  "tests/npm_package_test.ts", // 40 s: deno bundle, Verdaccio, npm publish and installs, the bin
  "tests/check_command_test.ts", // 14 s: toolshed check type-checks in a process
  "tests/fast_validator_test.ts", // 14 s: differential, 10,000s of random schemas and values
  "tests/http_bounds_test.ts", // 11 s: main.ts --http against stalled and oversized clients
  "tests/new_command_test.ts", // 10 s: deno check of what toolshed new writes
  "tests/newcomer_test.ts", // 12 s: deno bundle (the npm package), the README's path in processes
  "tests/server_outside_test.ts", // 16-22 s: new server outside the repository, from a clone and a URL: deno test, check
  "tests/executable_main_test.ts", // 8 s: executable tools through main.ts processes
  "tests/code_sandbox_test.ts", // 20 s: a deno process per sandbox run, time limits run out
  "tests/code_sandbox_compiled_test.ts", // 2 s: the sandbox's children as main.ts __code-runner
  "tests/validation_bounds_test.ts", // 7 s: millions of items against the validator's bounds
  "tests/deploy_kubernetes_test.ts", // 6 s: main.ts with the manifest's arguments, drained
  "tests/meta_schema_test.ts", // 6 s: 20,000 schemas per meta-schema draft
  "tests/main_test.ts", // 4 s: main.ts processes, signals
  "tests/stdout_guard_test.ts", // 1 s: a main.ts process whose tool spawns children and a Worker
  "tests/interop_asking_test.ts", // 3 s: the SDK clients over main.ts processes
  "tests/interop_test.ts", // 2 s: the SDK clients over main.ts processes
  "tests/jobs_sdk_test.ts", // 12 s: the SDK client following jobs over main.ts processes
  "tests/validator_differential_test.ts", // 2 s: 46,000 random values against upstream
  "tests/interop_primitives_test.ts", // 1 s: the SDK clients over main.ts processes
  "tests/skills_test.ts", // 1 s: the SDK's SkillsClient over main.ts --watch processes
  "tests/remote_run_test.ts", // 1 s: main.ts run from a URL in a process
  "tests/deno_install_test.ts", // 1 s: deno install from a loopback URL, the installed command run
  "tests/cors_browser_test.ts", // 5 s: headless Chromium calling the server from two pages
  "tests/prometheus_test.ts", // 5 s: a real Prometheus scraping main.ts --metrics
  "tests/rate_limit_redis_test.ts", // 7 s: redis-server paused, stalled and shared by two servers
  "tests/metrics_listener_test.ts", // 5 s: a main.ts --metrics per test, 1,000 connections under ulimit
  "tests/examples/audit_log_test.ts", // 5 s: toolshed check of a type error, the SDK clients over main.ts
  "tests/examples/metrics_test.ts", // promtool check config in a process
  "tests/examples/oauth_test.ts", // 4 s: issuer.ts and main.ts processes, sign-ins by fetch and the SDK clients
  "tests/examples/gateway_test.ts", // 6 s: three main.ts (gateway, team, hello), check --update-pins, the SDK client
  "tests/memory_worst_case_test.ts", // 103 s: main.ts --http under each hostile mix of issue 34
  "tests/task_memory_test.ts", // 28 s: main.ts --http (and redis-server) holding 150 large tasks
  "tests/dpop_replay_test.ts", // 16 s: main.ts --http and an issuer through a 10,050-proof flood
  "tests/examples/check_test.ts", // toolshed check in a process for each of 13 examples, deno check
  "tests/examples/scale_out_test.ts", // redis-server and three main.ts --http --redis
  "tests/examples/http_behind_proxy_test.ts", // nginx in front of main.ts --http
  "tests/apps_browser_test.ts", // headless Chromium hosting an app served by main.ts
  "tests/dev_page_test.ts", // headless Chromium on the page of main.ts dev, which runs check
  "tests/config_hosts_live_test.ts", // 12 s: six MCP hosts' own mcp list, three starting main.ts
  "tests/jobs_host_test.ts", // 16 s: Claude Code twice and Gemini CLI, each starting main.ts
  "tests/mount_upstream_test.ts", // 9 s: server-everything (stdio, HTTP), main.ts and a script as upstreams
  "tests/examples/mounting_test.ts", // 11 s: npx starting the reference server, check and call processes
  "tests/examples/openapi_test.ts", // 3-9 s: the example's api_server.ts, toolshed check, list and call processes
  "tests/mounts_test.ts", // 3-8 s: fronts with toolshed and server-everything mounted, main.ts processes
  "tests/mounts_relay_test.ts", // 32-44 s: SDK clients through main.ts fronts to server-everything and main.ts upstreams
  "tests/container_test.ts", // 10 s: deno bundle, podman building and running a container image
  "tests/typed_tools_test.ts", // 15-20 s: deno check of the typed_tools fixtures, four processes
  "tests/typed_test_server_test.ts", // 7 s: deno check of the typed_test_server fixture, two processes
  "tests/dev_command_test.ts", // 5 s: main.ts dev processes, the SDK client, deno check on save
  "tests/dev_inspector_test.ts", // 13 s: the MCP Inspector (CLI and web) on Node.js against main.ts dev
  "tests/openapi_serve_test.ts", // 2 s: the SDK client over main.ts processes (stdio, HTTP) serving an API
  "tests/openapi_auth_test.ts", // 6 s: oidc-provider and main.ts --http --auth-issuer serving an API
  "tests/openapi_discovery_test.ts", // 3 s: main.ts processes (--watch with the SDK client, YAML, start-ups refused)
  "tests/openapi_credentials_test.ts", // 5 s: the SDK client over main.ts, oidc-provider and main.ts --http
  "tests/openapi_corpus_test.ts", // 7-17 s: 63 documents, 643 operations loaded through discovery
  "tests/code_mode_test.ts", // 3 s: sandbox children per run, an authorization server
  "tests/code_mode_reach_test.ts", // 2 s: a toolshed upstream mounted, a main.ts process with telemetry on
  "tests/floor_contestants_test.ts", // 48 s: bench:floor-process's wrk bursts, main.ts and its cut copies
  "tests/examples/code_mode_test.ts", // 4 s: toolshed check, list and call as processes
  "tests/code_declarations_check_test.ts", // 13 s: deno check of the declarations, star-trek.json's too
];

const ROOT = new URL("../", import.meta.url);

if (import.meta.main) {
  const missing = SLOW_TESTS.filter((file) => {
    try {
      return !Deno.statSync(new URL(file, ROOT)).isFile;
    } catch {
      return true;
    }
  });
  if (missing.length > 0) {
    // deno-lint-ignore no-console -- the reason the tier does not run
    console.error(
      `Cannot run the fast tier: tests/fast_tier.ts lists files that do not exist: ${
        missing.join(", ")
      }`,
    );
    Deno.exit(2);
  }
  // --ignore replaces deno.json's "exclude", so its dist/ (builds: the bundle, the npm
  // package's copy of lib/) is named again.
  const ignored = [...SLOW_TESTS, "dist/"].join(",");
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: ["test", "-A", "--doc", "--parallel", `--ignore=${ignored}`, ...Deno.args],
    cwd: ROOT,
  }).spawn().status;
  Deno.exit(code);
}
