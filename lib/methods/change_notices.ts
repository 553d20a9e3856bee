// What a client hears when the server directory changes while it is connected (a reload swaps
// the registry's snapshot): in a 2025-era session, `notifications/<kind>/list_changed` for each
// kind whose list changed, when the server offers `listChanged`, and
// `notifications/resources/updated` for each subscribed resource that changed or went away.
// A skill's files are resources (most only through its template): an edit to any of them changes
// its entry's digests, and is announced as the resource list changing, as the skills extension's
// reference server announces skills changing (adr/0057).
// (2026-07-28 clients learn it from `subscriptions/listen`, which comes later, or by listing
// again when their cache hint runs out.)
import type { JsonObject } from "../util/json.ts";
import type { Catalog, Snapshot } from "../primitives/registry.ts";
import type { Session } from "./session.ts";

/** The notifications `session` should get for the swap from `previous` to `next`. */
export function changeNotices(
  previous: Snapshot,
  next: Snapshot,
  session: Session,
  listChanged: boolean,
): JsonObject[] {
  if (session.pin.era !== "session") return [];
  const notices: JsonObject[] = [];
  const notify = (method: string, params?: JsonObject) =>
    notices.push(params ? { jsonrpc: "2.0", method, params } : { jsonrpc: "2.0", method });
  if (listChanged) {
    const changed = changedLists(previous, next);
    for (const kind of ["tools", "prompts", "resources"] as const) {
      if (changed[kind]) notify(`notifications/${kind}/list_changed`);
    }
  }
  for (const uri of updatedResources(previous, next, session.subscriptions)) {
    notify("notifications/resources/updated", { uri });
  }
  return notices;
}

/** Which lists a swap changed. */
export function changedLists(
  previous: Snapshot,
  next: Snapshot,
): Record<"tools" | "prompts" | "resources", boolean> {
  return {
    tools: differ(previous.tools, next.tools, (tool) => tool.definition),
    prompts: differ(previous.prompts, next.prompts, (prompt) => prompt.listing),
    resources: differ(previous.resources, next.resources, (resource) => resource.listing) ||
      differ(previous.templates, next.templates, (template) => template.listing) ||
      differ(previous.skills, next.skills, (skill) => skill.entry),
  };
}

/** Of `uris`, the resources a swap changed or removed. */
export function updatedResources(
  previous: Snapshot,
  next: Snapshot,
  uris: Iterable<string>,
): string[] {
  const updated: string[] = [];
  for (const uri of uris) {
    const before = previous.resources.byKey.get(uri);
    if (before === undefined) {
      if (skillFileChanged(previous, next, uri)) updated.push(uri);
      continue;
    }
    const after = next.resources.byKey.get(uri);
    // A file resource's listing carries its size and modification time.
    if (after === undefined || JSON.stringify(after.listing) !== JSON.stringify(before.listing)) {
      updated.push(uri);
    }
  }
  return updated;
}

/** Whether `uri` is a skill's file (not a listed resource) whose digest a swap changed or removed. */
function skillFileChanged(previous: Snapshot, next: Snapshot, uri: string): boolean {
  const digestOf = (snapshot: Snapshot) => {
    for (const skill of snapshot.skills.items) {
      const file = skill.files.find((each) => each.uri === uri);
      if (file !== undefined) return file.digest;
    }
    return undefined;
  };
  const before = previous.skills.items.length === 0 ? undefined : digestOf(previous);
  return before !== undefined && digestOf(next) !== before;
}

/** Whether two catalogs list other items, or items that look different on the wire. */
function differ<P>(a: Catalog<P>, b: Catalog<P>, wire: (item: P) => unknown): boolean {
  if (a.keys.length !== b.keys.length) return true;
  for (let i = 0; i < a.keys.length; i++) {
    if (a.keys[i] !== b.keys[i]) return true;
    const [x, y] = [a.items[i], b.items[i]];
    if (x !== y && JSON.stringify(wire(x)) !== JSON.stringify(wire(y))) return true;
  }
  return false;
}
