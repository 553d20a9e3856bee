// deploy/kubernetes.yaml, checked against itself and against the real server. It has never been
// applied to a cluster here (none is reachable): these tests read the manifest with js-yaml, start
// main.ts with the toolshed container's args ($(VAR) expanded from its env, as the kubelet does),
// and check what the manifest relies on: the probe paths and ports, the Service's targetPort, the
// allowed Host names, readiness failing while liveness holds during the drain on SIGTERM, and a
// termination grace period long enough for the preStop sleep and the drain. Loopback only; nothing
// here measures time: waits are events, loops are bounded.
import { deepStrictEqual, match, notStrictEqual, ok, strictEqual } from "node:assert/strict";
import { loadAll } from "npm:js-yaml@5.5.0";
import { USER } from "../build/container.ts";
import {
  events,
  type HttpServerProcess,
  spawnHttpServer,
  withHangGuard,
} from "./_server_process.ts";
import { modernHeaders as clientHeaders, rawRequest } from "./_http_server.ts";

const MANIFEST_TEXT = await Deno.readTextFile(
  new URL("../deploy/kubernetes.yaml", import.meta.url),
);
/** A small server directory (the image has its tools compiled in; here they come from --dir). */
const SERVER_DIR = new URL("./fixtures/server", import.meta.url).pathname;
/** A pod name as a Deployment makes them: <deployment>-<pod-template-hash>-<5 characters>. */
const POD_NAME = "toolshed-7d9c8b6f5d-x2x9q";
/** A token as `openssl rand -hex 32` makes it, as the manifest's first comment does. */
const TOKEN = Array.from(
  crypto.getRandomValues(new Uint8Array(32)),
  (byte) => byte.toString(16).padStart(2, "0"),
).join("");
/** main.ts waits this long, at most, for stderr to flush before it exits (FLUSH_STDERR_MS). */
const FLUSH_STDERR_SECONDS = 1;

// ---------------------------------------------------------------------------------------
// The manifest, as much of it as these tests read.

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    fieldRef?: { fieldPath: string };
    secretKeyRef?: { name: string; key: string };
  };
}

interface HttpProbe {
  httpGet: { path: string; port: string | number };
}

interface Container {
  name: string;
  args: string[];
  env: EnvVar[];
  ports: { name?: string; containerPort: number }[];
  readinessProbe: HttpProbe;
  livenessProbe: HttpProbe;
  lifecycle?: { preStop?: { sleep?: { seconds: number }; exec?: unknown } };
  securityContext?: {
    runAsNonRoot?: boolean;
    runAsUser?: number;
    runAsGroup?: number;
    readOnlyRootFilesystem?: boolean;
    allowPrivilegeEscalation?: boolean;
    capabilities?: { drop?: string[] };
  };
}

interface Deployment {
  kind: "Deployment";
  metadata: { name: string };
  spec: {
    strategy?: {
      type?: string;
      rollingUpdate?: { maxUnavailable?: number | string; maxSurge?: number | string };
    };
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
      spec: { terminationGracePeriodSeconds?: number; containers: Container[] };
    };
  };
}

interface Service {
  kind: "Service";
  metadata: { name: string };
  spec: {
    selector: Record<string, string>;
    ports: { name?: string; port: number; targetPort: string | number }[];
  };
}

const documents = loadAll(MANIFEST_TEXT) as (Deployment | Service | null)[];
const deployment = documents.find((document): document is Deployment =>
  document?.kind === "Deployment" && document.metadata.name === "toolshed"
);
const service = documents.find((document): document is Service =>
  document?.kind === "Service" && document.metadata.name === "toolshed"
);
if (deployment === undefined || service === undefined) {
  throw new Error("deploy/kubernetes.yaml has no Deployment and Service named toolshed");
}
const pod = deployment.spec.template.spec;
const container = pod.containers.find((candidate) => candidate.name === "toolshed");
if (container === undefined) {
  throw new Error("The toolshed Deployment has no container named toolshed");
}

/** What the kubelet would give each env var of the container in this test's pod. */
function valueOf(variable: EnvVar): string {
  if (variable.value !== undefined) return variable.value;
  if (variable.valueFrom?.fieldRef?.fieldPath === "metadata.name") return POD_NAME;
  // The only Secret is the token's (checked below).
  if (variable.valueFrom?.secretKeyRef !== undefined) return TOKEN;
  throw new Error(`This test has no value for the env var ${variable.name}`);
}

