import assert from "node:assert/strict";
import { createSlots } from "../lib/util/slots.ts";

/** Whether `promise` has settled once pending callbacks have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(() => done = true, () => done = true);
  await new Promise((resolve) => setTimeout(resolve, 0));
  return done;
}

const never = new AbortController().signal;

Deno.test("createSlots() grants up to its limit at once", async () => {
  const slots = createSlots(2);
  await slots.acquire(never);
  await slots.acquire(never);
  assert.deepEqual([slots.held(), slots.waiting()], [2, 0]);
  const third = slots.acquire(never);
  assert.equal(await settled(third), false);
  assert.deepEqual([slots.held(), slots.waiting()], [2, 1]);
});

Deno.test("createSlots() hands a freed slot to the waiters in arrival order", async () => {
  const slots = createSlots(1);
  const release = await slots.acquire(never);
  const order: string[] = [];
  const waiters = ["a", "b", "c"].map((name) =>
    slots.acquire(never).then((free) => {
      order.push(name);
      return free;
    })
  );
  release();
  (await waiters[0])();
  (await waiters[1])();
  (await waiters[2])();
  assert.deepEqual(order, ["a", "b", "c"]);
  assert.deepEqual([slots.held(), slots.waiting()], [0, 0]);
});

Deno.test("createSlots() frees a slot once, however often its release is called", async () => {
  const slots = createSlots(2);
  const release = await slots.acquire(never);
  await slots.acquire(never);
  release();
  release();
  assert.equal(slots.held(), 1);
  await slots.acquire(never);
  assert.equal(await settled(slots.acquire(never)), false);
});

Deno.test("createSlots() lets a waiter whose signal aborts leave the line with the signal's reason", async () => {
  const slots = createSlots(1);
  const release = await slots.acquire(never);
  const controller = new AbortController();
  const leaving = slots.acquire(controller.signal);
  const staying = slots.acquire(never);
  const reason = new Error("cancelled");
  controller.abort(reason);
  await assert.rejects(leaving, (error) => error === reason);
  assert.deepEqual([slots.held(), slots.waiting()], [1, 1]);
  // The slot goes to the next in line, not to the one that left.
  release();
  (await staying)();
  assert.deepEqual([slots.held(), slots.waiting()], [0, 0]);
});

Deno.test("createSlots() refuses an already aborted signal without taking a slot", async () => {
  const slots = createSlots(1);
  const reason = new Error("too late");
  await assert.rejects(slots.acquire(AbortSignal.abort(reason)), (error) => error === reason);
  assert.deepEqual([slots.held(), slots.waiting()], [0, 0]);
});

Deno.test("slots.take() gives a free slot at once, and nothing while others hold or wait", async () => {
  const slots = createSlots(1);
  const first = slots.take();
  assert.ok(first !== undefined);
  assert.equal(slots.take(), undefined, "the one slot is held");
  const waiting = slots.acquire(new AbortController().signal);
  first();
  // The slot passed to the waiter in line, not to a later take().
  assert.equal(slots.take(), undefined);
  (await waiting)();
  assert.ok(slots.take() !== undefined);
  assert.equal(slots.held(), 1);
});

Deno.test("createSlots() counts units: holders within the bound at once, in arrival order, and one larger than it alone", async () => {
  const bytes = createSlots(10);
  const order: string[] = [];
  const first = await bytes.acquire(never, 6);
  const large = bytes.acquire(never, 30).then((leave) => (order.push("large"), leave));
  const small = bytes.acquire(never, 2).then((leave) => (order.push("small"), leave));
  assert.equal(await settled(small), false, "the small one waits behind the large one");
  assert.deepEqual(order, []);
  first();
  (await large)();
  (await small)();
  assert.deepEqual(order, ["large", "small"]);
  assert.deepEqual([bytes.held(), bytes.waiting()], [0, 0]);
});

Deno.test("createSlots() lets the ones behind a large waiter in when its signal aborts", async () => {
  const bytes = createSlots(10);
  const first = await bytes.acquire(never, 6);
  const controller = new AbortController();
  const large = bytes.acquire(controller.signal, 8);
  const small = bytes.acquire(never, 4);
  assert.equal(await settled(small), false, "the small one fits but waits its turn");
  controller.abort(new Error("cancelled"));
  await assert.rejects(large);
  (await small)();
  first();
  assert.deepEqual([bytes.held(), bytes.waiting()], [0, 0]);
});
