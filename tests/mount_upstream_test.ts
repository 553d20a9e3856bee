// lib/mounts/upstream.ts against real upstreams on loopback: the reference server
// @modelcontextprotocol/server-everything (2025 era) over stdio and Streamable HTTP, toolshed
// itself (2026-07-28) over stdio and HTTP, and a small script that answers the handshake and
// then stalls (tests/fixtures/mount_upstream/stalled_peer.ts).
import assert from "node:assert/strict";
import { createUpstream, type Upstream, UpstreamError } from "../lib/mounts/upstream.ts";
import { checkDefinition } from "../lib/primitives/tools.ts";
import { recorder } from "./_diagnostics.ts";
import { serveForTest } from "./_http_server.ts";
import { cacheEverything, EVERYTHING, everythingOverHttp } from "./_mounts.ts";

const FIXTURES = new URL("./fixtures/mount_upstream/", import.meta.url).pathname;
const MAIN = new URL("../main.ts", import.meta.url).pathname;
/** Bounds every wait of a test that is not about a signal; no test asserts a duration. */
const GUARD_MS = 60_000;

/** What a child deno needs besides BASE_ENV: where its cache is, when set. */
function denoEnv(): Record<string, string> {
  const dir = Deno.env.get("DENO_DIR");
  return dir === undefined ? {} : { DENO_DIR: dir };
}

function everythingStdio(diagnostics = recorder()) {
  const upstream = createUpstream({
    kind: "stdio",
    command: Deno.execPath(),
    args: ["run", "-A", EVERYTHING, "stdio"],
    env: denoEnv(),
  }, { diagnostics, name: "tools/everything.mcp.json" });
  return { upstream, diagnostics };
}

function stalled(diagnostics = recorder()) {
  const upstream = createUpstream({
    kind: "stdio",
    command: Deno.execPath(),
    args: ["run", "-A", `${FIXTURES}stalled_peer.ts`],
    env: denoEnv(),
  }, { diagnostics, name: "stalled", killGraceMs: 200 });
  return { upstream, diagnostics };
}

function toolshedStdio(diagnostics = recorder()) {
  const upstream = createUpstream({
    kind: "stdio",
    command: Deno.execPath(),
    args: ["run", "-A", MAIN, "--tools", `${FIXTURES}tools`],
    env: denoEnv(),
  }, { diagnostics, name: "toolshed" });
  return { upstream, diagnostics };
}

const within = (ms = GUARD_MS) => AbortSignal.timeout(ms);

/** Polls `condition` every 50 ms, at most 400 times; fails naming `what` after. */
async function eventually(condition: () => boolean | Promise<boolean>, what: string) {
  for (let i = 0; i < 400; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`Never: ${what}`);
}

function alive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return !/^\d+ \(.*\) Z /.test(stat); // a zombie is dead
  } catch {
    return false;
  }
}

function textOf(result: Record<string, unknown>): string {
  const content = result.content as { type: string; text?: string }[];
  return content.map((block) => block.text ?? "").join("\n");
}

async function closing(upstream: Upstream, run: () => Promise<void>) {
  try {
    await run();
  } finally {
    await upstream.close();
  }
}

Deno.test("createUpstream() speaks a 2025 session to server-everything over stdio", async (t) => {
  await cacheEverything();
  const { upstream, diagnostics } = everythingStdio();
  await closing(upstream, async () => {
    assert.deepEqual(upstream.status().state, "idle"); // lazy: nothing started yet
    await t.step("connect() learns the era and the newest version both speak", async () => {
      const server = await upstream.connect(within());
      assert.deepEqual(server.era, "session");
      assert.deepEqual(server.protocolVersion, "2025-11-25");
      assert.deepEqual(server.serverInfo?.name, "mcp-servers/everything");
      assert.deepEqual(upstream.status().state, "up");
    });
    await t.step("tools/list and tools/call", async () => {
      const list = await upstream.request("tools/list", {}, { signal: within() });
      const names = (list.tools as { name: string }[]).map((tool) => tool.name);
      assert.ok(names.includes("echo"), names.join(", "));
      const echoed = await upstream.request("tools/call", {
        name: "echo",
        arguments: { message: "over the hop" },
      }, { signal: within() });
      includes(textOf(echoed), "over the hop");
    });
    await t.step("progress comes back to the call's hook", async () => {
      const seen: [number, number | undefined][] = [];
      await upstream.request("tools/call", {
        name: "trigger-long-running-operation",
        arguments: { duration: 0.3, steps: 3 },
      }, { signal: within(), progress: (progress, total) => seen.push([progress, total]) });
      assert.deepEqual(seen, [[1, 3], [2, 3], [3, 3]]);
    });
    await t.step("an elicitation the upstream asks goes to the call's request hook", async () => {
      const asked: string[] = [];
      const result = await upstream.request("tools/call", {
        name: "trigger-elicitation-request",
        arguments: {},
      }, {
        signal: within(),
        request: (method) => {
          asked.push(method);
          return Promise.resolve({ action: "decline" });
        },
      });
      assert.deepEqual(asked, ["elicitation/create"]);
      includes(textOf(result), "declined");
    });
    await t.step("a sampling request goes to the hook, and its answer back", async () => {
      const result = await upstream.request("tools/call", {
        name: "trigger-sampling-request",
        arguments: { prompt: "say hi", maxTokens: 5 },
      }, {
        signal: within(),
        request: (method) => {
          assert.deepEqual(method, "sampling/createMessage");
          return Promise.resolve({
            role: "assistant",
            content: { type: "text", text: "hi from the front" },
            model: "test",
          });
        },
      });
      includes(textOf(result), "hi from the front");
    });
  });
  includes(diagnostics.text(), "[tools/everything.mcp.json] "); // its stderr, prefixed
});

