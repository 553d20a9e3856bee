// A mount (adr/0071): what one upstream MCP server gives — tools, prompts, resources and
// templates — served under its file's stem as ordinary primitives whose handlers ask the
// upstream. Tools and prompts are served from the pins (what a person reviewed), so start-up
// waits for no upstream; the upstream is checked against them when it is first reached and
// whenever it says a list changed, and one whose definition moved is withheld (listed nowhere,
// called as unknown) until the pins are updated. Resources and templates are addresses, not
// instructions: they are served as the upstream lists them. A change of what a mount serves is
// told to `changed`, which reloads the directory.
import { isObject, type JsonObject, MAX_TIMER_MS, messageOf } from "../util/json.ts";
import { type Diagnostics, inform, warn } from "../util/diagnostics.ts";
import type { Tool } from "../primitives/tools.ts";
import type { Prompt } from "../primitives/prompts.ts";
import type { Resource, ResourceTemplate } from "../primitives/resources.ts";
import type { TokenExchange } from "../primitives/front_token.ts";
import { parseMountFile, selected, servedName, unmatchedNames } from "./mount_file.ts";
import { MOUNT_SUFFIX, PINS_SUFFIX } from "./names.ts";
import {
  comparePrompts,
  compareTools,
  type Pins,
  pinsOf,
  pinsText,
  readPins,
  type Seen,
  seenOfPrompt,
  seenOfTool,
  type SeenPrompt,
  writePins,
} from "./pins.ts";
import { createUpstream, type Upstream, type UpstreamServer } from "./upstream.ts";
import { callerLinks } from "./caller_links.ts";
import { mountedTool } from "./mounted_tool.ts";
import {
  type MountedFrom,
  mountedPrompt,
  mountedResource,
  mountedTemplate,
} from "./mounted_primitives.ts";

/** How long listing what an upstream serves may take before it is given up. */
const LIST_DEADLINE_MS = 10_000;
/** The same for `toolshed check` (and `--update-pins`), which a person waits for. */
const COMMAND_DEADLINE_MS = 120_000;
/** An unpinned upstream that did not answer at start is listed again after this, then twice as long. */
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;
/** A list is read again at most this often, whatever `ttlMs` the upstream gives. */
const MIN_REFRESH_MS = 1_000;
/** The most pages of one list read from an upstream (a list that never ends is cut there). */
const MAX_LIST_PAGES = 100;

/** What mounts are loaded with: the server's, shared by every mount of a directory. */
export interface MountOptions {
  diagnostics: Diagnostics;
  /** Reads `${NAME}` in mount files (the server's environment). */
  env: (name: string) => string | undefined;
  /** With `--auth-issuer`: tokens for callers by exchange (adr/0071 §5). */
  exchange?: TokenExchange;
  /** With telemetry: the call's trace context. */
  traceEnvironment?: () => Record<string, string>;
  /** Largest contents one resources/read may return (`--max-resource-bytes`). */
  maxResourceBytes: number;
  /** What a mount serves changed after it was loaded: the directory is loaded again. */
  changed(): void;
}

/** An upstream tool or prompt a mount does not serve, and why. */
interface Withheld {
  readonly kind: "tool" | "prompt";
  readonly name: string;
  readonly why: "changed" | "new" | "gone" | "refused";
  /** For a changed one: what moved; for a refused one: toolshed's objection. */
  readonly detail: string;
}

/** What a mount serves at one time. */
interface Served {
  readonly tools: readonly Tool[];
  readonly prompts: readonly Prompt[];
  readonly resources: readonly Resource[];
  readonly templates: readonly ResourceTemplate[];
  readonly withheld: readonly Withheld[];
}

export interface Mount {
  readonly file: string;
  readonly stem: string;
  /** What it serves now. */
  served(): Served;
  /** Whether its upstream answers (for `/readyz` and stderr). */
  status(): { state: string; error?: string };
  /** Reaches the upstream, lists what it serves and compares it with the pins (`toolshed check`). */
  verify(signal?: AbortSignal): Promise<void>;
  /** Reads its pins again (a reload): pins a person changed are served and checked. */
  repin(): Promise<void>;
  /** Writes the pins from what the upstream lists now (`toolshed check --update-pins`). */
  updatePins(signal?: AbortSignal): Promise<number>;
  close(): Promise<void>;
}

