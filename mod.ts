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
 *   closeStream: () => false,
 * };
 * const answer = wait.handler({}, ctx);
 * controller.abort("the user changed their mind");
 * assert.equal(await answer, "wait call 7: the user changed their mind");
 * ```
 */
export type { ToolContext } from "./lib/primitives/types.ts";

/**
 * Who is calling, as `ctx.auth` gives it when the server signs callers in with OAuth
 * (`--auth-issuer`): the subject, the client, the scopes granted, the issuer, the expiry and
 * every claim; never the token itself. Undefined over stdio and with a shared token.
 *
 * @example A tool that greets the signed-in user
 * ```ts
 * import assert from "node:assert/strict";
 * import type { AuthInfo, ToolContext, ToolDefinition } from "./mod.ts";
 *
 * const hello = {
 *   description: "Greets whoever is signed in",
 *   inputSchema: { type: "object" },
 *   handler: (_args, ctx) => `Hello, ${ctx.auth?.subject ?? "stranger"}`,
 * } satisfies ToolDefinition;
 * const auth: AuthInfo = {
 *   subject: "alice",
 *   clientId: "claude",
 *   scopes: ["mcp"],
 *   issuer: "https://login.example.com",
 *   expiresAt: undefined,
 *   claims: { sub: "alice" },
 * };
 * assert.equal(hello.handler({}, { auth } as ToolContext), "Hello, alice");
 * ```
 */
export type { AuthInfo } from "./lib/primitives/types.ts";

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

/**
 * A resource with a fixed URI, as a module in `resources/` default-exports it: the fields
 * `resources/list` shows and a `read` that returns its contents (any other file in
 * `resources/` is served as it is, without code).
 *
 * @example A resource computed when it is read
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ResourceContext, ResourceDefinition, UriParams } from "./mod.ts";
 *
 * // resources/status.ts
 * const status = {
 *   uri: "status://server",
 *   description: "The server's status, as JSON",
 *   mimeType: "application/json",
 *   read: (_params: UriParams, ctx: ResourceContext) => JSON.stringify({ ok: true, uri: ctx.uri }),
 * } satisfies ResourceDefinition;
 *
 * const ctx = { uri: "status://server" } as ResourceContext;
 * assert.equal(status.read({}, ctx), '{"ok":true,"uri":"status://server"}');
 * ```
 */
export type { ResourceDefinition } from "./lib/primitives/types.ts";

/**
 * A family of resources under an RFC 6570 URI template, as a module in `resources/`
 * default-exports it: `read` receives the variables of the URI the client asked for, and
 * `complete` offers values for them.
 *
 * @example Notes by topic, with their topics to complete
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ResourceContext, ResourceTemplateDefinition, UriParams } from "./mod.ts";
 *
 * const NOTES: Record<string, string> = { deno: "Deno runs TypeScript.", mcp: "MCP links tools." };
 * const notes = {
 *   uriTemplate: "notes://{topic}",
 *   description: "A short note on a topic",
 *   mimeType: "text/plain",
 *   complete: { topic: Object.keys(NOTES) },
 *   // undefined: nothing at this URI, and the client is told "Resource not found".
 *   read: ({ topic }: UriParams, _ctx: ResourceContext) => NOTES[String(topic)],
 * } satisfies ResourceTemplateDefinition;
 *
 * const ctx = { uri: "notes://deno" } as ResourceContext;
 * assert.equal(notes.read({ topic: "deno" }, ctx), "Deno runs TypeScript.");
 * assert.equal(notes.read({ topic: "cobol" }, ctx), undefined);
 * ```
 */
export type { ResourceTemplateDefinition } from "./lib/primitives/types.ts";

/**
 * What a resource's `read` receives besides the URI's variables: the URI being read, and
 * everything a tool's handler gets (signal, client, progress, log).
 *
 * @example Naming the URI in what is read
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ResourceContext } from "./mod.ts";
 *
 * const read = (_params: unknown, ctx: Pick<ResourceContext, "uri">) => `You asked for ${ctx.uri}`;
 * assert.equal(read({}, { uri: "notes://deno" }), "You asked for notes://deno");
 * ```
 */
export type { ResourceContext } from "./lib/primitives/types.ts";

