// The connections of a mount that trades each caller's token (adr/0071 §5): one upstream
// connection per caller, whose Authorization is a token toolshed's authorization server gave
// for that caller and that upstream (RFC 8693), never the caller's own. Kept for the callers seen
// last, at most MAX_CALLER_LINKS; the one seen longest ago is closed to make room.
import type { Diagnostics } from "../util/diagnostics.ts";
import type { ToolContext } from "../primitives/types.ts";
import { frontTokenOf, type TokenExchange } from "../primitives/front_token.ts";
import { createUpstream, type Upstream, UpstreamError } from "./upstream.ts";
import { messageOf } from "../util/json.ts";
import type { MountFile } from "./mount_file.ts";

/** The most upstream connections one mount keeps for callers of its own. */
const MAX_CALLER_LINKS = 256;

/** How long one exchange may take at the authorization server. */
const EXCHANGE_DEADLINE_MS = 10_000;

interface CallerLinks {
  /** The connection a call goes through: the caller's own. */
  upstreamFor(ctx: ToolContext): Upstream;
  /** The connection of the caller seen last: the one that lists the upstream, if any. */
  latest(): Upstream | undefined;
  close(): Promise<void>;
}

type Exchanged = Extract<MountFile["block"]["auth"], { kind: "exchange" }>;

export function callerLinks(
  mount: MountFile & { transport: { kind: "http" } },
  auth: Exchanged,
  options: {
    exchange?: TokenExchange;
    diagnostics: Diagnostics;
    /** A caller's connection was made (`first`: the mount's first one). */
    linked(upstream: Upstream, first: boolean): void;
  },
): CallerLinks {
  let linkedBefore = false;
  const callers = new Map<string, { upstream: Upstream; token: string }>();
  const { url, headers } = mount.transport;
  return {
    upstreamFor(ctx) {
      const token = frontTokenOf(ctx);
      const subject = ctx.auth?.subject;
      const exchange = options.exchange;
      if (token === undefined || subject === undefined || exchange === undefined) {
        throw new Error(
          `"${mount.file}" exchanges the caller's token, and this call has none (the server ` +
            "needs --auth-issuer and an OAuth caller)",
        );
      }
      const known = callers.get(subject);
      if (known !== undefined) {
        known.token = token;
        callers.delete(subject); // most recent last: the first is the one to evict
        callers.set(subject, known);
        return known.upstream;
      }
      const entry = { token, upstream: undefined as unknown as Upstream };
      entry.upstream = createUpstream({
        kind: "http",
        url,
        headers: async () => {
          try {
            const exchanged = await exchange.tokenFor({
              subjectToken: entry.token,
              audience: auth.audience,
              resource: auth.resource,
              scopes: auth.scopes,
              clientId: auth.clientId,
              clientSecret: auth.clientSecret,
            }, AbortSignal.timeout(EXCHANGE_DEADLINE_MS));
            return { ...headers, Authorization: `Bearer ${exchanged}` };
          } catch (error) {
            // The authorization server's refusal, not a transport's: no handshake of another
            // era is tried after it.
            throw new UpstreamError("down", messageOf(error));
          }
        },
      }, { diagnostics: options.diagnostics, name: mount.file });
      callers.set(subject, entry);
      options.linked(entry.upstream, !linkedBefore);
      linkedBefore = true;
      if (callers.size > MAX_CALLER_LINKS) {
        const [oldest, { upstream }] = callers.entries().next().value!;
        callers.delete(oldest);
        upstream.close();
      }
      return entry.upstream;
    },
    latest: () => [...callers.values()].at(-1)?.upstream,
    async close() {
      const all = [...callers.values()];
      callers.clear();
      await Promise.all(all.map((each) => each.upstream.close()));
    },
  };
}
