// The events 2025-era sessions keep for resumption (lib/transports/http/events.ts): ids,
// replay, and the bounds per session and across sessions.
import { deepStrictEqual, match, ok, strictEqual } from "node:assert/strict";
import {
  createEventBudget,
  createSessionEvents,
  type EventSink,
  STREAM_BYTES,
} from "../lib/transports/http/events.ts";

/** A sink that records what it is given, as text. */
function recorder(): EventSink & { text: string[]; closed: boolean } {
  const decoder = new TextDecoder();
  const sink = {
    text: [] as string[],
    closed: false,
    push: (bytes: Uint8Array) => void sink.text.push(decoder.decode(bytes)),
    close: () => void (sink.closed = true),
  };
  return sink;
}

const note = (n: number) => ({ jsonrpc: "2.0", method: "notifications/progress", params: { n } });

Deno.test("createSessionEvents() numbers a stream's events after its priming event, and replays those after an id", () => {
  const events = createSessionEvents(createEventBudget());
  const live = recorder();
  const stream = events.open(live, true);
  stream.send(note(1));
  stream.send(note(2));
  deepStrictEqual(live.text, [
    "id: s1_0\nretry: 1000\ndata: \n\n",
    'id: s1_1\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"n":1}}\n\n',
    'id: s1_2\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"n":2}}\n\n',
  ]);
  stream.detach(live);
  stream.send(note(3));
  strictEqual(live.text.length, 3, "a detached reader gets nothing more");
  const resumed = recorder();
  strictEqual(events.resume("s1_1", resumed), stream);
  deepStrictEqual(resumed.text.map((text) => text.split("\n")[0]), ["id: s1_2", "id: s1_3"]);
  stream.end({ jsonrpc: "2.0", id: 1, result: {} });
  deepStrictEqual([resumed.text.at(-1)?.split("\n")[0], resumed.closed], ["id: s1_4", true]);
  // An ended stream replays and closes at once.
  const late = recorder();
  events.resume("s1_3", late);
  deepStrictEqual([late.text.length, late.closed], [1, true]);
});

Deno.test("createSessionEvents() refuses ids of no stream, and events it no longer keeps", () => {
  const events = createSessionEvents(createEventBudget(), 400 + STREAM_BYTES);
  const stream = events.open(recorder(), false);
  for (let n = 0; n < 20; n++) stream.send(note(n));
  match(String(events.resume("s7_1", recorder())), /names no stream/);
  match(String(events.resume("garbage", recorder())), /names no stream/);
  // 20 events of ~90 bytes against 400 (and the stream's own cost): the first ones are gone,
  // the last ones are kept.
  match(String(events.resume("s1_1", recorder())), /no longer kept/);
  const tail = recorder();
  ok(typeof events.resume("s1_18", tail) !== "string");
  deepStrictEqual(tail.text.map((text) => text.split("\n")[0]), ["id: s1_19", "id: s1_20"]);
});

Deno.test("createEventBudget() evicts from the session written to least recently, and frees an ended session's bytes", () => {
  const budget = createEventBudget(1_000 + 2 * STREAM_BYTES);
  const quiet = createSessionEvents(budget);
  const busy = createSessionEvents(budget);
  const old = quiet.open(recorder(), false);
  for (let n = 0; n < 5; n++) old.send(note(n));
  const fresh = busy.open(recorder(), false);
  for (let n = 0; n < 10; n++) fresh.send(note(n));
  ok(budget.bytes <= 1_000 + 2 * STREAM_BYTES, `${budget.bytes} bytes kept`);
  // The quiet session paid first: its oldest events are gone, the busy one's last are kept.
  match(String(quiet.resume("s1_1", recorder())), /no longer kept/);
  ok(typeof busy.resume("s1_9", recorder()) !== "string");
  busy.close();
  quiet.close();
  strictEqual(budget.bytes, 0);
});

Deno.test("createSessionEvents() forgets a GET stream a newer one replaced, once it keeps nothing", () => {
  const budget = createEventBudget();
  const events = createSessionEvents(budget);
  // A client opening and closing its GET stream again and again leaves one stream behind:
  // the last, which it may still resume.
  for (let n = 1; n <= 100; n++) {
    const reader = recorder();
    const stream = events.open(reader, true, true);
    stream.detach(reader);
  }
  match(String(events.resume("s99_0", recorder())), /names no stream/);
  ok(typeof events.resume("s100_0", recorder()) !== "string", "the last one is resumable");
  // One a newer one replaced keeps its events, counted, until they are evicted; it is over.
  const kept = recorder();
  const older = events.open(kept, true, true);
  older.send(note(1));
  older.detach(kept);
  const counted = budget.bytes;
  ok(counted > STREAM_BYTES, `${counted} bytes counted for one event and its stream`);
  events.open(recorder(), true, true);
  const replay = recorder();
  strictEqual(events.resume(`${older.id}_0`, replay), older);
  deepStrictEqual([replay.text.length, replay.closed, older.ended], [1, true, true]);
  strictEqual(budget.bytes, counted);
  events.close();
  strictEqual(budget.bytes, 0);
});