/** The container's args with each $(VAR) replaced from its env, as the kubelet does. */
function expandedArgs(): string[] {
  const values = new Map(container!.env.map((variable) => [variable.name, valueOf(variable)]));
  return container!.args.map((arg) =>
    arg.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (reference, name: string) => {
      const value = values.get(name);
      // Kubernetes would pass an unknown reference on as it is: here it is a mistake.
      if (value === undefined) throw new Error(`${reference} names no env var of the container`);
      return value;
    })
  );
}

/** Every value given to `option` in `args`. */
function valuesOf(args: readonly string[], option: string): string[] {
  return args.flatMap((arg, at) => arg === option && at + 1 < args.length ? [args[at + 1]] : []);
}

/** The one value given to `option` in `args`. */
function valueOfOption(args: readonly string[], option: string): string {
  const values = valuesOf(args, option);
  strictEqual(values.length, 1, `${option} once in the container's args`);
  return values[0];
}

/** `args` without `option` and its value. */
function without(args: readonly string[], option: string): string[] {
  const at = args.indexOf(option);
  ok(at !== -1, `${option} in the container's args`);
  return [...args.slice(0, at), ...args.slice(at + 2)];
}

/** The port a probe's or a Service's port (a name, or a number) names in the container. */
function containerPortOf(port: string | number): number | undefined {
  if (typeof port === "number") return port;
  return container!.ports.find((candidate) => candidate.name === port)?.containerPort;
}

/** The port of the manifest's --http address (HOST:PORT). */
function httpPort(): number {
  const address = valueOfOption(container!.args, "--http");
  match(address, /:\d+$/);
  return Number(address.slice(address.lastIndexOf(":") + 1));
}

// ---------------------------------------------------------------------------------------
// The manifest on its own.

Deno.test("deploy/kubernetes.yaml: the probes' port names the containerPort of the --http address, and the Service's targetPort names it too", () => {
  const port = httpPort();
  for (const probe of [container.readinessProbe, container.livenessProbe]) {
    strictEqual(typeof probe.httpGet.port, "string", "the probe names its port");
    strictEqual(containerPortOf(probe.httpGet.port), port, `port ${probe.httpGet.port}`);
  }
  strictEqual(service.spec.ports.length, 1);
  const { targetPort } = service.spec.ports[0];
  strictEqual(typeof targetPort, "string", "the Service's targetPort names a port");
  strictEqual(containerPortOf(targetPort), port, `targetPort ${targetPort}`);
});

Deno.test("deploy/kubernetes.yaml: --metrics listens on the containerPort named metrics, which the pod's scrape annotations name, and the Service leaves out", () => {
  const address = valueOfOption(container.args, "--metrics");
  match(address, /^0\.0\.0\.0:\d+$/);
  const port = Number(address.slice(address.lastIndexOf(":") + 1));
  strictEqual(containerPortOf("metrics"), port);
  notStrictEqual(port, httpPort());
  const annotations = deployment.spec.template.metadata.annotations ?? {};
  strictEqual(annotations["prometheus.io/scrape"], "true");
  strictEqual(annotations["prometheus.io/port"], String(port));
  strictEqual(annotations["prometheus.io/path"], "/metrics");
  ok(!service.spec.ports.some((each) => each.targetPort === "metrics" || each.targetPort === port));
});

Deno.test("deploy/kubernetes.yaml: the Service selects the Deployment's pods", () => {
  deepStrictEqual(deployment.spec.selector.matchLabels, deployment.spec.template.metadata.labels);
  for (const [label, value] of Object.entries(service.spec.selector)) {
    strictEqual(deployment.spec.template.metadata.labels[label], value, label);
  }
});

Deno.test("deploy/kubernetes.yaml: TOOLSHED_HTTP_TOKEN comes from the Secret the first comment creates", () => {
  const token = container.env.find((variable) => variable.name === "TOOLSHED_HTTP_TOKEN");
  const secret = token?.valueFrom?.secretKeyRef;
  ok(secret, "TOOLSHED_HTTP_TOKEN from a secretKeyRef");
  ok(
    MANIFEST_TEXT.includes(
      `kubectl create secret generic ${secret.name} --from-literal=${secret.key}=`,
    ),
    `the comment creates Secret ${secret.name} with key ${secret.key}`,
  );
});

