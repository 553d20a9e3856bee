// `skills/list` and `skills/get`, the methods of the skills extension (SEP-2640, adr/0047):
// the discovery layer built each skill's entry when its folder loaded; this pages them and
// finds one by the URI of its SKILL.md, however the client spells it.
import type { JsonObject } from "../util/json.ts";
import { invalidParams, methodNotFound } from "../wire/errors.ts";
import { page } from "../primitives/paging.ts";
import { canonicalUri } from "../primitives/skill_id.ts";
import type { MethodCall } from "./call.ts";

/** One page of the skills, by the URI of their SKILL.md. */
export function listSkillsMethod(call: MethodCall): JsonObject {
  withSkills(call);
  const { items, nextCursor } = page(
    call.snapshot.skills,
    call.params.cursor,
    call.options.pageSize,
    (skill) => skill.entry as JsonObject,
    "skills",
  );
  // A 2026-07-28 answer gets its ttlMs and cacheScope, which the extension requires there,
  // where every list gets them (core/stamp.ts: the table marks both methods cacheable).
  return nextCursor === undefined ? { skills: items } : { skills: items, nextCursor };
}

/** The skill whose SKILL.md is at `uri`; one not served is -32602, as the SDK answers it. */
export function getSkillMethod(call: MethodCall): JsonObject {
  withSkills(call);
  const { uri } = call.params;
  if (typeof uri !== "string" || uri === "") {
    throw invalidParams("Invalid params: uri must be a non-empty string");
  }
  const canonical = canonicalUri(uri);
  const skill = canonical === undefined ? undefined : call.snapshot.skills.byKey.get(canonical);
  if (skill === undefined) throw invalidParams(`No skill is served at "${uri}"`);
  return { skill: skill.entry as JsonObject };
}

/**
 * A server without skills does not declare the extension, and its methods are then unknown,
 * as the core answers a method whose capability is not declared (core/handle.ts).
 */
function withSkills(call: MethodCall): void {
  if (call.snapshot.skills.items.length === 0) throw methodNotFound(call.method);
}
