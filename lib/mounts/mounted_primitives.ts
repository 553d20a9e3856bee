// A mount's prompts, resources and resource templates (adr/0071 §2): built as a module of
// prompts/ or resources/ would be — the same checks, the same listing and the same check of what
// a read returns — with a getter or reader that asks the upstream. Prompts are namespaced like
// tools (`<stem>_<name>`); a resource keeps its upstream URI (an address, not a name); a
// template keeps its URI template under a namespaced name.
import { isObject, type JsonObject } from "../util/json.ts";
import { modulePrompt } from "../primitives/prompt_modules.ts";
import { resourceFromModule } from "../primitives/resource_modules.ts";
import type { Prompt } from "../primitives/prompts.ts";
import type { Resource, ResourceTemplate } from "../primitives/resources.ts";
import type { HandlerContext } from "../primitives/types.ts";
import { type Upstream, UpstreamError } from "./upstream.ts";
import type { SeenPrompt } from "./pins.ts";

/** MCP's "resource not found" (-32002): nothing at the URI, which a read answers as such. */
const RESOURCE_NOT_FOUND = -32002;

/** `_meta` keys the protocol owns: made for each hop, never copied across it. */
const PROTOCOL_META = "io.modelcontextprotocol/";

/** What each primitive a mount serves knows of it. */
export interface MountedFrom {
  /** The mount file, as messages name it. */
  readonly file: string;
  /** The scopes the mount's block gives everything it serves. */
  readonly scopes: readonly string[] | undefined;
  /** The connection a request goes through. */
  upstreamFor(ctx: HandlerContext): Upstream | Promise<Upstream>;
}

/** Sends `method` upstream for the request `ctx` serves, with its signal and channels. */
async function ask(
  from: MountedFrom,
  ctx: HandlerContext,
  method: string,
  params: JsonObject,
): Promise<JsonObject> {
  const upstream = await from.upstreamFor(ctx);
  try {
    return await upstream.request(method, params, {
      signal: ctx.signal,
      progress: ctx.progress,
      clientCapabilities: ctx.clientCapabilities,
    });
  } catch (error) {
    if (method === "resources/read" && isNotFound(error)) throw error;
    if (error instanceof UpstreamError && error.kind !== "cancelled") {
      throw new Error(`the upstream server of "${from.file}" failed: ${error.message}`);
    }
    throw error;
  }
}

function isNotFound(error: unknown): boolean {
  return error instanceof UpstreamError && error.code === RESOURCE_NOT_FOUND;
}

/** The upstream prompt `seen` served as `name`; throws when toolshed cannot serve it. */
export function mountedPrompt(seen: SeenPrompt, name: string, from: MountedFrom): Prompt {
  const prompt = modulePrompt({
    name,
    ...(seen.title === undefined ? {} : { title: seen.title }),
    description: seen.description,
    ...(seen.arguments === undefined ? {} : { arguments: seen.arguments }),
    ...(from.scopes === undefined ? {} : { scopes: [...from.scopes] }),
    get: async (args: Record<string, string>, ctx: HandlerContext) => {
      const result = await ask(from, ctx, "prompts/get", { name: seen.name, arguments: args });
      return { description: result.description, messages: result.messages };
    },
  }, name);
  return { ...prompt, file: from.file };
}

/** The upstream resource `listed` (a `resources/list` item); throws when it cannot be served. */
export function mountedResource(
  listed: JsonObject,
  from: MountedFrom,
  maxResourceBytes: number,
): Resource {
  const built = resourceFromModule(
    { ...definitionOf(listed, ["uri", "size"], from), read: readOf(from) },
    String(listed.name),
    { maxResourceBytes },
  );
  if (built.kind !== "resource") throw new Error(problemsOf(built));
  return { ...built.resource, file: from.file };
}

/** The upstream template `listed` served under `name`; throws when it cannot be served. */
export function mountedTemplate(
  listed: JsonObject,
  name: string,
  from: MountedFrom,
  maxResourceBytes: number,
): ResourceTemplate {
  const built = resourceFromModule(
    { ...definitionOf(listed, ["uriTemplate"], from), name, read: readOf(from) },
    name,
    { maxResourceBytes },
  );
  if (built.kind !== "template") throw new Error(problemsOf(built));
  return { ...built.template, file: from.file };
}

/** What a listing item says of a resource, as a module's definition would say it. */
function definitionOf(listed: JsonObject, own: readonly string[], from: MountedFrom): JsonObject {
  const definition: JsonObject = {};
  for (const key of [...own, "name", "title", "description", "mimeType", "annotations", "icons"]) {
    if (listed[key] !== undefined) definition[key] = listed[key];
  }
  if (isObject(listed._meta)) {
    const kept = Object.entries(listed._meta).filter(([key]) => !key.startsWith(PROTOCOL_META));
    if (kept.length > 0) definition._meta = Object.fromEntries(kept);
  }
  if (from.scopes !== undefined) definition.scopes = [...from.scopes];
  return definition;
}

/** A reader that asks the upstream for the URI being read. */
function readOf(from: MountedFrom) {
  return async (_params: unknown, ctx: HandlerContext & { uri: string }) => {
    try {
      const result = await ask(from, ctx, "resources/read", { uri: ctx.uri });
      return Array.isArray(result.contents) ? result.contents : [];
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  };
}

function problemsOf(built: { kind: string; problems?: string[] }): string {
  return built.problems?.join("; ") ?? `the upstream listed a ${built.kind} where it was not one`;
}
