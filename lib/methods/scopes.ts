// What each method asks of the caller's token: the scopes of the primitive a request names
// (the tool called, the resource read, the prompt got, what a completion completes). Each is
// found at once, before any handler runs (core/authorize.ts), so that a refusal can still be
// an HTTP 403. A request naming nothing known asks nothing: its handler answers it as usual.
import { isObject } from "../util/json.ts";
import { NO_SCOPES } from "../primitives/scopes.ts";
import { NOT_READY } from "../primitives/uri_template.ts";
import type { Snapshot } from "../primitives/registry.ts";
import type { MethodCall } from "./call.ts";

/** `tools/call`: the tool's. */
export function toolScopes(call: MethodCall): readonly string[] {
  const { name } = call.params;
  return typeof name === "string"
    ? call.snapshot.tools.byKey.get(name)?.scopes ?? NO_SCOPES
    : NO_SCOPES;
}

/** `prompts/get`: the prompt's. */
export function promptScopes(call: MethodCall): readonly string[] {
  const { name } = call.params;
  return typeof name === "string"
    ? call.snapshot.prompts.byKey.get(name)?.scopes ?? NO_SCOPES
    : NO_SCOPES;
}

/** `resources/read` and `resources/subscribe`: those of what serves the URI. */
export function readScopes(call: MethodCall): readonly string[] {
  const { uri } = call.params;
  return typeof uri === "string" ? scopesOfUri(call.snapshot, uri) : NO_SCOPES;
}

/** `subscriptions/listen`: every scope of every resource it subscribes to. */
export function listenScopes(call: MethodCall): readonly string[] {
  const { notifications } = call.params;
  const uris = isObject(notifications) ? notifications.resourceSubscriptions : undefined;
  if (!Array.isArray(uris)) return NO_SCOPES;
  const all = new Set<string>();
  for (const uri of uris) {
    if (typeof uri !== "string") continue;
    for (const scope of scopesOfUri(call.snapshot, uri)) all.add(scope);
  }
  return all.size === 0 ? NO_SCOPES : [...all];
}

/** `completion/complete`: those of the prompt or the template it completes an argument of. */
export function completionScopes(call: MethodCall): readonly string[] {
  const { ref } = call.params;
  if (!isObject(ref)) return NO_SCOPES;
  if (ref.type === "ref/prompt" && typeof ref.name === "string") {
    return call.snapshot.prompts.byKey.get(ref.name)?.scopes ?? NO_SCOPES;
  }
  if (ref.type === "ref/resource" && typeof ref.uri === "string") {
    const uri = ref.uri;
    const template = call.snapshot.templates.items.find((item) => item.uriTemplate === uri);
    return template?.scopes ?? call.snapshot.resources.byKey.get(uri)?.scopes ?? NO_SCOPES;
  }
  return NO_SCOPES;
}

/**
 * The scopes of what serves `uri` as a read would find it: the fixed resource, else the first
 * template (by name) that produces it. Templates that ask for scopes load the matching
 * library at start-up (discovery/resources_dir.ts); were it somehow not loaded yet, every
 * template's scopes are asked, closed rather than open.
 */
function scopesOfUri(snapshot: Snapshot, uri: string): readonly string[] {
  const resource = snapshot.resources.byKey.get(uri);
  if (resource !== undefined) return resource.scopes;
  const templates = snapshot.templates.items;
  for (const template of templates) {
    const params = template.matchNow(uri);
    if (params === NOT_READY) return [...new Set(templates.flatMap((item) => item.scopes))];
    if (params !== undefined) return template.scopes;
  }
  return NO_SCOPES;
}