Deno.test("createUpstream() speaks a 2025 session to server-everything over Streamable HTTP", async (t) => {
  const everything = await everythingOverHttp();
  const diagnostics = recorder();
  const upstream = createUpstream({
    kind: "http",
    url: everything.url,
    headers: () => ({ "x-test": "1" }),
  }, { diagnostics, name: "everything-http" });
  try {
    await t.step("connect() opens a session", async () => {
      const server = await upstream.connect(within());
      assert.deepEqual(server.era, "session");
      assert.deepEqual(server.protocolVersion, "2025-11-25");
    });
    await t.step("tools/call with progress over the call's event stream", async () => {
      const seen: number[] = [];
      const result = await upstream.request("tools/call", {
        name: "trigger-long-running-operation",
        arguments: { duration: 0.2, steps: 2 },
      }, { signal: within(), progress: (progress) => seen.push(progress) });
      assert.deepEqual(seen, [1, 2]);
      includes(textOf(result), "completed");
    });
    await t.step("an elicitation on the call's stream goes to that call's hook", async () => {
      const asked: string[] = [];
      const slow = upstream.request("tools/call", {
        name: "trigger-long-running-operation",
        arguments: { duration: 0.5, steps: 1 },
      }, {
        signal: within(),
        request: (method) => {
          asked.push(`slow ${method}`);
          return Promise.reject(new Error("not this call's"));
        },
      });
      const result = await upstream.request("tools/call", {
        name: "trigger-elicitation-request",
        arguments: {},
      }, {
        signal: within(),
        request: (method) => {
          asked.push(`elicitation ${method}`);
          return Promise.resolve({ action: "decline" });
        },
      });
      includes(textOf(result), "declined");
      await slow;
      // Two calls had hooks: the stream said whose it was.
      assert.ok(asked.includes("elicitation elicitation/create"), asked.join(", "));
      assert.ok(!asked.includes("slow elicitation/create"), asked.join(", "));
    });
    await t.step("a cancelled call rejects at once", async () => {
      const controller = new AbortController();
      const call = upstream.request("tools/call", {
        name: "trigger-long-running-operation",
        arguments: { duration: 30, steps: 30 },
      }, { signal: controller.signal, progress: () => controller.abort() });
      const error = await rejection(call);
      assert.deepEqual(error.kind, "cancelled");
    });
  } finally {
    await upstream.close();
    await everything.stop();
  }
});

Deno.test("createUpstream() speaks 2026-07-28 to toolshed over stdio", async (t) => {
  const { upstream, diagnostics } = toolshedStdio();
  await closing(upstream, async () => {
    await t.step("connect() finds the stateless era by server/discover", async () => {
      const server = await upstream.connect(within());
      assert.deepEqual(server.era, "stateless");
      assert.deepEqual(server.protocolVersion, "2026-07-28");
      assert.deepEqual(server.serverInfo?.name, "toolshed");
    });
    await t.step("tools/list and tools/call carry the per-request _meta", async () => {
      const list = await upstream.request("tools/list", {}, { signal: within() });
      assert.deepEqual(list.resultType, "complete");
      const names = (list.tools as { name: string }[]).map((tool) => tool.name).sort();
      assert.deepEqual(names, ["echo", "wait_for_cancel"]);
      const echoed = await upstream.request("tools/call", {
        name: "echo",
        arguments: { text: "stateless" },
      }, { signal: within() });
      assert.deepEqual(textOf(echoed), "stateless");
    });
    await t.step("cancelling sends notifications/cancelled, which reaches the tool", async () => {
      const controller = new AbortController();
      const progressed: string[] = [];
      const call = upstream.request("tools/call", {
        name: "wait_for_cancel",
        arguments: { mark: "stdio-2026" },
      }, {
        signal: controller.signal,
        progress: (_progress, _total, message) => {
          progressed.push(message ?? "");
          controller.abort();
        },
      });
      const error = await rejection(call);
      assert.deepEqual(error.kind, "cancelled");
      assert.deepEqual(progressed, ["waiting"]);
      await eventually(
        () => diagnostics.text().includes("cancelled stdio-2026"),
        "the tool saw the cancel",
      );
    });
  });
});

