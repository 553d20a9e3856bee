// A mounted tool (adr/0071 §2): the upstream tool as a model sees it (its pinned definition),
// corrected by the mount's block (title, description, annotations, scopes, rate limit, timeout,
// task), named `<stem>_<name>`, checked as any tool is, with the relay for its handler.
import { checkDefinition, type Tool } from "../primitives/tools.ts";
import { refuseUnsafePatterns } from "../schema/pattern_safety.ts";
import { correctionFor, type MountFile, servedName } from "./mount_file.ts";
import type { Seen } from "./pins.ts";
import { relayHandler } from "./relay.ts";
import { correctedDefinition } from "./corrections.ts";

/** What the relay of each of a mount's tools shares (all but the tool's own name and schema). */
type Relay = Omit<Parameters<typeof relayHandler>[0], "upstreamName" | "inputSchema">;

/** Throws, saying why, when toolshed cannot serve the tool (its schema, its name). */
export async function mountedTool(
  seen: Seen,
  mount: MountFile,
  relay: Relay,
): Promise<Tool> {
  const correction = correctionFor(mount.block, seen.name);
  const annotations = { ...seen.annotations, ...correction.annotations };
  const definition = correctedDefinition({
    name: servedName(mount, seen.name),
    title: correction.title ?? seen.title,
    description: correction.description ?? seen.description,
    inputSchema: seen.inputSchema,
    outputSchema: seen.outputSchema,
    annotations: Object.keys(annotations).length === 0 ? undefined : annotations,
    handler: relayHandler({ ...relay, upstreamName: seen.name, inputSchema: seen.inputSchema }),
  }, correction);
  const tool = checkDefinition(definition, seen.name, mount.file);
  await refuseUnsafePatterns(tool.definition.inputSchema, "inputSchema");
  if (tool.definition.outputSchema !== undefined) {
    await refuseUnsafePatterns(tool.definition.outputSchema, "outputSchema");
  }
  return mount.block.auth.kind === "exchange"
    ? { ...tool, toolset: mount.stem, forwardsIdentity: true }
    : { ...tool, toolset: mount.stem };
}