Deno.test("deploy/kubernetes.yaml: terminationGracePeriodSeconds outlasts the preStop sleep and the drain, and a rollout keeps every replica (maxUnavailable 0)", () => {
  const preStop = container.lifecycle?.preStop;
  // The built-in action: the image the manifest recommends (distroless) has no `sleep` binary.
  ok(preStop?.sleep, "preStop is the built-in sleep action");
  strictEqual(preStop.exec, undefined, "no exec preStop");
  const sleepSeconds = preStop.sleep.seconds;
  ok(Number.isInteger(sleepSeconds) && sleepSeconds > 0, `preStop sleeps ${sleepSeconds} s`);
  const graceMs = Number(valueOfOption(container.args, "--shutdown-grace"));
  ok(Number.isInteger(graceMs) && graceMs > 0, `--shutdown-grace ${graceMs}`);
  // After SIGTERM, main.ts gives requests in flight the grace, then (lib/transports/http/server.ts)
  // gives answers still being written the grace again, then flushes stderr: a margin of 1 s
  // on top of that also covers preStop + --shutdown-grace + 1 s.
  const drainSeconds = (2 * graceMs) / 1000 + FLUSH_STDERR_SECONDS;
  const needed = sleepSeconds + drainSeconds + 1;
  const period = pod.terminationGracePeriodSeconds;
  ok(
    period !== undefined && period >= needed,
    `terminationGracePeriodSeconds ${period} < preStop ${sleepSeconds} s + drain ${drainSeconds} s + 1 s`,
  );
  strictEqual(deployment.spec.strategy?.type, "RollingUpdate");
  strictEqual(deployment.spec.strategy?.rollingUpdate?.maxUnavailable, 0);
});

// ---------------------------------------------------------------------------------------
// main.ts with the container's args.

const MODERN = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** The headers a 2026-07-28 client sends with `method` (and `Mcp-Name` when given), and the token. */
function modernHeaders(method: string, name?: string): Record<string, string> {
  return { ...clientHeaders(method, name), authorization: `Bearer ${TOKEN}` };
}

/** A probe as the kubelet sends it: Host is the pod's IP and port, no Authorization. */
function probe(port: number, path: string) {
  return withHangGuard(
    rawRequest(port, "GET", path, {
      host: `10.244.1.7:${httpPort()}`,
      "user-agent": "kube-probe/1.30",
      accept: "*/*",
    }),
    `GET ${path}`,
  );
}

