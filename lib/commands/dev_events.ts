// The event stream of `toolshed dev` (GET /dev/events): every `checked` and `reloaded` goes to
// each page subscribed, as text/event-stream, one JSON object per `data:` line. A page that
// never reads cannot grow memory: each subscriber holds at most MAX_UNSENT_BYTES not yet taken
// by its connection, past which it is dropped (its stream ends; an EventSource reconnects and is
// sent the last `checked` at once), and at most MAX_SUBSCRIBERS are subscribed at a time (one
// more gets 503).

/** Pages subscribed at once. */
const MAX_SUBSCRIBERS = 32;
/** Bytes of events one subscriber may have waiting, past which it is dropped. */
const MAX_UNSENT_BYTES = 1 << 20;
/** An idle stream gets a comment this often, so that nothing between closes it. */
const KEEP_ALIVE_MS = 15_000;

/** The events a dev server sends. */
type DevEventName = "checked" | "reloaded";

export interface DevEvents {
  /** Sends one event to every subscriber; a `checked` is also kept for those who come later. */
  publish(name: DevEventName, data: object): void;
  /**
   * The response to GET /dev/events: the stream (it ends when its reader goes away, which
   * cancels it), or 503 when MAX_SUBSCRIBERS are subscribed.
   */
  subscribe(): Response;
  /** How many are subscribed now. */
  subscribers(): number;
  /** Ends every stream; later subscriptions get 503. */
  close(): void;
}

interface Subscriber {
  readonly controller: ReadableStreamDefaultController<Uint8Array>;
  readonly stop: () => void;
}

const encoder = new TextEncoder();

/** The hub of a dev server's events, with its bounds. */
export function createDevEvents(
  bounds: { maxSubscribers?: number; maxUnsentBytes?: number } = {},
): DevEvents {
  const maxSubscribers = bounds.maxSubscribers ?? MAX_SUBSCRIBERS;
  const maxUnsentBytes = bounds.maxUnsentBytes ?? MAX_UNSENT_BYTES;
  const subscribed = new Set<Subscriber>();
  let lastChecked: Uint8Array | undefined;
  let closed = false;

  /** Queues `bytes` for one subscriber, or drops it when that would pass its bound. */
  const send = (subscriber: Subscriber, bytes: Uint8Array) => {
    const room = subscriber.controller.desiredSize ?? 0;
    if (room < bytes.byteLength) {
      subscriber.stop();
      try {
        // error() discards what is queued, where close() would keep it until it is read.
        subscriber.controller.error(new Error("The page read too slowly: dropped"));
      } catch { /* ended already */ }
      return;
    }
    subscriber.controller.enqueue(bytes);
  };
  const keepAlive = setInterval(() => {
    const comment = encoder.encode(": keep-alive\n\n");
    for (const subscriber of [...subscribed]) send(subscriber, comment);
  }, KEEP_ALIVE_MS);
  Deno.unrefTimer(keepAlive);

  return {
    publish(name, data) {
      const bytes = encoder.encode(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
      if (name === "checked") lastChecked = bytes;
      for (const subscriber of [...subscribed]) send(subscriber, bytes);
    },
    subscribe() {
      if (closed || subscribed.size >= maxSubscribers) {
        return new Response(
          closed
            ? "toolshed dev is stopping\n"
            : `Too many pages are subscribed to /dev/events (${maxSubscribers}): close one\n`,
          { status: 503, headers: { "content-type": "text/plain; charset=utf-8" } },
        );
      }
      let subscriber: Subscriber | undefined;
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          subscriber = { controller, stop: () => subscribed.delete(subscriber!) };
          subscribed.add(subscriber);
          controller.enqueue(encoder.encode(": toolshed dev\n\n"));
          if (lastChecked !== undefined) send(subscriber, lastChecked);
        },
        cancel() {
          subscriber?.stop();
        },
      }, new ByteLengthQueuingStrategy({ highWaterMark: maxUnsentBytes }));
      return new Response(stream, {
        headers: {
          "content-type": "text/event-stream",
          "cache-control": "no-store",
        },
      });
    },
    subscribers: () => subscribed.size,
    close() {
      closed = true;
      clearInterval(keepAlive);
      for (const subscriber of [...subscribed]) {
        subscriber.stop();
        try {
          subscriber.controller.close();
        } catch { /* ended already */ }
      }
    },
  };
}
