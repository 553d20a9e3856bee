/**
 * What tool authors import from toolshed. Importing it is optional: a tool file may
 * default-export a plain object, and `import type` is erased at run time.
 *
 * @module
 */
export type { Icon, ToolAnnotations, ToolContext, ToolDefinition } from "./lib/primitives/types.ts";
export type { JsonObject } from "./lib/util/json.ts";
export type { RequestId } from "./lib/wire/types.ts";
import type { ToolDefinition } from "./lib/primitives/types.ts";

/**
 * Returns the tool definition unchanged; it only gives the handler's arguments a type.
 *
 * @example Define a tool with typed arguments
 * ```ts
 * import { defineTool } from "./mod.ts";
 *
 * const greet = defineTool<{ name: string }>({
 *   description: "Greets someone by name",
 *   inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
 *   handler: ({ name }) => `Hello, ${name}!`,
 * });
 * if (greet.handler({ name: "Ada" }, {} as never) !== "Hello, Ada!") throw new Error("unexpected");
 * ```
 */
export function defineTool<Args = Record<string, unknown>>(
  definition: ToolDefinition<Args>,
): ToolDefinition<Args> {
  return definition;
}