/**
 * The variables a URI matched in a template: a string each, or a list for an exploded one.
 *
 * @example Reading an exploded path variable
 * ```ts
 * import assert from "node:assert/strict";
 * import type { UriParams } from "./mod.ts";
 *
 * const params: UriParams = { repo: "toolshed", path: ["lib", "core"] };
 * const path = Array.isArray(params.path) ? params.path.join("/") : params.path;
 * assert.equal(path, "lib/core");
 * ```
 */
export type { UriParams } from "./lib/primitives/types.ts";

/**
 * Hints about a resource for the client: its audience, its priority (0 to 1) and when it
 * last changed.
 *
 * @example A resource meant for the model, changed at a known time
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ResourceAnnotations } from "./mod.ts";
 *
 * const annotations: ResourceAnnotations = {
 *   audience: ["assistant"],
 *   priority: 0.8,
 *   lastModified: new Date(0).toISOString(),
 * };
 * assert.equal(annotations.lastModified, "1970-01-01T00:00:00.000Z");
 * ```
 */
export type { ResourceAnnotations } from "./lib/primitives/types.ts";

/**
 * A prompt as a module in `prompts/` default-exports it: arguments, and a `get` that turns
 * them into messages (a Markdown file with front matter in `prompts/` is a prompt too).
 *
 * @example A prompt that starts the assistant's answer
 * ```ts
 * import assert from "node:assert/strict";
 * import type { PromptContext, PromptDefinition } from "./mod.ts";
 *
 * // prompts/explain.ts
 * const explain = {
 *   description: "Asks for an explanation of a piece of code",
 *   arguments: [{ name: "code", description: "The code to explain", required: true }],
 *   get: ({ code }: { code: string }, _ctx: PromptContext) => [
 *     { role: "user" as const, content: `Explain this code:\n\n${code}` },
 *     { role: "assistant" as const, content: "This code" },
 *   ],
 * } satisfies PromptDefinition<{ code: string }>;
 *
 * const messages = explain.get({ code: "1 + 1" }, {} as PromptContext);
 * assert.equal(messages[0].content, "Explain this code:\n\n1 + 1");
 * ```
 */
export type { PromptDefinition } from "./lib/primitives/types.ts";

/**
 * What a prompt's `get` receives besides its arguments: the prompt's name, and everything
 * a tool's handler gets.
 *
 * @example A prompt that mentions the client
 * ```ts
 * import assert from "node:assert/strict";
 * import type { PromptContext } from "./mod.ts";
 *
 * const get = (_args: unknown, ctx: Pick<PromptContext, "promptName" | "clientInfo">) =>
 *   `${ctx.promptName} for ${ctx.clientInfo?.name ?? "an unnamed client"}`;
 * assert.equal(get({}, { promptName: "greet", clientInfo: undefined }), "greet for an unnamed client");
 * ```
 */
export type { PromptContext } from "./lib/primitives/types.ts";

/**
 * An argument a prompt takes: always a string on the wire, required or not.
 *
 * @example A required argument
 * ```ts
 * import assert from "node:assert/strict";
 * import type { PromptArgument } from "./mod.ts";
 *
 * const language: PromptArgument = { name: "language", description: "e.g. go", required: true };
 * assert.equal(language.required, true);
 * ```
 */
export type { PromptArgument } from "./lib/primitives/types.ts";

/**
 * One message of a prompt: a role and a content block, or a string for a text block.
 *
 * @example A user message with an image
 * ```ts
 * import assert from "node:assert/strict";
 * import type { PromptMessage } from "./mod.ts";
 *
 * const message: PromptMessage = {
 *   role: "user",
 *   content: { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
 * };
 * assert.equal(message.role, "user");
 * ```
 */
export type { PromptMessage } from "./lib/primitives/types.ts";

/**
 * Values for a prompt's argument or a template's variable: a list, offered by
 * case-insensitive prefix, or a function of what the user typed so far.
 *
 * @example Completing from a list, and from a function
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Completer, CompletionContext } from "./mod.ts";
 *
 * const languages: Completer = ["go", "python", "rust", "typescript"];
 * const years: Completer = (value: string, _context: CompletionContext) =>
 *   ["2024", "2025", "2026"].filter((year) => year.startsWith(value));
 * assert.equal(languages.length, 4);
 * const context = { arguments: {}, signal: new AbortController().signal };
 * assert.deepEqual(await years("202", context), ["2024", "2025", "2026"]);
 * ```
 */
