// examples/scale-out: what its README promises that runs in a few seconds, with a real
// redis-server and HAProxy (deploy/haproxy.cfg, its addresses from the environment) in front of
// three real `main.ts --http --redis --instance` processes on loopback. It type-checks; stateless
// calls through HAProxy are spread over the instances; a task made through HAProxy is seen and
// cancelled through any instance; the second round of a call continues on another instance; a
// 2025-era session through HAProxy stays on the instance that opened it. What it leaves to
// `deno task scale` (tests/scale.ts): a killed instance, a rolling restart, a Redis restart,
// nginx in front. Where redis-server or haproxy is missing the test is ignored with a line
// saying so, except under CI.
import assert from "node:assert/strict";
import { modernHeaders } from "../_http_server.ts";
import { RUN_REDIS, startRedis } from "../_redis.ts";
import { type HttpServerProcess, spawnHttpServer, withHangGuard } from "../_server_process.ts";
import { exampleDir, freePort, modernMeta, ROOT, waitForPort, which } from "./_example.ts";

const DIR = exampleDir("scale-out");
const HAPROXY = await which("haproxy");
const RUN = RUN_REDIS && (HAPROXY !== undefined || Deno.env.get("CI") !== undefined);
if (RUN_REDIS && !RUN) {
  Deno.stderr.writeSync(new TextEncoder().encode(
    "tests: haproxy is not installed, so examples/scale-out is not run behind it " +
      "(apt-get install haproxy runs it)\n",
  ));
}
const TASKS = { elicitation: {}, extensions: { "io.modelcontextprotocol/tasks": {} } };

interface Answer {
  status: number;
  servedBy: string | null;
  sessionId: string | null;
  message: Record<string, unknown>;
}

/** POSTs one JSON-RPC message; its answer (JSON, or the last message of an event stream). */
async function post(url: string, headers: Record<string, string>, body: unknown): Promise<Answer> {
  const response = await withHangGuard(
    fetch(url, { method: "POST", headers, body: JSON.stringify(body) }),
    `POST ${url}`,
  );
  const text = await response.text();
  const data = text.split("\n").filter((line) => line.startsWith("data: ")).at(-1);
  return {
    status: response.status,
    servedBy: response.headers.get("x-served-by"),
    sessionId: response.headers.get("mcp-session-id"),
    message: JSON.parse(data === undefined ? text : data.slice("data: ".length)),
  };
}

let nextId = 1;
/** A 2026-07-28 request's result. */
async function modern(url: string, method: string, params: Record<string, unknown>, name?: string) {
  const answer = await post(url, modernHeaders(method, name), {
    jsonrpc: "2.0",
    id: nextId++,
    method,
    params: { ...params, _meta: modernMeta(TASKS) },
  });
  assert.ok(answer.message.result, JSON.stringify(answer.message));
  return { ...answer, result: answer.message.result as Record<string, unknown> };
}

Deno.test({
  name: "examples/scale-out: three instances share tasks and rounds through Redis behind HAProxy",
  ignore: !RUN,
  async fn() {
    assert.ok(HAPROXY, "haproxy is not installed (apt-get install haproxy)");
    const redis = await startRedis();
    const instances: HttpServerProcess[] = [];
    let haproxy: Deno.ChildProcess | undefined;
    try {
      for (const name of ["s1", "s2", "s3"]) {
        instances.push(
          await spawnHttpServer(["--dir", DIR, "--redis", redis.url, "--instance", name]),
        );
      }
      const [s1, s2, s3] = instances;
      const port = freePort();
      const address = (instance: HttpServerProcess) => new URL(instance.url).host;
      haproxy = new Deno.Command(HAPROXY, {
        args: ["-f", `${ROOT}deploy/haproxy.cfg`],
        env: { LISTEN: `127.0.0.1:${port}`, S1: address(s1), S2: address(s2), S3: address(s3) },
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).spawn();
      await waitForPort(port, "haproxy");
      const front = `http://127.0.0.1:${port}/mcp`;

      // Stateless calls are spread over the instances (round robin).
      const servedBy = new Set<string | null>();
      for (let call = 0; call < 9; call++) {
        const { result, servedBy: by } = await modern(front, "tools/call", {
          name: "slow_job",
          arguments: { seconds: 0 },
        }, "slow_job");
        assert.deepEqual(result.content, [{ type: "text", text: "Done after 0 s" }]);
        servedBy.add(by);
      }
      assert.ok(servedBy.size >= 2, `one instance answered every call: ${[...servedBy]}`);

      // A task made through HAProxy is working on every instance, and cancelled through one.
      const created = await modern(front, "tools/call", {
        name: "slow_job",
        arguments: { seconds: 600 },
      }, "slow_job");
      const taskId = created.result.taskId as string;
      assert.equal(created.result.status, "working", JSON.stringify(created.result));
      for (const instance of instances) {
        const { result } = await modern(instance.url, "tasks/get", { taskId }, taskId);
        assert.equal(result.status, "working", JSON.stringify(result));
      }
      await modern(s3.url, "tasks/cancel", { taskId }, taskId);
      for (const instance of instances) {
        const { result } = await modern(instance.url, "tasks/get", { taskId }, taskId);
        assert.equal(result.status, "cancelled", JSON.stringify(result));
      }

      // The second round of a call continues on another instance.
      const first = await modern(
        s1.url,
        "tools/call",
        { name: "ask_name", arguments: {} },
        "ask_name",
      );
      assert.equal(first.result.resultType, "input_required");
      const second = await modern(s2.url, "tools/call", {
        name: "ask_name",
        arguments: {},
        requestState: first.result.requestState,
        inputResponses: { input_1: { action: "accept", content: { name: "Ada" } } },
      }, "ask_name");
      assert.deepEqual(second.result.content, [{ type: "text", text: "Hello, Ada!" }]);

      // A 2025-era session through HAProxy stays on the instance that opened it.
      const legacy = {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      };
      const opened = await post(front, legacy, {
        jsonrpc: "2.0",
        id: nextId++,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "example-test", version: "1" },
        },
      });
      const sessionId = opened.sessionId!;
      assert.match(sessionId, /^s[123]\./);
      const session = { ...legacy, "mcp-session-id": sessionId };
      await post(front, session, { jsonrpc: "2.0", method: "notifications/initialized" })
        .catch(() => undefined);
      for (let call = 0; call < 5; call++) {
        const answer = await post(front, session, {
          jsonrpc: "2.0",
          id: nextId++,
          method: "tools/call",
          params: { name: "slow_job", arguments: { seconds: 0 } },
        });
        assert.equal(answer.status, 200, JSON.stringify(answer.message));
        assert.equal(answer.servedBy, sessionId.split(".")[0]);
      }
    } finally {
      try {
        haproxy?.kill("SIGTERM");
      } catch { /* it has exited already */ }
      await haproxy?.status;
      for (const instance of instances) await instance.stop();
      await redis.stop();
    }
  },
});
