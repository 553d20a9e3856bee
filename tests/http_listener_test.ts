// The pieces of bounded HTTP (adr/0021) on their own: Deno's per-connection server is there,
// the fallback serves without it, the connection cap follows the open-file limit, and the
// ledger of unsent answers drops the stalest first and never the newest.
import { deepStrictEqual, match, ok, strictEqual } from "node:assert/strict";
import {
  connectionCap,
  denoServeConnection,
  listen,
  openFileLimit,
} from "../lib/transports/http/listener.ts";
import { MAX_CONNECTIONS } from "../lib/settings/values.ts";
import { createUnsentLedger } from "../lib/transports/http/unsent.ts";
import { createBodyBudget } from "../lib/transports/http/body.ts";
import { recorder } from "./_diagnostics.ts";

Deno.test("denoServeConnection() finds Deno's per-connection server on the pinned Deno", () => {
  // If a Deno upgrade removes it, connections go unbounded: this fails first.
  strictEqual(typeof denoServeConnection(), "function");
});

Deno.test("listen() without Deno's per-connection server serves through Deno.serve and says the bounds are off", async () => {
  const diagnostics = recorder();
  const server = listen({
    hostname: "127.0.0.1",
    port: 0,
    handler: () => new Response("served"),
    onError: () => new Response("failed", { status: 500 }),
    maxConnections: 1,
    idleTimeoutMs: 1_000,
    bodyTimeoutMs: 1_000,
    diagnostics,
    serveConnection: null,
  });
  try {
    const response = await fetch(`http://127.0.0.1:${server.addr.port}/`);
    strictEqual(await response.text(), "served");
    ok(diagnostics.text().includes("are not enforced"), diagnostics.text());
  } finally {
    await server.shutdown();
  }
});

Deno.test("listen() serves a request and counts the connection it keeps alive", async () => {
  const server = listen({
    hostname: "127.0.0.1",
    port: 0,
    handler: () => new Response("served"),
    onError: () => new Response("failed", { status: 500 }),
    maxConnections: 4,
    idleTimeoutMs: 60_000,
    bodyTimeoutMs: 60_000,
    diagnostics: recorder(),
  });
  try {
    const response = await fetch(`http://127.0.0.1:${server.addr.port}/`);
    strictEqual(await response.text(), "served");
    strictEqual(server.counts().open, 1); // fetch keeps the connection alive
  } finally {
    server.close();
    await server.finished;
  }
});

Deno.test("listen() with a name refuses past its cap with a 503 that names that listener, not --max-connections", async () => {
  const diagnostics = recorder();
  const server = listen({
    hostname: "127.0.0.1",
    port: 0,
    name: "the metrics listener",
    handler: () => new Response("served"),
    onError: () => new Response("failed", { status: 500 }),
    maxConnections: 1,
    idleTimeoutMs: 60_000,
    bodyTimeoutMs: 60_000,
    diagnostics,
  });
  const first = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
  const second = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
  try {
    const buffer = new Uint8Array(1024);
    const read = await second.read(buffer);
    match(new TextDecoder().decode(buffer.subarray(0, read ?? 0)), /^HTTP\/1\.1 503 /);
    strictEqual(
      diagnostics.text().trim(),
      "toolshed: Refused a connection for the metrics listener: 1 are open, the most the " +
        "metrics listener allows (1)",
    );
  } finally {
    first.close();
    second.close();
    server.close();
    await server.finished;
  }
});

Deno.test("connectionCap() keeps half the open-file limit for everything else", () => {
  strictEqual(connectionCap(MAX_CONNECTIONS, 1024), 512);
  strictEqual(connectionCap(MAX_CONNECTIONS, 1_048_576), MAX_CONNECTIONS);
  strictEqual(connectionCap(5_000, 1_048_576), 5_000);
  strictEqual(connectionCap(900, 1024), 512);
  strictEqual(connectionCap(MAX_CONNECTIONS, undefined), MAX_CONNECTIONS);
  const limit = openFileLimit();
  if (Deno.build.os === "linux") ok(limit !== undefined && limit > 0, `limit ${limit}`);
});

Deno.test("createUnsentLedger() drops the answers whose readers took something longest ago, never the newest", () => {
  const ledger = createUnsentLedger(100);
  const dropped: string[] = [];
  const a = ledger.open(() => dropped.push("a"));
  const b = ledger.open(() => dropped.push("b"));
  a.add(40);
  b.add(40);
  a.taken(10); // a made progress after b was opened: b is now the stalest
  const c = ledger.open(() => dropped.push("c"));
  c.add(50); // 30 + 40 + 50 > 100
  deepStrictEqual(dropped, ["b"]);
  deepStrictEqual(ledger.counts(), { bytes: 80, evicted: 1 });
  const huge = ledger.open(() => dropped.push("huge"));
  huge.add(500); // alone larger than the bound: the others go, it stays
  deepStrictEqual(dropped, ["b", "a", "c"]);
  deepStrictEqual(ledger.counts(), { bytes: 500, evicted: 3 });
  huge.taken(200);
  huge.close();
  deepStrictEqual(ledger.counts(), { bytes: 0, evicted: 3 });
});

Deno.test("createBodyBudget() counts nothing that does not fit", () => {
  const budget = createBodyBudget(10);
  ok(budget.take(6));
  ok(!budget.take(5));
  strictEqual(budget.held(), 6);
  budget.give(6);
  ok(budget.take(10));
});