Deno.test("createUpstream() speaks 2026-07-28 to toolshed over HTTP", async (t) => {
  const cancelled: string[] = [];
  const tools = [
    checkDefinition(
      {
        description: "Says what it was given",
        inputSchema: { type: "object", properties: { text: { type: "string" } } },
        handler: ({ text }: { text: string }) => text,
      },
      "echo",
      "tools/echo.ts",
    ),
    checkDefinition(
      {
        description: "Waits until cancelled",
        inputSchema: { type: "object" },
        handler: (_args: unknown, ctx: { signal: AbortSignal; progress(n: number): void }) =>
          new Promise((_, reject) => {
            ctx.progress(1);
            ctx.signal.addEventListener("abort", () => {
              cancelled.push("wait");
              reject(ctx.signal.reason);
            });
          }),
      },
      "wait",
      "tools/wait.ts",
    ),
  ];
  const served = await serveForTest(tools);
  const upstream = createUpstream(
    { kind: "http", url: served.url, headers: () => ({}) },
    { diagnostics: recorder(), name: "toolshed-http" },
  );
  try {
    await t.step("connect() finds the stateless era", async () => {
      const server = await upstream.connect(within());
      assert.deepEqual(server.era, "stateless");
      assert.deepEqual(server.protocolVersion, "2026-07-28");
    });
    await t.step("tools/call with Mcp-Name and the claim in headers", async () => {
      const echoed = await upstream.request("tools/call", {
        name: "echo",
        arguments: { text: "héllo" },
      }, { signal: within() });
      assert.deepEqual(textOf(echoed), "héllo");
    });
    await t.step("cancelling closes the POST, which the tool sees", async () => {
      const controller = new AbortController();
      const call = upstream.request("tools/call", { name: "wait", arguments: {} }, {
        signal: controller.signal,
        progress: () => controller.abort(),
      });
      const error = await rejection(call);
      assert.deepEqual(error.kind, "cancelled");
      await eventually(() => cancelled.length === 1, "the tool saw the cancel");
    });
    await t.step("an upstream JSON-RPC error is an rpc UpstreamError with its code", async () => {
      const error = await rejection(upstream.request("nothing/here", {}, { signal: within() }));
      assert.deepEqual(error.kind, "rpc");
      assert.deepEqual(error.code, -32601);
    });
  } finally {
    await upstream.close();
    await served.close();
  }
});

Deno.test("createUpstream() bounds a stalled upstream by the call's signal and tells it", async () => {
  const { upstream, diagnostics } = stalled();
  await closing(upstream, async () => {
    const server = await upstream.connect(within());
    assert.deepEqual(server.era, "session");
    assert.deepEqual(server.protocolVersion, "2025-06-18"); // the upstream's, which toolshed speaks
    const error = await rejection(
      upstream.request("tools/call", { name: "x" }, { signal: AbortSignal.timeout(300) }),
    );
    assert.deepEqual(error.kind, "cancelled");
    await eventually(
      () => /got .*"notifications\/cancelled".*"requestId":3/.test(diagnostics.text()),
      "notifications/cancelled reached the upstream",
    );
  });
});

Deno.test("createUpstream() reports bad upstream input once and keeps going", async () => {
  const { upstream, diagnostics } = stalled();
  await closing(upstream, async () => {
    // Connected first: under load the handshake alone may outlast a call's 300 ms, and a call
    // given up before it is written brings no garbage back to report.
    await upstream.connect(within());
    for (let i = 0; i < 2; i++) {
      await rejection(
        upstream.request("tools/call", { name: "garbage" }, { signal: AbortSignal.timeout(300) }),
      );
    }
    for (let i = 0; i < 2; i++) {
      const after = await upstream.request("tools/call", { name: "huge" }, { signal: within() });
      assert.equal(after.after, "huge"); // the line after the huge one was read
    }
    const text = diagnostics.text();
    assert.deepEqual(text.split("longer than 16777216 bytes").length - 1, 1, text);
    assert.deepEqual(text.split("not JSON-RPC").length - 1, 1, text);
    assert.deepEqual(text.split("did not send or no longer waits for").length - 1, 1, text);
    assert.deepEqual(upstream.status().state, "up");
  });
});

