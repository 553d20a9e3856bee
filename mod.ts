/**
 * What tool authors import from toolshed. Importing it is optional: a tool file may
 * default-export a plain object, and `import type` is erased at run time.
 *
 * @module
 */

/**
 * A tool as a file in `tools/` default-exports it: a plain object, checked at start-up.
 *
 * @example A tool file's default export, checked by its type
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ToolDefinition } from "./mod.ts";
 *
 * // tools/add.ts
 * const add = {
 *   description: "Adds two numbers",
 *   inputSchema: {
 *     type: "object",
 *     properties: { a: { type: "number" }, b: { type: "number" } },
 *     required: ["a", "b"],
 *   },
 *   handler: ({ a, b }) => String(a + b),
 * } satisfies ToolDefinition<{ a: number; b: number }>;
 *
 * assert.equal(add.handler({ a: 2, b: 3 }), "5");
 * ```
 */
export type { ToolDefinition } from "./lib/primitives/types.ts";

/**
 * What a handler receives besides its arguments: the call's abort signal, its request id,
 * the client, and ways to report progress, log or ask the client.
 *
 * @example A handler that stops its work when the call is cancelled
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ToolContext, ToolDefinition } from "./mod.ts";
 *
 * const wait = {
 *   description: "Waits until cancelled, then says who cancelled which call",
 *   inputSchema: { type: "object" },
 *   handler: (_args: unknown, ctx: ToolContext) =>
 *     new Promise<string>((resolve) => {
 *       ctx.signal.addEventListener("abort", () => {
 *         resolve(`${ctx.toolName} call ${ctx.requestId}: ${ctx.signal.reason}`);
 *       });
 *     }),
 * } satisfies ToolDefinition;
 *
 * // The context the server would pass for request 7 of a 2026-07-28 client.
 * const controller = new AbortController();
 * const ctx: ToolContext = {
 *   signal: controller.signal,
 *   requestId: 7,
 *   toolName: "wait",
 *   protocolVersion: "2026-07-28",
 *   clientInfo: { name: "example-client", version: "1.0.0" },
 *   clientCapabilities: {},
 *   progress: () => {},
 *   log: () => {},
 *   request: () => Promise.reject(new Error("no way back to the client")),
 * };
 * const answer = wait.handler({}, ctx);
 * controller.abort("the user changed their mind");
 * assert.equal(await answer, "wait call 7: the user changed their mind");
 * ```
 */
export type { ToolContext } from "./lib/primitives/types.ts";

/**
 * Hints about a tool's behaviour that a client may show or act on; hints, not guarantees.
 *
 * @example A tool that only reads
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ToolAnnotations, ToolDefinition } from "./mod.ts";
 *
 * const annotations: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
 * const clock = {
 *   description: "Tells the time in UTC",
 *   inputSchema: { type: "object" },
 *   annotations,
 *   handler: () => new Date().toISOString(),
 * } satisfies ToolDefinition;
 *
 * assert.equal(clock.annotations.readOnlyHint, true);
 * ```
 */
export type { ToolAnnotations } from "./lib/primitives/types.ts";

/**
 * An icon a client may show for a tool: an `https:` or `data:` URI, optionally with its
 * media type, sizes and the theme it suits.
 *
 * @example An inline SVG icon
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Icon, ToolDefinition } from "./mod.ts";
 *
 * const icon: Icon = {
 *   src: `data:image/svg+xml;base64,${btoa('<svg xmlns="http://www.w3.org/2000/svg"/>')}`,
 *   mimeType: "image/svg+xml",
 *   theme: "light",
 * };
 * const ping = {
 *   description: "Answers pong",
 *   inputSchema: { type: "object" },
 *   icons: [icon],
 *   handler: () => "pong",
 * } satisfies ToolDefinition;
 *
 * assert.ok(ping.icons[0].src.startsWith("data:image/svg+xml;base64,"));
 * ```
 */
export type { Icon } from "./lib/primitives/types.ts";

/**
 * A JSON object: what a schema, `_meta` and structured content are.
 *
 * @example Structured output checked against an outputSchema
 * ```ts
 * import assert from "node:assert/strict";
 * import type { JsonObject, ToolDefinition } from "./mod.ts";
 *
 * const outputSchema: JsonObject = {
 *   type: "object",
 *   properties: { words: { type: "integer" } },
 *   required: ["words"],
 * };
 * const count = {
 *   description: "Counts the words of a text",
 *   inputSchema: { type: "object", properties: { text: { type: "string" } } },
 *   outputSchema,
 *   // Any JSON value other than a string or a CallToolResult becomes structuredContent.
 *   handler: ({ text }): JsonObject => ({ words: text.split(/\s+/).filter(Boolean).length }),
 * } satisfies ToolDefinition<{ text: string }>;
 *
 * assert.deepEqual(count.handler({ text: "one two  three" }), { words: 3 });
 * ```
 */
export type { JsonObject } from "./lib/util/json.ts";

/**
 * The JSON-RPC id of a request (`ctx.requestId`): a string or an integer.
 *
 * @example Naming a call in a log line
 * ```ts
 * import assert from "node:assert/strict";
 * import type { RequestId } from "./mod.ts";
 *
 * function callLabel(id: RequestId): string {
 *   return typeof id === "string" ? `call "${id}"` : `call #${id}`;
 * }
 * assert.equal(callLabel(7), "call #7");
 * assert.equal(callLabel("a-1"), 'call "a-1"');
 * ```
 */
export type { RequestId } from "./lib/wire/types.ts";

/**
 * A log message's severity for `ctx.log`, least severe first: debug, info, notice, warning,
 * error, critical, alert, emergency.
 *
 * @example Logging a failure the client may show
 * ```ts
 * import assert from "node:assert/strict";
 * import type { LogLevel, ToolContext } from "./mod.ts";
 *
 * const sent: [LogLevel, unknown][] = [];
 * const ctx = { log: (level: LogLevel, data: unknown) => sent.push([level, data]) };
 * function report(ctx: Pick<ToolContext, "log">, error: Error): void {
 *   ctx.log("error", { message: error.message }, "fetcher");
 * }
 * report(ctx, new Error("timed out"));
 * assert.deepEqual(sent, [["error", { message: "timed out" }]]);
 * ```
 */
export type { LogLevel } from "./lib/primitives/types.ts";

/**
 * What `ctx.request` may ask a 2025-era client: `sampling/createMessage`,
 * `elicitation/create` or `roots/list`.
 *
 * @example Asking the client for its roots
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ClientRequestMethod, JsonObject, ToolContext } from "./mod.ts";
 *
 * const asked: ClientRequestMethod[] = [];
 * const ctx: Pick<ToolContext, "request"> = {
 *   request: (method: ClientRequestMethod, _params: JsonObject) => {
 *     asked.push(method);
 *     return Promise.resolve({ roots: [{ uri: "file:///work" }] });
 *   },
 * };
 * const { roots } = await ctx.request("roots/list", {});
 * assert.deepEqual(roots, [{ uri: "file:///work" }]);
 * assert.deepEqual(asked, ["roots/list"]);
 * ```
 */
export type { ClientRequestMethod } from "./lib/primitives/types.ts";

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