Deno.test("deploy/kubernetes.yaml: main.ts accepts the container's args, answers the probes, the allowed hosts, and drains on SIGTERM as the probes expect", async (t) => {
  // --http 0.0.0.0:8080 becomes 127.0.0.1:0 (spawnHttpServer passes it: never 0.0.0.0 in a
  // test), and --redis $(REDIS_URL) goes (there is no Redis here: each replica's tasks and
  // key ring stay in its memory); the tools come from --dir instead of the image.
  // --metrics 0.0.0.0:9464 becomes a free loopback port too.
  const args = [
    ...without(without(without(expandedArgs(), "--http"), "--redis"), "--metrics"),
    "--metrics",
    "127.0.0.1:0",
    "--dir",
    SERVER_DIR,
  ];
  const readiness = container.readinessProbe.httpGet.path;
  const liveness = container.livenessProbe.httpGet.path;
  // Set in the first step (`as`: so that TypeScript does not take it for always undefined).
  let server = undefined as HttpServerProcess | undefined;
  let stopping: ReturnType<HttpServerProcess["stop"]> | undefined;
  try {
    await t.step(
      "main.ts starts with the container's args and the token from the Secret, its session ids beginning with the pod's name",
      async () => {
        server = await spawnHttpServer(args, { TOOLSHED_HTTP_TOKEN: TOKEN });
        // --instance $(POD_NAME): a 2025-era session's id begins with the pod's name.
        const response = await fetch(server.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            authorization: `Bearer ${TOKEN}`,
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 0,
            method: "initialize",
            params: {
              protocolVersion: "2025-11-25",
              capabilities: {},
              clientInfo: { name: "raw", version: "1" },
            },
          }),
        });
        await response.body?.cancel();
        strictEqual(response.status, 200);
        ok(
          response.headers.get("mcp-session-id")?.startsWith(`${POD_NAME}.`),
          `session id ${response.headers.get("mcp-session-id")}`,
        );
      },
    );
    if (server === undefined) return;
    const port = Number(new URL(server.url).port);

    await t.step(
      `the readinessProbe (${readiness}) and livenessProbe (${liveness}) paths answer 200 without the token`,
      async () => {
        strictEqual((await probe(port, readiness)).status, 200, readiness);
        strictEqual((await probe(port, liveness)).status, 200, liveness);
      },
    );

    await t.step(
      "the metrics listener answers GET /metrics with toolshed's exposition",
      async () => {
        const said = server!.stderr().find((line) => line.includes("metrics on "));
        ok(said, server!.stderr().join("\n"));
        const url = said.slice(said.indexOf("metrics on ") + "metrics on ".length);
        const response = await fetch(url);
        strictEqual(response.status, 200);
        match(await response.text(), /^toolshed_build_info\{/m);
      },
    );

    await t.step(
      "a tools/list with an --allow-host name as Host is served; Host evil.example is refused with 403",
      async () => {
        const hosts = valuesOf(container.args, "--allow-host");
        ok(hosts.length > 0, "--allow-host names");
        const body = JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/list",
          params: { _meta: META },
        });
        // Through the Service, on port 80, Host is the bare name.
        for (const host of hosts) {
          const answer = await withHangGuard(
            rawRequest(port, "POST", "/mcp", { ...modernHeaders("tools/list"), host }, body),
            `tools/list with Host ${host}`,
          );
          strictEqual(answer.status, 200, `Host ${host}: ${answer.body}`);
          const tools = JSON.parse(answer.body).result.tools as { name: string }[];
          ok(tools.some((tool) => tool.name === "report"), host);
        }
        const evil = await withHangGuard(
          rawRequest(
            port,
            "POST",
            "/mcp",
            { ...modernHeaders("tools/list"), host: "evil.example" },
            body,
          ),
          "tools/list with Host evil.example",
        );
        strictEqual(evil.status, 403, evil.body);
      },
    );

    await t.step(
      `after SIGTERM, ${readiness} answers 503 and ${liveness} 200 while a call in flight finishes; main.ts exits 0`,
      async () => {
        // A call that reports progress 12 times, 250 ms apart: in flight while the probes are read.
        const steps = 12;
        const response = await fetch(server!.url, {
          method: "POST",
          headers: modernHeaders("tools/call", "report"),
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 2,
            method: "tools/call",
            params: {
              name: "report",
              arguments: { steps, pauseMs: 250 },
              _meta: { ...META, progressToken: "drain" },
            },
          }),
        });
        strictEqual(response.status, 200);
        strictEqual(response.headers.get("content-type"), "text/event-stream");
        const stream = events(response.body!);
        const first = await withHangGuard(stream.next(), "the first progress report");
        deepStrictEqual((first.value as { method: string }).method, "notifications/progress");
        stopping = server!.stop(); // SIGTERM, at once
        let ready = await probe(port, readiness);
        for (let tries = 0; tries < 300 && ready.status === 200; tries++) {
          await new Promise((resolve) => setTimeout(resolve, 10));
          ready = await probe(port, readiness);
        }
        deepStrictEqual(
          [ready.status, ready.body.startsWith("draining")],
          [503, true],
          `${readiness}: ${ready.body}`,
        );
        strictEqual((await probe(port, liveness)).status, 200, `${liveness} while draining`);
        let last: unknown;
        for await (const event of stream) last = event;
        deepStrictEqual(
          (last as { id: number; result: { content: unknown } }).result.content,
          [{ type: "text", text: `Reported ${steps} step(s)` }],
        );
        const { code, stderr } = await stopping;
        strictEqual(code, 0, stderr.join("\n"));
        ok(
          stderr.some((line) => line.endsWith("Shutting down: received SIGTERM")),
          stderr.join("\n"),
        );
      },
    );
  } finally {
    if (server !== undefined) await (stopping ?? server.stop());
  }
});

Deno.test("deploy/kubernetes.yaml: the container runs as the image's own non-root user, on a read-only root, with no capability", () => {
  const security = container.securityContext;
  deepStrictEqual(
    {
      runAsNonRoot: security?.runAsNonRoot,
      runAsUser: security?.runAsUser,
      runAsGroup: security?.runAsGroup,
      readOnlyRootFilesystem: security?.readOnlyRootFilesystem,
      allowPrivilegeEscalation: security?.allowPrivilegeEscalation,
      drop: security?.capabilities?.drop,
    },
    {
      runAsNonRoot: true,
      runAsUser: USER.id,
      runAsGroup: USER.id,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      drop: ["ALL"],
    },
  );
});