export type { Completer, CompletionContext } from "./lib/primitives/types.ts";

/**
 * What every handler receives (a tool's, a resource's, a prompt's): the request's signal,
 * id, client, and ways to report progress, log or ask the client.
 *
 * @example A helper that works for any handler
 * ```ts
 * import assert from "node:assert/strict";
 * import type { HandlerContext } from "./mod.ts";
 *
 * function stopped(ctx: Pick<HandlerContext, "signal">): boolean {
 *   return ctx.signal.aborted;
 * }
 * assert.equal(stopped({ signal: AbortSignal.abort() }), true);
 * ```
 */
export type { HandlerContext } from "./lib/primitives/types.ts";

/**
 * Code around every request (adr/0025): given the rest of the chain, `next`, it returns the
 * handler of a call. A server directory's `middleware/` folder holds one per file, as its
 * default export, run in file-name order (the first outermost) and reloaded with `--watch`;
 * `createServer({ middleware })` takes more, run outside those. A middleware sees the call
 * the method's handler will (`method`, `params`, `id`, the client, `signal`, `transport`,
 * `sessionId`) and its result before toolshed stamps the 2026-07-28 fields. It may pass `next`
 * a copy with other `params`, answer without calling `next`, or throw an `McpError` to answer
 * with that JSON-RPC error.
 *
 * @example An audit line per tool call (middleware/audit.ts)
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Call, Middleware } from "./mod.ts";
 *
 * const lines: string[] = [];
 * const audit: Middleware = (next) => async (call) => {
 *   if (call.method !== "tools/call") return next(call);
 *   const started = performance.now();
 *   let outcome = "error";
 *   try {
 *     const result = await next(call);
 *     outcome = result.isError === true ? "tool error" : "ok";
 *     return result;
 *   } finally {
 *     const ms = (performance.now() - started).toFixed(1);
 *     lines.push(`${call.params.name} ${outcome} ${ms} ms (${call.transport})`);
 *   }
 * };
 * // export default audit;
 *
 * // How the server runs it: the rest of the chain is `next`.
 * const handler = audit(() => ({ content: [{ type: "text", text: "5" }] }));
 * const call = {
 *   method: "tools/call",
 *   params: { name: "add", arguments: { a: 2, b: 3 } },
 *   transport: "stdio",
 * } as unknown as Call;
 * assert.deepEqual(await handler(call), { content: [{ type: "text", text: "5" }] });
 * assert.match(lines[0], /^add ok \d+\.\d ms \(stdio\)$/);
 * ```
 */
export type { Call, CallHandler, Middleware } from "./lib/primitives/types.ts";

import type { FromSchema, ToolSchema, TypedToolDefinition } from "./lib/primitives/types.ts";

/**
 * Returns the tool definition unchanged; it only gives the handler's arguments a type.
 *
 * Without a type argument, the arguments' type comes from `inputSchema` (adr/0069): from a
 * JSON Schema written inline or `as const` (`properties` and `required`, `type`, `items`,
 * `enum`, `const`; anything else is `unknown`), or from a schema library's schema (Zod 4,
 * Valibot, ArkType: any Standard Schema) as its output type. An `outputSchema` types what the
 * handler returns. `defineTool<Args>(…)` gives the arguments' type by hand instead.
 *
 * @example Define a tool whose arguments are typed from its schema
 * ```ts
 * import { defineTool } from "./mod.ts";
 *
 * const greet = defineTool({
 *   description: "Greets someone by name",
 *   inputSchema: {
 *     type: "object",
 *     properties: { name: { type: "string" }, times: { type: "integer" } },
 *     required: ["name"],
 *   },
 *   // name: string, times: number | undefined
 *   handler: ({ name, times = 1 }) => `Hello, ${name}!`.repeat(times),
 * });
 * if (greet.handler({ name: "Ada" }, {} as never) !== "Hello, Ada!") throw new Error("unexpected");
 *
 * const shout = defineTool<{ text: string }>({
 *   description: "Says it louder",
 *   inputSchema: { type: "object", properties: { text: { type: "string" } } },
 *   handler: ({ text }) => text.toUpperCase(),
 * });
 * if (shout.handler({ text: "hi" }, {} as never) !== "HI") throw new Error("unexpected");
 * ```
 */
