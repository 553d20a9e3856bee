// A mount (adr/0071): the tools one upstream MCP server gives, served under its file's stem as
// ordinary `Tool`s, each with a relay for its handler. What is served comes from the pins
// (what a person reviewed), so start-up waits for no upstream; the upstream is checked against
// them when it is first reached and whenever it says its list changed, and a tool whose
// definition moved is withheld (listed nowhere, called as unknown) until the pins are updated.
// A change of what a mount serves is told to `changed`, which reloads the directory.
import { isObject, type JsonObject, messageOf } from "../util/json.ts";
import { type Diagnostics, inform, warn } from "../util/diagnostics.ts";
import { checkDefinition, type Tool } from "../primitives/tools.ts";
import type { ToolContext } from "../primitives/types.ts";
import { frontTokenOf, type TokenExchange } from "../primitives/front_token.ts";
import { refuseUnsafePatterns } from "../schema/pattern_safety.ts";
import { correctionFor, parseMountFile, selected, servedName } from "./mount_file.ts";
import { MOUNT_SUFFIX, PINS_SUFFIX } from "./names.ts";
import {
  compareTools,
  type Comparison,
  type Pins,
  pinsOf,
  pinsText,
  readPins,
  type Seen,
  seenOfTool,
  writePins,
} from "./pins.ts";
import { createUpstream, type Upstream } from "./upstream.ts";
import { relayHandler } from "./relay.ts";

/** The most upstream connections one mount keeps for callers of its own (token exchange). */
export const MAX_CALLER_LINKS = 256;

/** How long a list of an upstream's tools may take before it is given up. */
const LIST_DEADLINE_MS = 10_000;

/** What mounts are loaded with: the server's, shared by every mount of a directory. */
export interface MountOptions {
  diagnostics: Diagnostics;
  /** Reads `${NAME}` in mount files (the server's environment). */
  env: (name: string) => string | undefined;
  /** With `--auth-issuer`: tokens for callers by exchange (adr/0071 §5). */
  exchange?: TokenExchange;
  /** With telemetry: the call's trace context. */
  traceEnvironment?: () => Record<string, string>;
  /** What a mount serves changed after it was loaded: the directory is loaded again. */
  changed(): void;
}

/** An upstream tool a mount does not serve, and why. */
export interface Withheld {
  readonly name: string;
  readonly why: "changed" | "new" | "gone" | "refused";
  /** For a changed tool: what moved; for a refused one: toolshed's objection. */
  readonly detail: string;
}

export interface Mount {
  readonly file: string;
  readonly stem: string;
  /** What it serves now. */
  tools(): readonly Tool[];
  /** The upstream tools it holds back, with the reason for each. */
  withheld(): readonly Withheld[];
  /** Whether its upstream answers (for `/readyz` and stderr). */
  status(): { state: string; error?: string };
  /** Reaches the upstream, lists its tools and compares them with the pins (`toolshed check`). */
  verify(signal?: AbortSignal): Promise<Comparison>;
  /** Reads its pins again (a reload): pins a person changed are served and checked. */
  repin(): Promise<void>;
  /** Writes the pins from what the upstream lists now (`toolshed check --update-pins`). */
  updatePins(signal?: AbortSignal): Promise<number>;
  close(): Promise<void>;
}

/**
 * Loads the mount whose file, at `url` (`tools/<stem>.mcp.json`), holds `text`. A file with a problem throws, saying
 * which; an upstream that cannot be reached never does: its pinned tools are served, and an
 * unpinned mount serves nothing until the upstream answers.
 */
