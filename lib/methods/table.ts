// The method table: every method the server answers, the eras it exists in, the capability
// it needs and how its results may look. The advertised capabilities are derived from it,
// so serving a new method is one entry here and its handler beside it.
import type { JsonObject } from "../util/json.ts";
import type { Era } from "../wire/versions.ts";
import type { Snapshot } from "../primitives/registry.ts";
import type { MethodEntry, MethodTable } from "./call.ts";
import { discover, initialize, ping } from "./lifecycle.ts";
import { callToolMethod, listToolsMethod } from "./tools.ts";
import {
  listResourcesMethod,
  listResourceTemplatesMethod,
  readResourceMethod,
  subscribeMethod,
  unsubscribeMethod,
} from "./resources.ts";
import { getPromptMethod, listPromptsMethod } from "./prompts.ts";
import { completeMethod } from "./completion.ts";
import { setLevelMethod } from "./logging.ts";
import { listenMethod } from "./listen.ts";
import { completionScopes, listenScopes, promptScopes, readScopes, toolScopes } from "./scopes.ts";
import { cancelTaskMethod, getTaskMethod, updateTaskMethod } from "./tasks.ts";
import { TASKS_EXTENSION } from "../tasks/tasks.ts";
import { SKILLS_EXTENSION } from "../primitives/skill_id.ts";
import { getSkillMethod, listSkillsMethod } from "./skills.ts";
import { APP_MIME_TYPE, isApp, UI_EXTENSION } from "../primitives/apps.ts";

const hasResources = (snapshot: Snapshot) =>
  snapshot.resources.items.length > 0 || snapshot.templates.items.length > 0;
const hasPrompts = (snapshot: Snapshot) => snapshot.prompts.items.length > 0;
const hasTaskTools = (snapshot: Snapshot) =>
  snapshot.tools.items.some((tool) => tool.task !== undefined);
const taskMethod = (handler: MethodEntry["handler"]): MethodEntry => ({
  eras: ["stateless"],
  extension: TASKS_EXTENSION,
  available: hasTaskTools,
  handler,
});
const hasSkills = (snapshot: Snapshot) => snapshot.skills.items.length > 0;
/** A method of the skills extension: in both eras, as the official SDK serves it. */
const skillMethod = (handler: MethodEntry["handler"]): MethodEntry => ({
  eras: ["stateless", "session"],
  extension: SKILLS_EXTENSION,
  available: hasSkills,
  cacheable: true,
  handler,
});
const canComplete = (snapshot: Snapshot) =>
  snapshot.prompts.items.some((prompt) => prompt.completers.size > 0) ||
  snapshot.templates.items.some((template) => template.completers.size > 0);

/** The methods toolshed serves today. */
export const METHODS: MethodTable = new Map<string, MethodEntry>([
  ["initialize", { eras: ["session"], session: "opens", handler: initialize }],
  ["ping", { eras: ["session"], handler: ping }],
  ["server/discover", {
    eras: ["stateless"],
    session: "ignores",
    cacheable: true,
    handler: discover,
  }],
  ["tools/list", {
    eras: ["stateless", "session"],
    capability: "tools",
    cacheable: true,
    handler: listToolsMethod,
  }],
  ["tools/call", {
    eras: ["stateless", "session"],
    capability: "tools",
    incomplete: ["input_required", "task"],
    scopes: toolScopes,
    handler: callToolMethod,
  }],
  ["resources/list", {
    eras: ["stateless", "session"],
    capability: "resources",
    available: hasResources,
    cacheable: true,
    handler: listResourcesMethod,
  }],
  ["resources/templates/list", {
    eras: ["stateless", "session"],
    capability: "resources",
    available: hasResources,
    cacheable: true,
    handler: listResourceTemplatesMethod,
  }],
  ["resources/read", {
    eras: ["stateless", "session"],
    capability: "resources",
    available: hasResources,
    cacheable: true,
    incomplete: ["input_required"],
    scopes: readScopes,
    handler: readResourceMethod,
  }],
  ["resources/subscribe", {
    eras: ["session"],
    capability: "resources",
    available: hasResources,
    advertises: Object.freeze({ subscribe: true }),
    scopes: readScopes,
    handler: subscribeMethod,
  }],
  ["resources/unsubscribe", {
    eras: ["session"],
    capability: "resources",
    available: hasResources,
    handler: unsubscribeMethod,
  }],
  ["prompts/list", {
    eras: ["stateless", "session"],
    capability: "prompts",
    available: hasPrompts,
    cacheable: true,
    handler: listPromptsMethod,
  }],
  ["prompts/get", {
    eras: ["stateless", "session"],
    capability: "prompts",
    available: hasPrompts,
    incomplete: ["input_required"],
    scopes: promptScopes,
    handler: getPromptMethod,
  }],
  ["completion/complete", {
    eras: ["stateless", "session"],
    capability: "completions",
    available: canComplete,
    scopes: completionScopes,
    handler: completeMethod,
  }],
  ["logging/setLevel", { eras: ["session"], capability: "logging", handler: setLevelMethod }],
  ["subscriptions/listen", {
    eras: ["stateless"],
    longLived: true,
    scopes: listenScopes,
    handler: listenMethod,
  }],
  ["skills/list", skillMethod(listSkillsMethod)],
  ["skills/get", skillMethod(getSkillMethod)],
  ["tasks/get", taskMethod(getTaskMethod)],
  ["tasks/update", taskMethod(updateTaskMethod)],
  ["tasks/cancel", taskMethod(cancelTaskMethod)],
]);

/**
 * The capabilities a table gives the server for one snapshot, as a client of `era` sees
 * them: one key per capability some method needs and the snapshot has something for, in
 * every era (a capability is the server's: `logging` rests on a 2025-era method, yet a
 * 2026-07-28 client uses it through its per-request log level), with the members methods
 * of that era add. Frozen: answers share it.
 */
export function capabilitiesOf(
  table: MethodTable,
  snapshot: Snapshot,
  era: Era,
): Readonly<JsonObject> {
  const capabilities: Record<string, JsonObject> = {};
  for (const entry of table.values()) {
    const { capability, extension } = entry;
    if (extension !== undefined) {
      if (entry.eras.includes(era) && entry.available?.(snapshot) !== false) {
        (capabilities.extensions ??= {})[extension] = {};
      }
      continue;
    }
    if (capability === undefined || entry.available?.(snapshot) === false) continue;
    capabilities[capability] ??= {};
    if (entry.advertises && entry.eras.includes(era)) {
      Object.assign(capabilities[capability], entry.advertises);
    }
  }
  // MCP Apps (adr/0048): the server declares the extension, with the MIME type its apps are,
  // in the shape clients declare theirs (`McpUiClientCapabilities`), only when it serves one.
  if (capabilities.resources !== undefined && snapshot.resources.items.some(isApp)) {
    (capabilities.extensions ??= {})[UI_EXTENSION] = { mimeTypes: [APP_MIME_TYPE] };
  }
  for (const key in capabilities) Object.freeze(capabilities[key]);
  return Object.freeze(capabilities);
}
