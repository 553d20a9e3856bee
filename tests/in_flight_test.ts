import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { IN_PROCESS } from "../lib/methods/context.ts";
import type { Core } from "../lib/core/handle.ts";
import type { Request } from "../lib/wire/extract.ts";
import { createInFlight, MAX_LONG_LIVED } from "../lib/connection/in_flight.ts";
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
      name === "listen" ? { eras: ["modern"], longLived: true, handler: () => ({}) } : undefined,
    changeNotices: () => [],
  };
  return { core, running, maxRunning: () => maxRunning };
}

function request(id: number | string, method = "slow"): Request {
  return { kind: "request", id, method, params: {}, envelope: undefined, progressToken: undefined };
}

function setup(maxConcurrency: number, waitingBoundBytes = 1_000_000) {
  const sent: JsonObject[] = [];
  const peer = controllable();
  const inFlight = createInFlight({
    core: peer.core,
    session: createSession(),
    outlet: { notify: (message) => sent.push(message), outbound: undefined },
    origin: IN_PROCESS,
    maxConcurrency,
    waitingBoundBytes,
    send: (response) => sent.push(response),
  });
  const ids = () => sent.map((response) => response.id);
  return { sent, ids, peer, inFlight };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("createInFlight() runs at most maxConcurrency requests and starts the rest in order", async () => {
  const { ids, peer, inFlight } = setup(2);
  for (let id = 1; id <= 5; id++) inFlight.start(request(id), 10);
  deepStrictEqual([...peer.running.keys()], [1, 2]);
  peer.running.get(2)!.finish();
  await tick();
  deepStrictEqual([...peer.running.keys()], [1, 3]);
  while (peer.running.size > 0) {
    for (const { finish } of [...peer.running.values()]) finish();
    await tick();
  }
  await inFlight.idle();
  deepStrictEqual(ids(), [2, 1, 3, 4, 5]);
  strictEqual(peer.maxRunning(), 2);
});

Deno.test("createInFlight() answers synchronous requests at once without tracking them", () => {
  const { ids, inFlight } = setup(1);
  inFlight.start(request(1, "sync"), 10);
  inFlight.start(request(1, "sync"), 10); // the same id is free again at once
  deepStrictEqual(ids(), [1, 1]);
  strictEqual(inFlight.busy(), false);
});

Deno.test("createInFlight() rejects an id in use by a running or a waiting request", () => {
  const { sent, inFlight } = setup(1);
  inFlight.start(request("a"), 10);
  inFlight.start(request("b"), 10); // waits
  inFlight.start(request("a"), 10);
  inFlight.start(request("b"), 10);
  deepStrictEqual(sent.map((response) => [response.id, (response.error as JsonObject).message]), [
    [null, 'Invalid request: id "a" is already in use by a request in progress'],
    [null, 'Invalid request: id "b" is already in use by a request in progress'],
  ]);
});

Deno.test("createInFlight() cancels a waiting request before it starts and a running one by abort", async () => {
  const { ids, peer, inFlight } = setup(1);
  inFlight.start(request(1), 10);
  inFlight.start(request(2), 10);
  inFlight.start(request(3), 10);
  inFlight.cancel(2, "not needed");
  inFlight.cancel(1, "stop");
  await tick();
  deepStrictEqual([...peer.running.keys()], [3]);
  strictEqual(peer.maxRunning(), 1);
  peer.running.get(3)!.finish();
  await inFlight.idle();
  deepStrictEqual(ids(), [3]);
});

Deno.test("createInFlight() holds the reader back while waiting requests pass the byte bound", async () => {
  const { peer, inFlight } = setup(1, 100);
  inFlight.start(request(1), 60);
  inFlight.start(request(2), 60);
  let free = false;
  inFlight.waitingBelowBound().then(() => free = true);
  await tick();
  strictEqual(free, true, "60 bytes waiting is within the bound of 100");
  inFlight.start(request(3), 60); // 120 bytes waiting
  let released = false;
  const waiting = inFlight.waitingBelowBound().then(() => released = true);
  await tick();
  strictEqual(released, false);
  peer.running.get(1)!.finish(); // 2 starts, 60 bytes wait
  await waiting;
  strictEqual(released, true);
  for (const id of [2, 3]) {
    await tick();
    peer.running.get(id)!.finish();
  }
  await inFlight.idle();
});

Deno.test("createInFlight() answers waiting requests with an error at shutdown and aborts running ones", async () => {
  const { sent, inFlight } = setup(1);
  inFlight.start(request(1), 10);
  inFlight.start(request(2), 10);
  inFlight.answerWaiting({ code: -32603, message: "Internal error: shutting down" });
  inFlight.abortRunning("shutting down");
  await inFlight.idle();
  deepStrictEqual(sent, [
    { jsonrpc: "2.0", id: 2, error: { code: -32603, message: "Internal error: shutting down" } },
    { jsonrpc: "2.0", id: 1, result: { method: "slow" } },
  ]);
});

Deno.test("createInFlight() runs long-lived requests beside the cap, and closes them at shutdown", async () => {
  const { ids, peer, inFlight } = setup(1);
  inFlight.start(request("l1", "listen"), 10);
  inFlight.start(request("l2", "listen"), 10);
  inFlight.start(request(1), 10);
  inFlight.start(request(2), 10);
  // Two listens and the one slot's request run; the listens hold no slot.
  deepStrictEqual([...peer.running.keys()], ["l1", "l2", 1]);
  strictEqual(inFlight.busy(), true);
  peer.running.get(1)!.finish();
  await tick();
  peer.running.get(2)!.finish();
  await inFlight.idle(); // the listens do not hold idle() up
  strictEqual(inFlight.busy(), false);
  // A cancelled listen gets no answer; the other answers when closed.
  inFlight.cancel("l1", "done");
  await inFlight.closeLongLived();
  strictEqual(inFlight.closeLongLived(), undefined);
  deepStrictEqual(ids(), [1, 2, "l2"]);
});

Deno.test("createInFlight() holds at most MAX_LONG_LIVED long-lived requests; one more is refused at once, and a cancelled one frees its place", async () => {
  const { sent, peer, inFlight } = setup(1);
  for (let id = 0; id < MAX_LONG_LIVED; id++) inFlight.start(request(`l${id}`, "listen"), 10);
  strictEqual(peer.running.size, MAX_LONG_LIVED);
  inFlight.start(request("over", "listen"), 10);
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
  inFlight.cancel("l0", "done");
  await tick();
  inFlight.start(request("again", "listen"), 10);
  strictEqual(peer.running.has("again"), true);
  await inFlight.closeLongLived();
});