export async function loadMount(
  text: string,
  url: URL,
  shown: string,
  stem: string,
  options: MountOptions,
): Promise<Mount> {
  const mount = parseMountFile(text, stem, shown, options.env);
  const pinsUrl = new URL(`${stem}${PINS_SUFFIX}`, url);
  let pins = mount.block.pins ? await readPins(pinsUrl) : undefined;
  const { transport } = mount;
  const shared = createUpstream(
    transport.kind === "stdio"
      ? transport
      : { kind: "http", url: transport.url, headers: () => transport.headers },
    { diagnostics: options.diagnostics, name: shown },
  );
  const callers = new Map<string, { upstream: Upstream; token: string }>();
  let served: readonly Tool[] = [];
  let withheld: readonly Withheld[] = [];
  let closed = false;

  /** The connection a call goes through: the caller's own when its token is exchanged. */
  const upstreamFor = (ctx: ToolContext): Upstream => {
    const { auth } = mount.block;
    if (auth.kind !== "exchange" || mount.transport.kind !== "http") return shared;
    const token = frontTokenOf(ctx);
    const subject = ctx.auth?.subject;
    if (token === undefined || subject === undefined || options.exchange === undefined) {
      throw new Error(
        `"${shown}" exchanges the caller's token, and this call has none (the server needs ` +
          "--auth-issuer and an OAuth caller)",
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
    const { url, headers } = mount.transport;
    entry.upstream = createUpstream({
      kind: "http",
      url,
      headers: async () => ({
        ...headers,
        Authorization: `Bearer ${await options.exchange!.tokenFor({
          subjectToken: entry.token,
          audience: auth.audience,
          resource: auth.resource,
          scopes: auth.scopes,
          clientId: auth.clientId,
          clientSecret: auth.clientSecret,
        }, AbortSignal.timeout(LIST_DEADLINE_MS))}`,
      }),
    }, { diagnostics: options.diagnostics, name: shown });
    callers.set(subject, entry);
    if (callers.size > MAX_CALLER_LINKS) {
      const [oldest, { upstream }] = callers.entries().next().value!;
      callers.delete(oldest);
      upstream.close();
    }
    return entry.upstream;
  };

  const toolOf = async (seen: Seen): Promise<Tool> => {
    const correction = correctionFor(mount.block, seen.name);
    const annotations = { ...seen.annotations, ...correction.annotations };
    const definition: JsonObject = {
      name: servedName(mount, seen.name),
      title: correction.title ?? seen.title,
      description: correction.description ?? seen.description,
      inputSchema: seen.inputSchema,
      outputSchema: seen.outputSchema,
      annotations: Object.keys(annotations).length === 0 ? undefined : annotations,
      scopes: correction.scopes,
      rateLimit: correction.rateLimit,
      timeoutMs: correction.timeoutMs,
      task: correction.task,
      jobAfterMs: correction.jobAfterMs,
      jobReuseMs: correction.jobReuseMs,
      handler: relayHandler({
        file: shown,
        upstreamName: seen.name,
        upstreamFor,
        traceEnvironment: options.traceEnvironment,
        inputSchema: seen.inputSchema,
      }),
    };
    for (const key of Object.keys(definition)) {
      if (definition[key] === undefined) delete definition[key];
    }
    const tool = checkDefinition(definition, seen.name, shown);
    await refuseUnsafePatterns(tool.definition.inputSchema, "inputSchema");
    if (tool.definition.outputSchema !== undefined) {
      await refuseUnsafePatterns(tool.definition.outputSchema, "outputSchema");
    }
    return mount.block.auth.kind === "exchange"
      ? { ...tool, toolset: stem, forwardsIdentity: true }
      : { ...tool, toolset: stem };
  };

  /** Serves `seen` (those the block selects), each tool toshed refuses withheld with why. */
  const serve = async (seen: readonly Seen[], held: readonly Withheld[]) => {
    const tools: Tool[] = [];
    const refused: Withheld[] = [];
    for (const each of seen.filter((item) => selected(mount.block, item.name))) {
      try {
        tools.push(await toolOf(each));
      } catch (error) {
        refused.push({ name: each.name, why: "refused", detail: messageOf(error) });
      }
    }
    const before = JSON.stringify([served.map((tool) => tool.name), withheld]);
    served = tools;
    withheld = [...held, ...refused];
    return before !== JSON.stringify([served.map((tool) => tool.name), withheld]);
  };

  /** What the upstream lists now (every page), as a model sees each tool. */
  const listed = async (signal?: AbortSignal): Promise<Seen[]> => {
    const deadline = AbortSignal.timeout(LIST_DEADLINE_MS);
    const both = signal === undefined ? deadline : AbortSignal.any([signal, deadline]);
    const seen: Seen[] = [];
    let cursor: unknown;
    for (let page = 0; page < 100; page++) {
      const params: JsonObject = cursor === undefined ? {} : { cursor };
      const result = await shared.request("tools/list", params, { signal: both });
      const tools = Array.isArray(result.tools) ? result.tools : [];
      for (const tool of tools) if (isObject(tool)) seen.push(seenOfTool(tool));
      cursor = result.nextCursor;
      if (typeof cursor !== "string") break;
    }
    return seen;
  };

  /** Compares what the upstream lists with the pins and serves what holds. */
  const check = async (signal?: AbortSignal): Promise<Comparison> => {
    const upstream = (await listed(signal)).filter((seen) => selected(mount.block, seen.name));
    if (pins === undefined) {
      if (mount.block.pins && !closed) pins = await firstPins(upstream);
      const comparison = { kept: upstream.map((seen) => seen.name), withheld: [] };
      if (await serve(upstream, [])) options.changed();
      return comparison;
    }
    const comparison = compareTools(pins, upstream);
    const byName = new Map(upstream.map((seen) => [seen.name, seen]));
    const kept = comparison.kept.map((name) => byName.get(name)!);
    const held = comparison.withheld.map(({ name, why, diff }) => ({ name, why, detail: diff }));
    for (const each of held) {
      warn(
        options.diagnostics,
        `"${shown}" withholds the upstream tool "${each.name}" (${whyText(each.why)}) until ` +
          `its pins are updated (toolshed check --update-pins)${
            each.detail === "" ? "" : `:\n${each.detail.replace(/^/gm, "  ")}`
          }`,
        { mount: shown },
      );
    }
    if (await serve(kept, held)) options.changed();
    return comparison;
  };

  /** Trust on first use: the pins written from what the upstream lists the first time. */
  const firstPins = async (upstream: readonly Seen[]): Promise<Pins | undefined> => {
    const made = pinsOf(upstream);
    try {
      await writePins(pinsUrl, made);
      inform(
        options.diagnostics,
        `"${shown}" had no pins: wrote ${upstream.length} tool definition(s) to ` +
          `"${shown.slice(0, -MOUNT_SUFFIX.length)}${PINS_SUFFIX}" from the upstream as it is ` +
          "now; review them, and keep the file with the directory",
        { mount: shown },
      );
      return made;
    } catch (error) {
      warn(
        options.diagnostics,
        `"${shown}" is served unpinned: its pins could not be written (${messageOf(error)})`,
        { mount: shown },
      );
      return undefined;
    }
  };

  const onNotice = shared.onNotification((method) => {
    if (method !== "notifications/tools/list_changed" || closed) return;
    check().catch((error) =>
      warn(
        options.diagnostics,
        `"${shown}" said its tools changed; listing them failed: ${messageOf(error)}`,
      )
    );
  });

  /** Serves the pins at once, and checks them against the upstream in the background. */
  const servePins = async (held: Pins) => {
    await serve(Object.values(held.tools).map(({ seen }) => seen), []);
    queueMicrotask(() => {
      if (closed) return;
      check().catch((error) =>
        warn(
          options.diagnostics,
          `"${shown}": the upstream cannot be checked against its pins: ${messageOf(error)}`,
        )
      );
    });
  };

  if (pins !== undefined) await servePins(pins);
  else {
    try {
      await check();
    } catch (error) {
      warn(
        options.diagnostics,
        `"${shown}" serves no tools until its upstream answers: ${messageOf(error)}`,
      );
    }
  }

  return {
    file: shown,
    stem,
    tools: () => served,
    withheld: () => withheld,
    status: () => shared.status(),
    verify: (signal) => check(signal),
    async repin() {
      if (!mount.block.pins) return;
      const now = await readPins(pinsUrl);
      if (now === undefined || (pins !== undefined && pinsText(now) === pinsText(pins))) return;
      pins = now;
      await servePins(now);
    },
    async updatePins(signal) {
      const upstream = (await listed(signal)).filter((seen) => selected(mount.block, seen.name));
      pins = pinsOf(upstream);
      await writePins(pinsUrl, pins);
      await serve(upstream, []);
      return upstream.length;
    },
    async close() {
      closed = true;
      onNotice();
      await Promise.all([shared, ...[...callers.values()].map((each) => each.upstream)]
        .map((upstream) => upstream.close()));
    },
  };
}

function whyText(why: Withheld["why"]): string {
  return why === "changed"
    ? "its definition changed since it was pinned"
    : why === "new"
    ? "it is not pinned"
    : why === "gone"
    ? "the upstream no longer lists it"
    : "toolshed cannot serve it";
}