Deno.test("createUpstream() ties a 2025 stdio server request to the one call that can answer", async () => {
  const { upstream, diagnostics } = stalled();
  await closing(upstream, async () => {
    const one = upstream.request("tools/call", { name: "ask" }, {
      signal: AbortSignal.timeout(2_000),
      request: (method) => Promise.resolve({ action: "accept", content: { who: method } }),
    }).catch(() => {});
    await eventually(
      () => diagnostics.text().includes('"id":"ask-1","result":{"action":"accept"'),
      "the hook's answer reached the upstream",
    );
    await one;
    const hooks = { request: () => Promise.resolve({ action: "accept" }) };
    const first = upstream.request("tools/call", { name: "x" }, {
      signal: AbortSignal.timeout(2_000),
      ...hooks,
    }).catch(() => {});
    const second = upstream.request("tools/call", { name: "ask" }, {
      signal: AbortSignal.timeout(2_000),
      ...hooks,
    }).catch(() => {});
    await eventually(
      () =>
        /"id":"ask-1","error":\{"code":-32603,"message":"toolshed cannot answer.*cannot be tied to one call/
          .test(
            diagnostics.text(),
          ),
      "the upstream was told the request cannot be tied to one call",
    );
    await Promise.all([first, second]);
  });
});

Deno.test("createUpstream() fails a call when the child dies, then restarts it", async () => {
  const { upstream, diagnostics } = stalled();
  await closing(upstream, async () => {
    await upstream.connect(within());
    const [leader] = pidsOf(diagnostics.text());
    const call = upstream.request("tools/call", { name: "x" }, { signal: within() });
    Deno.kill(leader, "SIGKILL");
    const error = await rejection(call);
    assert.deepEqual(error.kind, "transport");
    // The child is killed while the request may still be on its way: the call fails at the
    // write (the pipe broken) or while it waits (the exit named); either is a transport failure.
    assert.match(error.message, /killed by SIGKILL|Broken pipe/);
    await eventually(() => upstream.status().state === "down", "the upstream said down");
    // During the backoff a call fails at once saying when the next try is; after it, one works.
    let server;
    for (let i = 0; i < 400 && server === undefined; i++) {
      try {
        server = await upstream.connect(within());
      } catch (error) {
        assert.ok(error instanceof UpstreamError && error.kind === "down", String(error));
        assert.match((error as UpstreamError).message, /the next try is at/);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    assert.deepEqual(server?.era, "session");
    assert.ok(!alive(leader));
  });
});

Deno.test("createUpstream() waits longer after each failed start, and says until when", async () => {
  const diagnostics = recorder();
  const upstream = createUpstream({
    kind: "stdio",
    command: Deno.execPath(),
    args: ["eval", "Deno.exit(3)"],
    env: denoEnv(),
  }, { diagnostics, name: "quits" });
  await closing(upstream, async () => {
    const first = await rejection(upstream.connect(within()));
    assert.equal(first.kind, "down");
    assert.match(first.message, /exited with code 3/);
    // Each failure doubles the wait, so a call soon meets it: failed at once, naming the time.
    let refused: UpstreamError | undefined;
    for (let i = 0; i < 12 && refused === undefined; i++) {
      const error = await rejection(upstream.connect(within()));
      if (/the next try is at/.test(error.message)) refused = error;
    }
    assert.ok(refused !== undefined, diagnostics.text());
    assert.equal(refused.kind, "down");
    assert.match(refused.message, /exited with code 3.*the next try is at \d{4}-\d\d-\d\dT/);
    assert.equal(upstream.status().state, "down");
  });
});

Deno.test("Upstream.close() leaves no process of the child's group", async () => {
  const { upstream, diagnostics } = stalled();
  await upstream.connect(within());
  const [leader, sleeper] = pidsOf(diagnostics.text());
  assert.ok(alive(leader) && alive(sleeper));
  const pending = rejection(upstream.request("tools/call", { name: "x" }, { signal: within() }));
  await upstream.close();
  const error = await pending;
  assert.deepEqual(error.kind, "down");
  await eventually(() => !alive(leader) && !alive(sleeper), "the group is gone");
  const after = await rejection(
    upstream.request("tools/list", {}, { signal: within() }),
  );
  assert.deepEqual(after.kind, "down");
});

function pidsOf(text: string): number[] {
  const match = /pids (\d+) (\d+)/.exec(text);
  if (match === null) throw new Error(`No pids in: ${text}`);
  return [Number(match[1]), Number(match[2])];
}

/** The UpstreamError `promise` rejects with; fails when it resolves or rejects otherwise. */
async function rejection(promise: Promise<unknown>): Promise<UpstreamError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof UpstreamError, String(error));
    return error;
  }
  throw new Error("The call resolved; it should have failed");
}

function includes(text: string, part: string) {
  assert.ok(text.includes(part), `"${part}" not in: ${text}`);
}
