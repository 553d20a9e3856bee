import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { IN_PROCESS } from "../lib/methods/context.ts";
import type { Core } from "../lib/core/handle.ts";
import type { Request } from "../lib/wire/extract.ts";
import { createConnection, MAX_LONG_LIVED } from "../lib/connection/connection.ts";
import { createSlots } from "../lib/util/slots.ts";
import { createSession } from "../lib/methods/session.ts";
import type { JsonObject } from "../lib/util/json.ts";

/**
 * A core whose async requests finish when the test says so; "sync" ones at once; "listen"
 * ones are long-lived and answer when asked to close.
 */
function controllable() {
  const running = new Map<unknown, { finish(): void; controller: AbortController }>();
  let maxRunning = 0;
  const core: Core = {
    handle(ctx) {
      const { request, controller } = ctx;
      const answer = { jsonrpc: "2.0", id: request.id, result: { method: request.method } };
      if (request.method === "sync") return answer;
      return new Promise<JsonObject>((resolve) => {
        const finish = () => {
          running.delete(request.id);
          resolve(answer);
        };
        controller.signal.addEventListener("abort", finish);
        ctx.closing?.addEventListener("abort", finish);
        running.set(request.id, { finish, controller });
        if (request.method !== "listen") maxRunning = Math.max(maxRunning, running.size);
      });
    },
    method: (name) =>
      name === "listen" ? { eras: ["stateless"], longLived: true, handler: () => ({}) } : undefined,
    changeNotices: () => [],
    builtins: () => [],
  };
  return { core, running, maxRunning: () => maxRunning };
}

function request(id: number | string, method = "slow"): Request {
  return { kind: "request", id, method, params: {}, envelope: undefined, progressToken: undefined };
}