export function defineTool<
  Args = FromSchema,
  const In extends ToolSchema = ToolSchema,
  const Out extends ToolSchema = ToolSchema,
>(definition: TypedToolDefinition<NoInfer<Args>, In, Out>): TypedToolDefinition<Args, In, Out> {
  return definition;
}

/**
 * A JSON-RPC error a handler throws to answer with it, instead of the `isError` result any
 * other thrown error becomes: for a fault of the request rather than of the tool's work. In
 * a task, it fails the task (`status: "failed"` with this `error`).
 *
 * @example Refuse with a JSON-RPC error
 * ```ts
 * import assert from "node:assert/strict";
 * import { McpError } from "./mod.ts";
 *
 * const error = new McpError(-32603, "The ledger is unreachable", { retryAfterMs: 5000 });
 * assert.deepEqual(error.toRpcError(), {
 *   code: -32603,
 *   message: "The ledger is unreachable",
 *   data: { retryAfterMs: 5000 },
 * });
 * ```
 */
export { ProtocolError as McpError } from "./lib/wire/errors.ts";

import type { TestServer, TestServerOptions } from "./lib/testing/test_server.ts";

/**
 * What `testServer` serves, how each request is sent, and what it answers with: a call's
 * `CallResult` (its `content` blocks, each a `Content`), typed by the tool it names.
 *
 * @example Options for a server directory beside the test file, and a helper over results
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CallResult, Content, RequestOptions, TestServerOptions } from "./mod.ts";
 *
 * const options: TestServerOptions = { dir: new URL("./", import.meta.url), toolTimeoutMs: 5_000 };
 * const call: RequestOptions = { answer: () => ({ action: "accept", content: { name: "Ada" } }) };
 * assert.equal(options.toolTimeoutMs, 5_000);
 * assert.deepEqual(call.answer?.("elicitation/create", {}), {
 *   action: "accept",
 *   content: { name: "Ada" },
 * });
 *
 * // Every block declares `text` (undefined but in a text block); `type` narrows.
 * const textOf = (result: CallResult) => result.content.map((block) => block.text ?? "").join("");
 * const image: Content = { type: "image", data: "R0lGODlhAQABAAAAACw=", mimeType: "image/gif" };
 * const result: CallResult = { content: [{ type: "text", text: "a pixel: " }, image] };
 * assert.equal(textOf(result), "a pixel: ");
 * assert.equal(image.type === "image" ? image.mimeType : undefined, "image/gif");
 * ```
 */
export type { CallResult, Content } from "./lib/testing/results.ts";
export type {
  RequestOptions,
  TestResult,
  TestServer,
  TestServerOptions,
} from "./lib/testing/test_server.ts";

/**
 * Loads a server directory with the loader `toolshed serve` uses and answers requests in
 * the test's own process, through the same request core: arguments are validated, calls
 * time out and results are checked as for a client. For tests of one's own tools with
 * `Deno.test`; a directory with a problem rejects with every problem listed.
 *
 * The helper is imported only when it is called, so a tool importing this module to throw
 * an `McpError` loads nothing more.
 *
 * @example Testing tools with Deno.test, typed by the tools called
 * ```ts
 * import assert from "node:assert/strict";
 * import { testServer } from "./mod.ts";
 * import type divide from "./tools/divide.ts";
 * import type echo from "./tools/echo.ts";
 *
 * // In your tests/tools_test.ts: testServer({ dir: new URL("../", import.meta.url) }),
 * // inside a Deno.test. Here: this repository's own tools/, resources/ and prompts/.
 * // The type argument maps tool names to their definitions: a call to one of them takes the
 * // arguments its inputSchema (or its handler) describes, and its structuredContent is the
 * // type its outputSchema describes.
 * const server = await testServer<{ echo: typeof echo; divide: typeof divide }>({
 *   dir: new URL("./", import.meta.url),
 * });
 *
 * const echoed = await server.call("echo", { text: "hi" });
 * assert.equal(echoed.content[0].text, "hi");
 * assert.deepEqual(echoed, { content: [{ type: "text", text: "hi" }] });
 * // A thrown error, or arguments the inputSchema refuses, is a result the model can read.
 * const failed = await server.call("divide", { dividend: 1, divisor: 0 });
 * assert.equal(failed.isError, true);
 * assert.equal(failed.content[0].text, 'Cannot divide "1" by zero');
 * const wrong = { dividend: "one", divisor: 2 };
 * // @ts-expect-error: dividend is a number; the server refuses it as it would a client's
 * const refused = await server.call("divide", wrong);
 * assert.equal(refused.isError, true);
 * // A tool the type argument does not name takes any JSON object.
 * const stats = await server.call("word_stats", { text: "two words" });
 * assert.deepEqual(stats.structuredContent, {
 *   characters: 9,
 *   words: 2,
 *   lines: 1,
 *   longestWord: "words",
 * });
 *
 * const tools = await server.list();
 * assert.ok(tools.some((tool) => tool.name === "word_stats"));
 * ```
 */
