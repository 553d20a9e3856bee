// The bus between instances over Redis pub/sub (adr/0016): one channel, `<prefix>:events`,
// each message a JSON object; every instance, the sender included, receives every message.
// The link subscribes again on every new connection (adr/0022); what is published while Redis
// is unreachable fails at once, and nothing is queued for later.
import type { JsonObject } from "../util/json.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import type { Bus } from "../tasks/bus.ts";
import type { RedisLink } from "./connection.ts";

/** Subscribes to the channel; resolves once messages published from now on will arrive. */
export async function createRedisBus(link: RedisLink, diagnostics: Diagnostics): Promise<Bus> {
  const channel = `${link.prefix}:events`;
  const handlers = new Set<(message: JsonObject) => void>();
  await link.subscribe(channel, (text: string) => {
    let message: JsonObject;
    try {
      message = JSON.parse(text);
    } catch {
      return diagnostics.error(`Redis: a message on ${channel} that is not JSON was ignored`);
    }
    for (const handler of handlers) handler(message);
  });
  return {
    async publish(message) {
      await link.run((client) => client.publish(channel, JSON.stringify(message)));
    },
    subscribe(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
  };
}
