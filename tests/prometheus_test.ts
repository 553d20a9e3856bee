// A real Prometheus scrapes toolshed (adr/0042): Debian's `prometheus` runs on 127.0.0.1 with the
// configuration of examples/metrics (its target main.ts's --metrics, its interval one second), a tool is called a known number of
// times over HTTP, and Prometheus's query API is asked until it answers that count for the tool:
// what a dashboard or an alert would read. Nothing here asserts a time; every wait is bounded.
//
// Where /usr/bin/prometheus is missing the test is ignored with a message, except under CI=true
// (.ci/run installs it), where its absence fails.
import { ok, strictEqual } from "node:assert/strict";
import { modernHeaders } from "./_http_server.ts";
import { spawnHttpServer, withHangGuard } from "./_server_process.ts";

const PROMETHEUS = "/usr/bin/prometheus";
const UNDER_CI = Deno.env.get("CI") === "true";
const FIXTURE_TOOLS = new URL("./fixtures/tools", import.meta.url).pathname;
const EXAMPLE_CONFIG = new URL("../examples/metrics/prometheus.yml", import.meta.url);
/** Calls of the tool; the count Prometheus must come to answer. */
const CALLS = 7;

function hasPrometheus(): boolean {
  try {
    return Deno.statSync(PROMETHEUS).isFile;
  } catch {
    return false;
  }
}

const AVAILABLE = hasPrometheus();
if (!AVAILABLE && !UNDER_CI) {
  Deno.stderr.writeSync(new TextEncoder().encode(
    `tests: ${PROMETHEUS} is missing, so the Prometheus test is ignored ` +
      "(apt-get install prometheus runs it)\n",
  ));
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  return port;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `read` every 250 ms until it gives a value, at most `tries` times; else throws `what`. */
async function eventually<T>(
  read: () => Promise<T | undefined>,
  what: string,
  tries = 240,
): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = await read().catch(() => undefined);
    if (value !== undefined) return value;
    await pause(250);
  }
  throw new Error(`Never came: ${what}`);
}

interface Prometheus {
  readonly url: string;
  /** Its log so far (stderr). */
  log(): string;
  stop(): Promise<void>;
}

/** The example's configuration, scraping `target` (host:port) every second. */
async function configFor(target: string): Promise<string> {
  const example = await Deno.readTextFile(EXAMPLE_CONFIG);
  const replaced = example
    .replace('targets: ["127.0.0.1:9464"]', `targets: ["${target}"]`)
    .replace("scrape_interval: 15s", "scrape_interval: 1s");
  ok(replaced.includes(target) && replaced.includes("1s"), `unexpected ${EXAMPLE_CONFIG}`);
  return replaced;
}

/** Prometheus on a free port of 127.0.0.1, scraping `target` (host:port) every second. */
async function startPrometheus(target: string, dir: string): Promise<Prometheus> {
  const config = `${dir}/prometheus.yml`;
  await Deno.writeTextFile(config, await configFor(target));
  const port = freePort();
  const child = new Deno.Command(PROMETHEUS, {
    args: [
      `--config.file=${config}`,
      `--storage.tsdb.path=${dir}/data`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--log.level=warn",
    ],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const decoder = new TextDecoder();
  let log = "";
  const drained = (async () => {
    for await (const chunk of child.stderr) log += decoder.decode(chunk, { stream: true });
  })();
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* it has exited already */ }
    await withHangGuard(child.status, "prometheus exiting");
    await drained;
  };
  try {
    await eventually(async () => {
      const response = await fetch(`${url}/-/ready`);
      await response.body?.cancel();
      return response.status === 200 ? true : undefined;
    }, `prometheus ready at ${url}`);
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}; its log:\n${log}`);
  }
  return { url, log: () => log, stop };
}

/** The one value of an instant query, or undefined while it has none. */
async function queried(prometheus: string, query: string): Promise<string | undefined> {
  const response = await fetch(`${prometheus}/api/v1/query?query=${encodeURIComponent(query)}`);
  const answer = await response.json();
  if (answer.status !== "success") throw new Error(`query failed: ${JSON.stringify(answer)}`);
  const [first] = answer.data.result as { value: [number, string] }[];
  return first?.value[1];
}

Deno.test({
  name: "a real Prometheus scrapes /metrics and its query API answers the calls of a tool",
  ignore: !AVAILABLE && !UNDER_CI,
  async fn() {
    if (!AVAILABLE) {
      throw new Error(
        `${PROMETHEUS} is missing: under CI the Prometheus test must run (.ci/run installs ` +
          "the Debian package prometheus)",
      );
    }
    const dir = await Deno.makeTempDir({ prefix: "toolshed-prometheus-" });
    const toolshed = await spawnHttpServer(["--tools", FIXTURE_TOOLS, "--metrics", "127.0.0.1:0"]);
    let prometheus: Prometheus | undefined;
    try {
      const metricsUrl = toolshed.stderr()
        .map((line) => /metrics on (\S+)$/.exec(line)?.[1])
        .find((url) => url !== undefined);
      ok(metricsUrl, `no "metrics on" line in:\n${toolshed.stderr().join("\n")}`);
      for (let id = 1; id <= CALLS; id++) {
        const response = await fetch(toolshed.url, {
          method: "POST",
          headers: modernHeaders("tools/call", "echo"),
          body: JSON.stringify({
            jsonrpc: "2.0",
            id,
            method: "tools/call",
            params: {
              name: "echo",
              arguments: { text: `call ${id}` },
              _meta: {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
              },
            },
          }),
        });
        const answer = await response.json();
        strictEqual(answer.result?.content?.[0]?.text, `call ${id}`);
      }
      prometheus = await startPrometheus(new URL(metricsUrl).host, dir);
      const { url } = prometheus;
      // The target is up once scraped; the count is there from the first scrape on.
      const up = await eventually(
        () => queried(url, 'up{job="toolshed"}'),
        `a scrape of ${metricsUrl}`,
      );
      strictEqual(up, "1", `the target is down; prometheus's log:\n${prometheus.log()}`);
      const count = await eventually(
        async () => {
          const value = await queried(
            url,
            'sum(toolshed_requests_total{job="toolshed",method="tools/call",tool="echo"})',
          );
          return value === String(CALLS) ? value : undefined;
        },
        `toolshed_requests_total of "echo" at ${CALLS}`,
      );
      strictEqual(count, String(CALLS));
      strictEqual(
        await queried(url, 'toolshed_requests_total{tool="echo",outcome="ok"}'),
        String(CALLS),
      );
      // A histogram Prometheus reads as one: the count of its observations.
      strictEqual(
        await queried(url, 'toolshed_request_duration_seconds_count{tool="echo"}'),
        String(CALLS),
      );
    } finally {
      await prometheus?.stop();
      await toolshed.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
