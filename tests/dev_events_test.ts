// The event hub of `toolshed dev` (lib/commands/dev_events.ts), in process: the last `checked` to
// a new page at once, a cap on pages, and a page that never reads dropped at its bound instead of
// growing memory.
import assert from "node:assert/strict";
import { createDevEvents } from "../lib/commands/dev_events.ts";

/** The text a stream has ready now, read until `until` shows in it. */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  until: string,
): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  // Bounded: each read returns what is queued, and the hub queued it all before.
  for (let reads = 0; reads < 100 && !text.includes(until); reads++) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

Deno.test("createDevEvents() sends each event to every page, and the last checked to a page that comes later", async () => {
  const hub = createDevEvents();
  const early = hub.subscribe().body!.getReader();
  hub.publish("checked", { errors: 1, warnings: 0, findings: [], at: "t1" });
  hub.publish("reloaded", { ok: true, at: "t2" });
  const seen = await readUntil(early, '"t2"');
  assert.match(
    seen,
    /event: checked\ndata: \{"errors":1,"warnings":0,"findings":\[\],"at":"t1"\}\n\n/,
  );
  assert.match(seen, /event: reloaded\ndata: \{"ok":true,"at":"t2"\}\n\n/);

  const late = hub.subscribe().body!.getReader();
  const replayed = await readUntil(late, '"t1"');
  assert.match(replayed, /event: checked\ndata: .*"at":"t1"/);
  assert.doesNotMatch(replayed, /reloaded/);
  assert.equal(hub.subscribers(), 2);
  await late.cancel();
  assert.equal(hub.subscribers(), 1);
  hub.close();
  assert.equal((await early.read()).done, true); // its stream ended
  assert.equal(hub.subscribers(), 0);
});

Deno.test("createDevEvents() answers 503 past its cap on pages, and after close", async () => {
  const hub = createDevEvents({ maxSubscribers: 2 });
  const pages = [hub.subscribe(), hub.subscribe()];
  const third = hub.subscribe();
  assert.equal(third.status, 503);
  assert.match(await third.text(), /Too many pages are subscribed to \/dev\/events \(2\)/);
  await pages[0].body!.cancel();
  const again = hub.subscribe();
  assert.equal(again.status, 200);
  hub.close();
  const closed = hub.subscribe();
  assert.equal(closed.status, 503);
  await closed.body?.cancel();
});

Deno.test("createDevEvents() drops a page that never reads once its unsent bytes pass the bound", async () => {
  const bound = 64 * 1024;
  const hub = createDevEvents({ maxUnsentBytes: bound });
  const stalled = hub.subscribe().body!;
  const reading = hub.subscribe().body!.getReader();
  const findings = [{ message: "x".repeat(1_000) }];
  let published = 0;
  // Far more than the bound: a never-read queue would hold all of it.
  for (; published < 1_000; published++) {
    hub.publish("checked", { errors: 1, warnings: 0, findings, at: String(published) });
    // The reader keeps up.
    await readUntil(reading, `"at":"${published}"`);
  }
  assert.equal(hub.subscribers(), 1, "the page that never read was dropped");
  // Its stream ends in an error; what it had queued is gone with it.
  await assert.rejects(stalled.getReader().read(), /The page read too slowly: dropped/);
  hub.close();
});