export async function testServer<Tools extends object = Record<never, never>>(
  options: TestServerOptions = {},
): Promise<TestServer<Tools>> {
  // A specifier Deno cannot read ahead: a literal one would put the loader in the module
  // graph of every tool that imports this module, read and parsed (its npm packages fetched)
  // before the tool runs, though only a test ever calls this.
  const helper: typeof import("./lib/testing/test_server.ts") = await import(
    new URL("./lib/testing/test_server.ts", import.meta.url).href
  );
  return helper.testServer<Tools>(options);
}

import type { Server, ServerConfig } from "./lib/server/create_server.ts";

/**
 * What `createServer` takes: the server directory (or its folders), the limits, the
 * middleware, and with `http`, how `fetch` serves inside a server of one's own.
 *
 * @example A configuration for a server mounted in an app on example.com
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ServerConfig } from "./mod.ts";
 *
 * const config: ServerConfig = {
 *   dir: new URL("./", import.meta.url),
 *   http: { allowedHosts: ["example.com"], path: "/mcp" },
 *   toolTimeoutMs: 10_000,
 * };
 * assert.equal(typeof config.http, "object");
 * ```
 */
export type {
  EmbeddedHttp,
  OAuthConfig,
  Server,
  ServerConfig,
} from "./lib/server/create_server.ts";

/**
 * Builds the server `toolshed serve` runs, from a server directory, in this process: to mount
 * it inside a server of one's own (`fetch` answers web-standard requests as the HTTP transport
 * does), serve it over stdio or HTTP, or send it requests (`request`). A directory with a
 * problem rejects with every problem listed. Imported only when called, like `testServer`.
 *
 * @example Mounted in an app of one's own
 * ```ts
 * import assert from "node:assert/strict";
 * import { createServer } from "./mod.ts";
 *
 * // This repository's own tools/, resources/ and prompts/.
 * const server = await createServer({ dir: new URL("./", import.meta.url) });
 * // In an app: Deno.serve((request) =>
 * //   new URL(request.url).pathname === "/mcp" ? server.fetch(request) : app(request));
 * const response = await server.fetch(
 *   new Request("http://localhost/mcp", {
 *     method: "POST",
 *     headers: {
 *       "content-type": "application/json",
 *       accept: "application/json, text/event-stream",
 *       "mcp-protocol-version": "2026-07-28",
 *       "mcp-method": "tools/call",
 *       "mcp-name": "echo",
 *     },
 *     body: JSON.stringify({
 *       jsonrpc: "2.0",
 *       id: 1,
 *       method: "tools/call",
 *       params: {
 *         name: "echo",
 *         arguments: { text: "hi" },
 *         _meta: {
 *           "io.modelcontextprotocol/protocolVersion": "2026-07-28",
 *           "io.modelcontextprotocol/clientCapabilities": {},
 *         },
 *       },
 *     }),
 *   }),
 * );
 * assert.equal(response.status, 200);
 * assert.deepEqual((await response.json()).result.content, [{ type: "text", text: "hi" }]);
 * await server.close();
 * ```
 */
export async function createServer(config: ServerConfig = {}): Promise<Server> {
  // Not a literal specifier, for the reason testServer gives.
  const composition: typeof import("./lib/server/create_server.ts") = await import(
    new URL("./lib/server/create_server.ts", import.meta.url).href
  );
  return composition.createServer(config);
}