function setup(maxConcurrency: number, waitingBoundBytes = 1_000_000) {
  const sent: JsonObject[] = [];
  const peer = controllable();
  const connection = createConnection({
    core: peer.core,
    session: createSession(),
    origin: IN_PROCESS,
    slots: createSlots(maxConcurrency),
    waitingBoundBytes,
    send: (response) => sent.push(response),
  });
  const ids = () => sent.map((response) => response.id);
  return { sent, ids, peer, connection };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("createConnection() runs at most maxConcurrency requests and starts the rest in order", async () => {
  const { ids, peer, connection } = setup(2);
  for (let id = 1; id <= 5; id++) connection.request(request(id), { bytes: 10 });
  deepStrictEqual([...peer.running.keys()], [1, 2]);
  peer.running.get(2)!.finish();
  await tick();
  deepStrictEqual([...peer.running.keys()], [1, 3]);
  while (peer.running.size > 0) {
    for (const { finish } of [...peer.running.values()]) finish();
    await tick();
  }
  await connection.idle();
  deepStrictEqual(ids(), [2, 1, 3, 4, 5]);
  strictEqual(peer.maxRunning(), 2);
});

Deno.test("createConnection() answers synchronous requests at once without tracking them", () => {
  const { ids, connection } = setup(1);
  connection.request(request(1, "sync"), { bytes: 10 });
  connection.request(request(1, "sync"), { bytes: 10 }); // the same id is free again at once
  deepStrictEqual(ids(), [1, 1]);
  strictEqual(connection.busy(), false);
});

Deno.test("createConnection() rejects an id in use by a running or a waiting request", () => {
  const { sent, connection } = setup(1);
  connection.request(request("a"), { bytes: 10 });
  connection.request(request("b"), { bytes: 10 }); // waits
  connection.request(request("a"), { bytes: 10 });
  connection.request(request("b"), { bytes: 10 });
  deepStrictEqual(sent.map((response) => [response.id, (response.error as JsonObject).message]), [
    [null, 'Invalid request: id "a" is already in use by a request in progress'],
    [null, 'Invalid request: id "b" is already in use by a request in progress'],
  ]);
});

Deno.test("createConnection() cancels a waiting request before it starts and a running one by abort", async () => {
  const { ids, peer, connection } = setup(1);
  connection.request(request(1), { bytes: 10 });
  connection.request(request(2), { bytes: 10 });
  connection.request(request(3), { bytes: 10 });
  connection.cancel(2, "not needed");
  connection.cancel(1, "stop");
  await tick();
  deepStrictEqual([...peer.running.keys()], [3]);
  strictEqual(peer.maxRunning(), 1);
  peer.running.get(3)!.finish();
  await connection.idle();
  deepStrictEqual(ids(), [3]);
});

Deno.test("createConnection() holds the reader back while waiting requests pass the byte bound", async () => {
  const { peer, connection } = setup(1, 100);
  connection.request(request(1), { bytes: 60 });
  connection.request(request(2), { bytes: 60 });
  let free = false;
  connection.waitingBelowBound().then(() => free = true);
  await tick();
  strictEqual(free, true, "60 bytes waiting is within the bound of 100");
  connection.request(request(3), { bytes: 60 }); // 120 bytes waiting
  let released = false;
  const waiting = connection.waitingBelowBound().then(() => released = true);
  await tick();
  strictEqual(released, false);
  peer.running.get(1)!.finish(); // 2 starts, 60 bytes wait
  await waiting;
  strictEqual(released, true);
  for (const id of [2, 3]) {
    await tick();
    peer.running.get(id)!.finish();
  }
  await connection.idle();
});

Deno.test("createConnection() answers waiting requests with an error at shutdown and aborts running ones", async () => {
  const { sent, connection } = setup(1);
  connection.request(request(1), { bytes: 10 });
  connection.request(request(2), { bytes: 10 });
  connection.answerWaiting({ code: -32603, message: "Internal error: shutting down" });
  connection.abortRunning("shutting down");
  await connection.idle();
  deepStrictEqual(sent, [
    { jsonrpc: "2.0", id: 2, error: { code: -32603, message: "Internal error: shutting down" } },
    { jsonrpc: "2.0", id: 1, result: { method: "slow" } },
  ]);
});

Deno.test("createConnection() runs long-lived requests beside the cap, and closes them at shutdown", async () => {
  const { ids, peer, connection } = setup(1);
  connection.request(request("l1", "listen"), { bytes: 10 });
  connection.request(request("l2", "listen"), { bytes: 10 });
  connection.request(request(1), { bytes: 10 });
  connection.request(request(2), { bytes: 10 });
  // Two listens and the one slot's request run; the listens hold no slot.
  deepStrictEqual([...peer.running.keys()], ["l1", "l2", 1]);
  strictEqual(connection.busy(), true);
  peer.running.get(1)!.finish();
  await tick();
  peer.running.get(2)!.finish();
  await connection.idle(); // the listens do not hold idle() up
  strictEqual(connection.busy(), false);
  // A cancelled listen gets no answer; the other answers when closed.
  connection.cancel("l1", "done");
  await connection.closeLongLived();
  strictEqual(connection.closeLongLived(), undefined);
  deepStrictEqual(ids(), [1, 2, "l2"]);
});

Deno.test("createConnection() holds at most MAX_LONG_LIVED long-lived requests; one more is refused at once, and a cancelled one frees its place", async () => {
  const { sent, peer, connection } = setup(1);
  for (let id = 0; id < MAX_LONG_LIVED; id++) {
    connection.request(request(`l${id}`, "listen"), { bytes: 10 });
  }
  strictEqual(peer.running.size, MAX_LONG_LIVED);
  connection.request(request("over", "listen"), { bytes: 10 });
  deepStrictEqual(sent, [{
    jsonrpc: "2.0",
    id: "over",
    error: {
      code: -32603,
      message: `Internal error: this connection already holds ${MAX_LONG_LIVED} long-lived ` +
        "requests open",
    },
  }]);
  strictEqual(peer.running.has("over"), false);
  connection.cancel("l0", "done");
  await tick();
  connection.request(request("again", "listen"), { bytes: 10 });
  strictEqual(peer.running.has("again"), true);
  await connection.closeLongLived();
});

/** A stateless engine (no session), as the one all 2026-07-28 POSTs share, of `slots` size. */
function stateless(maxConcurrency: number) {
  const sent: JsonObject[] = [];
  const peer = controllable();
  const connection = createConnection({
    core: peer.core,
    session: undefined,
    origin: IN_PROCESS,
    slots: createSlots(maxConcurrency),
    send: (message) => sent.push(message),
  });
  return { sent, peer, connection };
}

Deno.test("createConnection() without a session keys nothing by id: the same id from two clients runs twice", async () => {
  const { peer, connection } = stateless(4);
  const replies: unknown[] = [];
  connection.request(request(1), { reply: (response) => replies.push(response?.id) });
  connection.request(request(1), { reply: (response) => replies.push(response?.id) });
  strictEqual(peer.running.size, 1, "the peer keys by id; the engine started both");
  strictEqual(connection.size(), 2);
  connection.cancel(1, "no ids to cancel by"); // nothing: there is no session to key by
  strictEqual(connection.size(), 2);
  connection.abortRunning("done");
  await connection.idle();
  deepStrictEqual(replies, [1, 1]);
});

Deno.test("createConnection() gives a request with a reply of its own its answer, cancelled or not, and tells it when the answer comes later", async () => {
  const { sent, peer, connection } = setup(1);
  const events: string[] = [];
  const hooks = (name: string) => ({
    reply: (response: JsonObject | undefined) =>
      events.push(`${name} reply ${response === undefined ? "none" : response.id}`),
    onPending: () => events.push(`${name} pending`),
  });
  connection.request(request(1, "sync"), hooks("sync"));
  connection.request(request(2), hooks("running"));
  connection.request(request(3), hooks("waiting"));
  connection.cancel(3, "not needed"); // cancelled while it waits: it ends without an answer
  connection.cancel(2, "stop"); // cancelled while it runs: its handler answers, and so does it
  await connection.idle();
  await tick();
  deepStrictEqual(events, [
    "sync reply 1",
    "running pending",
    "waiting reply none",
    "running reply 2",
  ]);
  deepStrictEqual(sent, [], "nothing goes to the connection for requests with their own reply");
  strictEqual(peer.running.size, 0);
});

Deno.test("createConnection() sends a request to the client on the stream of the request it is for, and on the connection's once that stream is gone", async () => {
  const sent: JsonObject[] = [];
  const own: JsonObject[] = [];
  let asked: Promise<JsonObject> | undefined;
  const core: Core = {
    handle(ctx) {
      asked = ctx.outlet.outbound!.request("roots/list", {}, ctx.controller.signal);
      return new Promise(() => {});
    },
    method: () => undefined,
    changeNotices: () => [],
    builtins: () => [],
  };
  const connection = createConnection({
    core,
    session: createSession(),
    origin: IN_PROCESS,
    slots: createSlots(1),
    send: (message) => sent.push(message),
  });
  const flight = connection.request(request(1), { outlet: { notify: (m) => own.push(m) } });
  deepStrictEqual(own.map((message) => message.method), ["roots/list"]);
  strictEqual(
    connection.response({
      kind: "response",
      id: own[0].id as string,
      result: { roots: [] },
      error: undefined,
    }),
    true,
  );
  deepStrictEqual(await asked, { roots: [] });
  flight.detach();
  core.handle(flight as never);
  deepStrictEqual(sent.map((message) => message.method), ["roots/list"]);
  connection.close("the test is over");
  await asked!.then(() => undefined, () => undefined);
});

Deno.test("createConnection() tells its session what a reload changed until it is closed", () => {
  const sent: JsonObject[] = [];
  const swaps: ((next: never, previous: never) => void)[] = [];
  const registry = {
    current: () => ({}) as never,
    swap: () => ({}) as never,
    onChange(listener: (next: never, previous: never) => void) {
      swaps.push(listener);
      return () => swaps.splice(swaps.indexOf(listener), 1);
    },
  };
  const connection = createConnection({
    core: {
      handle: () => ({}),
      method: () => undefined,
      changeNotices: () => [{ jsonrpc: "2.0", method: "notifications/tools/list_changed" }],
      builtins: () => [],
    },
    session: createSession(),
    origin: IN_PROCESS,
    slots: createSlots(1),
    send: (message) => sent.push(message),
    registry,
  });
  strictEqual(swaps.length, 1);
  swaps[0]({} as never, {} as never);
  deepStrictEqual(sent, [{ jsonrpc: "2.0", method: "notifications/tools/list_changed" }]);
  connection.close("the session ended", false);
  strictEqual(swaps.length, 0, "a closed connection hears of no more changes");
});

Deno.test("createConnection() close() aborts what runs and ends what waits without an answer", async () => {
  const { sent, peer, connection } = setup(1);
  const replies: (JsonObject | undefined)[] = [];
  connection.request(request(1), { reply: (response) => replies.push(response) });
  connection.request(request(2), { reply: (response) => replies.push(response) });
  strictEqual(peer.running.size, 1);
  connection.close("the session ended");
  await connection.idle();
  await tick();
  // The running one answers as its handler sees the abort; the waiting one ends without.
  deepStrictEqual(replies, [{ jsonrpc: "2.0", id: 1, result: { method: "slow" } }, undefined]);
  deepStrictEqual(sent, []);
});

Deno.test("createConnection() is not idle while its last waiting request is being started, and a request cancelled as its slot comes does not run", async () => {
  const { ids, peer, connection } = setup(1);
  connection.request(request(1), { bytes: 10 });
  connection.request(request(2), { bytes: 10 });
  let idleAt: number[] | undefined;
  connection.idle().then(() => idleAt = [...peer.running.keys()] as number[]);
  peer.running.get(1)!.finish(); // 2 gets the slot; the engine is busy again at once
  await tick();
  deepStrictEqual([...peer.running.keys()], [2]);
  strictEqual(idleAt, undefined, "idle() waits for the request that started");
  strictEqual(connection.busy(), true);
  peer.running.get(2)!.finish();
  await connection.idle();
  await tick();
  deepStrictEqual(idleAt, []);
  deepStrictEqual(ids(), [1, 2]);

  // Request 4 waits; 3 finishes (4's slot is granted), and 4 is cancelled before it runs.
  connection.request(request(3), { bytes: 10 });
  connection.request(request(4), { bytes: 10 });
  peer.running.get(3)!.finish();
  await Promise.resolve(); // 3's answer is handled: the slot passes to 4, whose turn is next
  connection.cancel(4, "not needed");
  await connection.idle();
  await tick();
  strictEqual(peer.running.has(4), false, "a cancelled request never runs");
  deepStrictEqual(ids(), [1, 2, 3]);
  strictEqual(connection.busy(), false);
});
