// examples/http-behind-proxy: what its README promises, with the real nginx on loopback in front
// of a real `main.ts --http` holding a bearer token and an --allow-host name. It type-checks;
// through nginx a call with the token is answered and one without gets 401; the allowed name
// passes toolshed's Host check and another gets 403; a long call's progress arrives while the
// call runs; readiness answers through it. (That progress check passes with nginx 1.22's
// buffering on as well: toolshed's X-Accel-Buffering: no turns it off per stream, and even
// without that header nginx 1.22 passed the event on here; `proxy_buffering off` in the example
// is the guide's belt and braces, not something this test can tell apart.) The ports of
// nginx.conf (8080, 8081) are replaced with free ones, as tests/scale.ts does for deploy/.
// Where nginx is not installed the test is ignored with a line saying so, except under CI.
import assert from "node:assert/strict";
import { modernHeaders, rawRequest } from "../_http_server.ts";
import { events, spawnHttpServer, withHangGuard } from "../_server_process.ts";
import { exampleDir, freePort, modernMeta, waitForPort, which } from "./_example.ts";

const DIR = exampleDir("http-behind-proxy");
const NGINX = await which("nginx");
const RUN = NGINX !== undefined || Deno.env.get("CI") !== undefined;
if (!RUN) {
  Deno.stderr.writeSync(new TextEncoder().encode(
    "tests: nginx is not installed, so examples/http-behind-proxy is not run behind it " +
      "(apt-get install nginx runs it)\n",
  ));
}
const TOKEN = "an-example-token-of-this-test";

/** A 2026-07-28 tools/call body. */
function callBody(name: string, args: Record<string, unknown>, progressToken?: string) {
  const meta = { ...modernMeta(), ...(progressToken === undefined ? {} : { progressToken }) };
  return JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name, arguments: args, _meta: meta },
  });
}

Deno.test({
  name: "examples/http-behind-proxy: nginx passes the token, the Host name and event streams on",
  ignore: !RUN,
  async fn() {
    assert.ok(NGINX, "nginx is not installed (apt-get install nginx)");
    const temp = await Deno.makeTempDir({ prefix: "toolshed_proxy_" });
    const server = await spawnHttpServer(["--dir", DIR, "--allow-host", "mcp.example.com"], {
      TOOLSHED_HTTP_TOKEN: TOKEN,
    });
    let nginx: Deno.ChildProcess | undefined;
    try {
      const toolshedPort = new URL(server.url).port;
      const port = freePort();
      const conf = (await Deno.readTextFile(`${DIR}nginx.conf`))
        .replaceAll("127.0.0.1:8080", `127.0.0.1:${port}`)
        .replaceAll("127.0.0.1:8081", `127.0.0.1:${toolshedPort}`);
      await Deno.writeTextFile(`${temp}/nginx.conf`, conf);
      nginx = new Deno.Command(NGINX, {
        args: [
          "-p",
          temp,
          "-c",
          `${temp}/nginx.conf`,
          "-e",
          "stderr",
          "-g",
          `daemon off; pid ${temp}/nginx.pid;`,
        ],
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).spawn();
      await waitForPort(port, "nginx");
      const url = `http://127.0.0.1:${port}/mcp`;
      const authorized = {
        ...modernHeaders("tools/call", "echo"),
        authorization: `Bearer ${TOKEN}`,
      };

      const answered = await fetch(url, {
        method: "POST",
        headers: authorized,
        body: callBody("echo", { text: "through nginx" }),
      });
      assert.equal(answered.status, 200);
      assert.deepEqual((await answered.json()).result.content, [
        { type: "text", text: "through nginx" },
      ]);

      const refused = await fetch(url, {
        method: "POST",
        headers: modernHeaders("tools/call", "echo"),
        body: callBody("echo", { text: "no token" }),
      });
      await refused.body?.cancel();
      assert.equal(refused.status, 401);
      assert.match(refused.headers.get("www-authenticate") ?? "", /^Bearer /);

      const named = await rawRequest(port, "POST", "/mcp", {
        ...authorized,
        host: "mcp.example.com",
      }, callBody("echo", { text: "by name" }));
      assert.equal(named.status, 200, named.body);
      const other = await rawRequest(port, "POST", "/mcp", {
        ...authorized,
        host: "evil.example.com",
      }, callBody("echo", { text: "rebinding" }));
      assert.equal(other.status, 403, other.body);

      // The first progress report of a call that runs for 30 s arrives while it runs.
      const stream = await fetch(url, {
        method: "POST",
        headers: { ...authorized, "mcp-name": "countdown" },
        body: callBody("countdown", { seconds: 30 }, "countdown-1"),
      });
      assert.equal(stream.headers.get("content-type"), "text/event-stream");
      const received = events(stream.body!);
      const first = await withHangGuard(received.next(), "the first progress event through nginx");
      assert.deepEqual(first.value, {
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "countdown-1", progress: 0, total: 30, message: "30 s left" },
      });
      await received.return(undefined);

      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      assert.equal(ready.status, 200);
      assert.match(await ready.text(), /^ready /);
    } finally {
      try {
        nginx?.kill("SIGQUIT");
      } catch { /* it has exited already */ }
      await nginx?.status;
      await server.stop();
      await Deno.remove(temp, { recursive: true });
    }
  },
});
