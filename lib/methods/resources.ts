// `resources/list`, `resources/templates/list`, `resources/read`, and the 2025-era
// `resources/subscribe` and `resources/unsubscribe`: the primitives layer lists and reads
// resources; this finds them by URI and shapes answers and errors for the request's era.
import type { JsonObject } from "../util/json.ts";
import { quotedClientText } from "../util/client_text.ts";
import { ErrorCode, invalidParams, ProtocolError, resourceNotFound } from "../wire/errors.ts";
import { runHandler } from "../primitives/run_handler.ts";
import { InputRequired } from "../primitives/input_required.ts";
import type { ResourceContext } from "../primitives/types.ts";
import { handlerContextOf, handlerFailure } from "./handler_context.ts";
import type { MethodCall } from "./call.ts";
import { listPage } from "./list_page.ts";
import type { Session } from "./session.ts";

/** Most URIs one 2025-era session may subscribe to; more is -32602. */
const MAX_SUBSCRIPTIONS = 1_000;

export function listResourcesMethod(call: MethodCall): JsonObject {
  return listPage(call, call.snapshot.resources, "resources");
}

export function listResourceTemplatesMethod(call: MethodCall): JsonObject {
  return listPage(call, call.snapshot.templates, "resourceTemplates");
}

/**
 * Reads a resource by URI: a fixed resource first, then the templates in name order. A URI
 * nothing serves, or whose reader finds nothing there now, is the era's "Resource not found".
 */
export async function readResourceMethod(call: MethodCall): Promise<JsonObject> {
  const uri = uriOf(call);
  const stateless = call.features.era === "stateless";
  const ctx: ResourceContext = { ...handlerContextOf(call), uri };
  const timeout = (ms: number | undefined) => ms ?? call.options.toolTimeoutMs;
  // The client's URI, quoted and cut: the failure's line on stderr carries it (adr/0057).
  const what = `Reading resource ${quotedClientText(uri)}`;
  let contents: JsonObject[] | undefined;
  try {
    const resource = call.snapshot.resources.byKey.get(uri);
    if (resource !== undefined) {
      contents = await runHandler(() => resource.read(ctx), {
        controller: call.ctx.controller,
        timeoutMs: timeout(resource.timeoutMs),
        what,
      }) as JsonObject[] | undefined;
    } else {
      for (const template of call.snapshot.templates.items) {
        const params = await template.match(uri);
        if (params === undefined) continue;
        contents = await runHandler(() => template.read(params, ctx), {
          controller: call.ctx.controller,
          timeoutMs: timeout(template.timeoutMs),
          what,
        }) as JsonObject[] | undefined;
        break;
      }
    }
  } catch (error) {
    // Stopped to ask the client first (2026-07-28): answered input_required.
    if (error instanceof InputRequired) return error.result();
    throw handlerFailure(call, what, error);
  }
  if (contents === undefined) throw resourceNotFound(uri, stateless);
  // Contents can change at any moment (files are read afresh): stale at once, and private
  // because a module may read per-user data.
  return stateless ? { contents, ttlMs: 0, cacheScope: "private" } : { contents };
}

/**
 * `resources/subscribe` (2025 era): remembers the URI in the session. Only a URI the server
 * serves may be subscribed to. (Nothing announces changes yet: resources change only with a
 * restart until the server watches its directory, adr/0013.)
 */
export async function subscribeMethod(call: MethodCall): Promise<JsonObject> {
  const uri = uriOf(call);
  const session = sessionOf(call);
  if (!await servesUri(call, uri)) throw resourceNotFound(uri, false);
  if (!session.subscriptions.has(uri) && session.subscriptions.size >= MAX_SUBSCRIPTIONS) {
    throw invalidParams(
      `Invalid params: a session may subscribe to at most ${MAX_SUBSCRIPTIONS} resources`,
    );
  }
  session.subscriptions.add(uri);
  return {};
}

/** `resources/unsubscribe` (2025 era): forgets the URI; one never subscribed to is no error. */
export function unsubscribeMethod(call: MethodCall): JsonObject {
  sessionOf(call).subscriptions.delete(uriOf(call));
  return {};
}

function sessionOf(call: MethodCall): Session {
  const { session } = call.ctx;
  if (session === undefined) {
    throw new ProtocolError(
      ErrorCode.InvalidRequest,
      `Invalid request: ${call.method} needs a connection that keeps a session`,
    );
  }
  return session;
}

function uriOf(call: MethodCall): string {
  const { uri } = call.params;
  if (typeof uri !== "string" || uri === "") {
    throw invalidParams("Invalid params: uri must be a non-empty string");
  }
  return uri;
}

async function servesUri(call: MethodCall, uri: string): Promise<boolean> {
  if (call.snapshot.resources.byKey.has(uri)) return true;
  for (const template of call.snapshot.templates.items) {
    if (await template.match(uri) !== undefined) return true;
  }
  return false;
}