/** What an upstream lists at one time, tools and prompts as a model sees them. */
interface Listed {
  tools: Seen[];
  prompts: SeenPrompt[];
  resources: JsonObject[];
  templates: JsonObject[];
  /** The shortest `ttlMs` the lists gave, if any gave one. */
  ttlMs?: number;
}

/**
 * Loads the mount whose file, at `url` (`tools/<stem>.mcp.json`), holds `text`. A file with a
 * problem throws, saying which; an upstream that cannot be reached never does: what its pins
 * hold is served, and an unpinned mount serves nothing until the upstream answers.
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
  const pinsShown = `${shown.slice(0, -MOUNT_SUFFIX.length)}${PINS_SUFFIX}`;
  let pins = mount.block.pins ? await readPins(pinsUrl) : undefined;
  const { transport, block } = mount;
  const shared = createUpstream(
    transport.kind === "stdio"
      ? transport
      : { kind: "http", url: transport.url, headers: () => transport.headers },
    { diagnostics: options.diagnostics, name: shown },
  );
  // A mount that trades callers' tokens connects per caller, and serves only tools: the token
  // is lent to a tool's handler alone (primitives/front_token.ts).
  const callers = block.auth.kind === "exchange" && transport.kind === "http"
    ? callerLinks({ ...mount, transport }, block.auth, {
      ...options,
      linked(upstream, first) {
        upstream.onNotification(noticed);
        // The first caller's connection is the first that can list the upstream.
        if (first) queueMicrotask(() => checkSaying("cannot be checked against its pins"));
      },
    })
    : undefined;
  /**
   * The connection that lists the upstream: with token exchange, the latest caller's (before any
   * caller, as `toolshed check` is, the shared one, without credentials); else the shared one.
   */
  const lister = (): Upstream => callers?.latest() ?? shared;
  const relay = {
    file: shown,
    upstreamFor: callers?.upstreamFor ?? (() => shared),
    traceEnvironment: options.traceEnvironment,
  };
  const from: MountedFrom = {
    file: shown,
    scopes: block.defaults.scopes,
    upstreamFor: () => shared,
  };
  const said = (message: string) => warn(options.diagnostics, message, { mount: shown });
  let now: Served = { tools: [], prompts: [], resources: [], templates: [], withheld: [] };
  let closed = false;

  /** Serves what `listed` holds (withheld: what the pins refused), each one toolshed refuses withheld with why. */
  const serve = async (listed: Listed, held: readonly Withheld[]): Promise<boolean> => {
    const next = {
      tools: [] as Tool[],
      prompts: [] as Prompt[],
      resources: [] as Resource[],
      templates: [] as ResourceTemplate[],
      withheld: [...held],
    };
    const refuse = (kind: Withheld["kind"], name: string, error: unknown) =>
      next.withheld.push({ kind, name, why: "refused", detail: messageOf(error) });
    for (const seen of listed.tools.filter((each) => selected(block, each.name))) {
      try {
        next.tools.push(await mountedTool(seen, mount, relay));
      } catch (error) {
        refuse("tool", seen.name, error);
      }
    }
    for (const seen of listed.prompts.filter((each) => selected(block, each.name))) {
      try {
        next.prompts.push(mountedPrompt(seen, servedName(mount, seen.name), from));
      } catch (error) {
        refuse("prompt", seen.name, error);
      }
    }
    const passedOver: string[] = [];
    for (const item of listed.resources) {
      try {
        next.resources.push(mountedResource(item, from, options.maxResourceBytes));
      } catch (error) {
        passedOver.push(`the upstream resource "${item.uri}": ${messageOf(error)}`);
      }
    }
    for (const item of listed.templates) {
      try {
        const name = servedName(mount, String(item.name).replace(NOT_IN_NAMES, "_"));
        next.templates.push(mountedTemplate(item, name, from, options.maxResourceBytes));
      } catch (error) {
        passedOver.push(`the upstream template "${item.uriTemplate}": ${messageOf(error)}`);
      }
    }
    const before = fingerprint(now);
    now = next;
    if (before === fingerprint(now)) return false;
    for (const what of passedOver) said(`"${shown}" does not serve ${what}`);
    return true;
  };

  /** Every page of one of the upstream's lists. */
  const listAll = async (method: string, key: string, signal: AbortSignal, ttls: number[]) => {
    const items: JsonObject[] = [];
    let cursor: unknown;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const params: JsonObject = cursor === undefined ? {} : { cursor };
      const result = await lister().request(method, params, { signal });
      if (typeof result.ttlMs === "number" && result.ttlMs >= 0) ttls.push(result.ttlMs);
      const found = result[key];
      if (Array.isArray(found)) { for (const item of found) if (isObject(item)) items.push(item); }
      cursor = result.nextCursor;
      if (typeof cursor !== "string") break;
    }
    return items;
  };

  /** What the upstream serves now: its tools and prompts as a model sees them. */
  const listed = async (signal?: AbortSignal, deadlineMs = LIST_DEADLINE_MS): Promise<Listed> => {
    const deadline = AbortSignal.timeout(deadlineMs);
    const bounded = signal === undefined ? deadline : AbortSignal.any([signal, deadline]);
    const server: UpstreamServer = await lister().connect(bounded);
    const offers = (capability: string) =>
      callers === undefined && isObject(server.capabilities[capability]);
    const ttls: number[] = [];
    const [tools, prompts, resources, templates] = await Promise.all([
      listAll("tools/list", "tools", bounded, ttls),
      offers("prompts") ? listAll("prompts/list", "prompts", bounded, ttls) : [],
      offers("resources") ? listAll("resources/list", "resources", bounded, ttls) : [],
      offers("resources")
        ? listAll("resources/templates/list", "resourceTemplates", bounded, ttls)
        : [],
    ]);
    for (
      const sentence of unmatchedNames(
        block,
        [...tools, ...prompts].map((each) => String(each.name)),
      )
    ) {
      said(`"${shown}": ${sentence}`);
    }
    return {
      tools: tools.map(seenOfTool).filter((seen) => selected(block, seen.name)),
      prompts: prompts.map(seenOfPrompt).filter((seen) => selected(block, seen.name)),
      resources,
      templates,
      ttlMs: ttls.length === 0 ? undefined : Math.min(...ttls),
    };
  };

  /**
   * Lists the upstream again when the lists it gave may be stale by its own cache hint
   * (`ttlMs`, 2026-07-28), besides whenever it says a list changed; never per call.
   */
  let refresh: ReturnType<typeof setTimeout> | undefined;
  const refreshAfter = (ttlMs: number | undefined) => {
    clearTimeout(refresh);
    if (ttlMs === undefined || closed) return;
    refresh = setTimeout(
      () => checkSaying("could not be listed again after its lists' ttlMs"),
      Math.min(Math.max(ttlMs, MIN_REFRESH_MS), MAX_TIMER_MS),
    );
  };

  /**
   * Compares what the upstream serves with the pins and serves what holds: one check at a time,
   * and one more after it when another was asked for meanwhile (a list changed again).
   */
  let checking: Promise<void> | undefined;
  let again = false;
  const check = (signal?: AbortSignal): Promise<void> => {
    if (checking !== undefined) {
      again = true;
      return checking;
    }
    checking = (async () => {
      try {
        do {
          again = false;
          await checkOnce(signal);
        } while (again && !closed);
      } finally {
        checking = undefined;
      }
    })();
    return checking;
  };
  const checkOnce = async (signal?: AbortSignal, deadlineMs?: number): Promise<void> => {
    const found = await listed(signal, deadlineMs);
    if (closed) return;
    refreshAfter(found.ttlMs);
    if (pins === undefined) {
      if (block.pins) pins = await firstPins(found);
      if (await serve(found, [])) options.changed();
      return;
    }
    const tools = compareTools(pins, found.tools);
    const prompts = comparePrompts(pins, found.prompts);
    const held: Withheld[] = [
      ...tools.withheld.map(({ name, why, diff }) => ({
        kind: "tool" as const,
        name,
        why,
        detail: diff,
      })),
      ...prompts.withheld.map(({ name, why, diff }) => ({
        kind: "prompt" as const,
        name,
        why,
        detail: diff,
      })),
    ];
    const keptTools = new Set(tools.kept);
    const keptPrompts = new Set(prompts.kept);
    const kept: Listed = {
      ...found,
      tools: found.tools.filter((seen) => keptTools.has(seen.name)),
      prompts: found.prompts.filter((seen) => keptPrompts.has(seen.name)),
    };
    const changed = await serve(kept, held);
    if (changed) {
      for (const each of held) {
        said(
          `"${shown}" withholds the upstream ${each.kind} "${each.name}" (${whyText(each.why)}) ` +
            `until its pins are updated (toolshed check --update-pins)${
              each.detail === "" ? "" : `:\n${each.detail.replace(/^/gm, "  ")}`
            }`,
        );
      }
      options.changed();
    }
  };

  /** Trust on first use: the pins written from what the upstream lists the first time. */
  const firstPins = async (found: Listed): Promise<Pins | undefined> => {
    const made = pinsOf(found.tools, found.prompts);
    try {
      await writePins(pinsUrl, made);
      inform(
        options.diagnostics,
        `"${shown}" had no pins: wrote ${found.tools.length} tool and ${found.prompts.length} ` +
          `prompt definition(s) to "${pinsShown}" from the upstream as it is now; review them, ` +
          "and keep the file with the directory",
        { mount: shown },
      );
      return made;
    } catch (error) {
      said(`"${shown}" is served unpinned: its pins could not be written (${messageOf(error)})`);
      return undefined;
    }
  };

  /** A check that fails is said, and changes nothing served. */
  const checkSaying = (why: string) => {
    if (closed) return;
    // Once the mount is closed (the server stops), a check cut short says nothing.
    check().catch((error) => closed || said(`"${shown}" ${why}: ${messageOf(error)}`));
  };
  function noticed(method: string) {
    if (!closed && LIST_CHANGES.has(method)) checkSaying("said a list changed; listing failed");
  }
  const onNotice = shared.onNotification(noticed);

  /** Serves the pins at once, and checks them against the upstream in the background. */
  const servePins = async (held: Pins) => {
    await serve({
      tools: Object.values(held.tools).map(({ seen }) => seen),
      prompts: Object.values(held.prompts).map(({ seen }) => seen),
      resources: [],
      templates: [],
    }, []);
    // A mount that trades callers' tokens is checked by its first caller's connection.
    if (callers === undefined) {
      queueMicrotask(() => checkSaying("cannot be checked against its pins"));
    }
  };

  /** Lists an upstream that did not answer at start again, waiting longer each time. */
  let retry: ReturnType<typeof setTimeout> | undefined;
  const retryAfter = (ms: number) => {
    retry = setTimeout(async () => {
      if (closed) return;
      try {
        await check();
      } catch {
        retryAfter(Math.min(ms * 2, MAX_RETRY_MS));
      }
    }, ms);
  };

  if (pins !== undefined) await servePins(pins);
  else {
    try {
      await check();
    } catch (error) {
      said(
        `"${shown}" serves nothing until its upstream answers (tried again in the ` +
          `background): ${messageOf(error)}`,
      );
      retryAfter(FIRST_RETRY_MS);
    }
  }

  return {
    file: shown,
    stem,
    served: () => now,
    status: () => lister().status(),
    // A person waits for `toolshed check`: an upstream's first start (npx fetching it) may take long.
    async verify(signal) {
      await checking?.catch(() => {}); // a check in the background, with the shorter deadline
      await checkOnce(signal, COMMAND_DEADLINE_MS);
    },
    async repin() {
      if (!block.pins) return;
      const read = await readPins(pinsUrl);
      if (read === undefined || (pins !== undefined && pinsText(read) === pinsText(pins))) return;
      pins = read;
      await servePins(read);
    },
    async updatePins(signal) {
      const found = await listed(signal, COMMAND_DEADLINE_MS);
      pins = pinsOf(found.tools, found.prompts);
      await writePins(pinsUrl, pins);
      await serve(found, []);
      return found.tools.length;
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      clearTimeout(refresh);
      onNotice();
      await Promise.all([shared.close(), callers?.close()]);
    },
  };
}

/** What a primitive's name may not hold (a template's upstream name may be a title). */
const NOT_IN_NAMES = /[^A-Za-z0-9_.-]/g;

/** The notifications after which a mount lists its upstream again. */
const LIST_CHANGES = new Set([
  "notifications/tools/list_changed",
  "notifications/prompts/list_changed",
  "notifications/resources/list_changed",
]);

/** What changes when a mount's served primitives change (names, URIs, what is withheld). */
function fingerprint(served: Served): string {
  return JSON.stringify([
    served.tools.map((tool) => [tool.name, tool.definition.description]),
    served.prompts.map((prompt) => prompt.listing),
    served.resources.map((resource) => resource.listing),
    served.templates.map((template) => template.listing),
    served.withheld,
  ]);
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
