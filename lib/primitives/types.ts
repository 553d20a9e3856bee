// What tool authors write and receive, re-exported by mod.ts.
import type { JsonObject } from "../util/json.ts";
import type { RequestId } from "../wire/types.ts";

/** Behaviour hints a client may show; they are hints, not guarantees. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** An icon a client may show for a tool (an `https:` or `data:` URI). */
export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: "light" | "dark";
}

/**
 * Who is calling, as an access token said it (OAuth 2.1, verified by the server): never the
 * token itself. Present only when the server authenticates its callers by OAuth (`--auth-issuer`);
 * over stdio, and with a shared bearer token, there is no caller to name.
 */
export interface AuthInfo {
  /** The token's subject (`sub`): the user, or the client acting for itself. */
  readonly subject: string | undefined;
  /** The OAuth client the token was issued to (`client_id`, else `azp`). */
  readonly clientId: string | undefined;
  /** The scopes the token grants (`scope`, space-separated, or `scp`). */
  readonly scopes: readonly string[];
  /** The authorization server that issued it (`iss`). */
  readonly issuer: string | undefined;
  /** When it expires, in seconds since the epoch (`exp`), if it says. */
  readonly expiresAt: number | undefined;
  /** Every claim of the token (or of its introspection), for what the fields above leave out. */
  readonly claims: Readonly<JsonObject>;
}

/**
 * What every handler receives (a tool's, a resource's, a prompt's): everything that belongs
 * to one request.
 */
export interface HandlerContext {
  /** Aborted when the client cancels the request, the handler times out or the server stops. */
  readonly signal: AbortSignal;
  /** The JSON-RPC id of the request. */
  readonly requestId: RequestId;
  /** The protocol version of this request (2026-07-28) or of its session (2025-era). */
  readonly protocolVersion: string;
  /** The client's `Implementation` object, when it sent one. For display and logs only. */
  readonly clientInfo: JsonObject | undefined;
  /** The capabilities the client declared (`{}` when none). */
  readonly clientCapabilities: JsonObject;
  /**
   * Who is calling, when the server authenticates callers by OAuth (`--auth-issuer`): the
   * token's subject, client, scopes and claims, never the token. Undefined over stdio and with
   * a shared bearer token.
   */
  readonly auth?: AuthInfo;
  /**
   * Tells the client how far the request has got, when it asked to be told (a progress
   * token); otherwise does nothing. `progress` must grow from one report to the next (a
   * report that does not is dropped); reports closer together than the server sends them
   * are merged into the latest; nothing is sent once the request is answered or cancelled.
   */
  progress(progress: number, total?: number, message?: string): void;
  /**
   * Sends a log message to the client, when it asked for messages at this level or a more
   * severe one; otherwise does nothing. For the server's own diagnostics use stderr.
   */
  log(level: LogLevel, data: unknown, logger?: string): void;
  /**
   * Asks the client something during the request: `sampling/createMessage`,
   * `elicitation/create` or `roots/list`, and resolves with its answer, in both eras. A
   * 2025-era client gets a real request. A 2026-07-28 request is answered `input_required`
   * and retried by the client with the answers: the handler then runs again from the start,
   * and this call resolves at once with its answer (requests made together, as with
   * `Promise.all`, are asked together). `key` names the input in the `input_required`
   * result (default `input_1`, `input_2`, … in the order of the calls the client can answer).
   * Rejects, saying why, when the client did not declare the capability.
   */
  request(
    method: ClientRequestMethod,
    params: JsonObject,
    options?: { key?: string },
  ): Promise<JsonObject>;
  /**
   * Closes the HTTP event stream this request's answer travels on, when the client can
   * resume it (a 2025-era session that accepts event streams; SEP-1699 polling): what the
   * request sends from then on, its response included, is kept, and the client reconnects
   * with `Last-Event-ID` after the stream's `retry` interval and receives it. For a long
   * request behind proxies that cut long connections. Returns false and does nothing
   * elsewhere (stdio, 2026-07-28 requests, JSON answers): there, closing would lose the answer.
   */
  closeStream(): boolean;
}

/** The ways back to the client a request has besides its response. */
export type Channels = Pick<HandlerContext, "progress" | "log" | "request" | "closeStream">;

/** What a tool's handler receives besides its arguments. */
export interface ToolContext extends HandlerContext {
  /** The name the tool is served under. */
  readonly toolName: string;
}

/** What a resource's or a resource template's `read` receives besides its parameters. */
export interface ResourceContext extends HandlerContext {
  /** The URI being read (for a template: the concrete URI the client asked for). */
  readonly uri: string;
}

/** What a prompt's `get` receives besides its arguments. */
export interface PromptContext extends HandlerContext {
  /** The name the prompt is served under. */
  readonly promptName: string;
}

/** Log severities, least severe first (RFC 5424, as MCP uses them). */
export type LogLevel =
  | "debug"
  | "info"
  | "notice"
  | "warning"
  | "error"
  | "critical"
  | "alert"
  | "emergency";

/** What a server may ask a 2025-era client. */
export type ClientRequestMethod = "sampling/createMessage" | "elicitation/create" | "roots/list";

/**
 * A tool as a file in the tools directory default-exports it: a plain object.
 *
 * The handler may return a string (one text block), an object with a `content` array
 * (a `CallToolResult` taken as is), or any other JSON value (sent as `structuredContent`
 * plus its JSON as a text block). A thrown error becomes a result with `isError: true`.
 */
export interface ToolDefinition<Args = Record<string, unknown>> {
  /** The tool's name; defaults to the file name without its extension. */
  name?: string;
  title?: string;
  description: string;
  /** A JSON Schema (2020-12 unless `$schema` says otherwise) whose root has `type: "object"`. */
  inputSchema: JsonObject;
  /** A JSON Schema that `structuredContent` must match. */
  outputSchema?: JsonObject;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  _meta?: JsonObject;
  /** How long one call may run before it is aborted; overrides the `--tool-timeout` flag. */
  timeoutMs?: number;
  /**
   * OAuth scopes the caller's token must grant (with `--auth-issuer`); a caller without them
   * gets HTTP 403 `insufficient_scope`, which makes an MCP client ask the user for them.
   */
  scopes?: string[];
  /**
   * How often each caller may call it: `"60/min"`, `"5/s"`, `"1000/h"`, `"60/min burst 10"` (a
   * token bucket per caller of this tool, shared through Redis with `--redis`); a call over it
   * is refused with -32031 (HTTP 429 with Retry-After). docs/operating/rate-limits.md
   */
  rateLimit?: string;
  /**
   * The app in ui/ this tool shows its result in (`ui/<name>.html`, the MCP Apps extension):
   * tools/list carries its URI, `ui://<name>`, in `_meta.ui.resourceUri` (adr/0048). An app
   * that is not there stops start-up.
   */
  ui?: string;
  /**
   * Client capabilities a call needs, e.g. `{ sampling: {} }`: a client that did not declare
   * each of these keys is refused before the handler runs (2026-07-28: JSON-RPC error
   * -32021 with `data.requiredCapabilities`; a 2025 session: an `isError` result).
   */
  requiredClientCapabilities?: JsonObject;
  /**
   * Whether a call may run as a task (the `io.modelcontextprotocol/tasks` extension of
   * 2026-07-28): `"optional"` for a client that declares the extension, a plain call for
   * others; `"required"` refuses a 2026-07-28 client without it (-32021). A call still
   * running after its first turn of the event loop answers with the task, which runs on.
   */
  task?: "optional" | "required";
  /**
   * With `task`: how long a call from a client without the tasks extension runs inline before
   * it answers with a job the client follows with the tool `toolshed_job`; overrides
   * `--job-after` (0: at once, after the first turn of the event loop).
   */
  jobAfterMs?: number;
  /**
   * With `task`: for this long after a call became a job, the same caller calling again with
   * the same arguments gets that job (its handle, or its result once it ended) instead of a
   * second run — for hosts that retry a call they gave up on. Off unless set.
   */
  jobReuseMs?: number;
  /**
   * Code run in code mode (`/mcp/code`, adr/0073) may call this tool though its annotations do
   * not say `readOnlyHint: true`; one whose `destructiveHint` is not false also needs the
   * operator's `--code-writes destructive`. Read-only tools need nothing.
   */
  code?: boolean;
  /**
   * Hosts that defer MCP tools behind a tool search keep this one loaded: `true` lists it with
   * `_meta["anthropic/alwaysLoad"]: true`, the key Claude Code reads (read in 2.1.332; a user
   * who set the server to defer all its tools still wins). `false` or absent: nothing. An own
   * `_meta` setting that key to anything else stops start-up.
   */
  alwaysLoad?: boolean;
  /**
   * The most characters of text one result of this tool carries to a client (1,000 to
   * 10,000,000): past it the text is cut, its last line saying so, and tools/list carries
   * `_meta["anthropic/maxResultSizeChars"]`, the size Claude Code (2.1.332) keeps in the
   * conversation for this tool. Absent: no bound of its own (`--max-output-bytes` still holds).
   */
  maxResultChars?: number;
  handler: (args: Args, ctx: ToolContext) => unknown;
}

/** Hints about a resource for the client (MCP `Annotations`). */
export interface ResourceAnnotations {
  audience?: ("user" | "assistant")[];
  /** From 0 (least important) to 1 (most). */
  priority?: number;
  /** An ISO 8601 timestamp. */
  lastModified?: string;
}

/**
 * The values an argument (of a prompt) or a variable (of a resource template) can take, for
 * `completion/complete`: a list, offered by case-insensitive prefix, or a function that
 * answers for what the user typed so far (its answer is sent as it is, at most 100 values).
 */
export type Completer =
  | readonly string[]
  | ((value: string, context: CompletionContext) => readonly string[] | Promise<readonly string[]>);

export interface CompletionContext {
  /** The other arguments (or variables) the client has filled in already. */
  readonly arguments: Readonly<Record<string, string>>;
  /** Aborted when the request is cancelled or takes too long. */
  readonly signal: AbortSignal;
  /** Who is asking, when the server authenticates callers by OAuth (as `ctx.auth`). */
  readonly auth?: AuthInfo;
}

/** Template variables as a matched URI gives them: a list for an exploded variable (`{/path*}`). */
export type UriParams = Record<string, string | string[]>;

/** Fields every resource (fixed or template) may carry, as MCP defines them. */
interface ResourceFields {
  /** Defaults to the file name without its extension. */
  name?: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: ResourceAnnotations;
  icons?: Icon[];
  _meta?: JsonObject;
  /** How long one read may run; overrides the `--tool-timeout` flag. */
  timeoutMs?: number;
  /**
   * OAuth scopes the caller's token must grant (with `--auth-issuer`); a caller without them
   * gets HTTP 403 `insufficient_scope`, which makes an MCP client ask the user for them.
   */
  scopes?: string[];
}

/**
 * A resource with a fixed URI, as a module in `resources/` default-exports it.
 *
 * `read` may return a string (text), a `Uint8Array` (sent base64 as a blob), one
 * `{ text }` or `{ blob }` contents object, an array of them, or `undefined`/`null` when
 * there is nothing at this URI now (the client gets "Resource not found").
 */
export interface ResourceDefinition extends ResourceFields {
  uri: string;
  /** The size in bytes, when known in advance. */
  size?: number;
  read(params: UriParams, ctx: ResourceContext): unknown;
}

/**
 * A family of resources under an RFC 6570 URI template (`docs://{section}/{page}`), as a
 * module in `resources/` default-exports it. `read` receives the variables the client's URI
 * matched; it returns what a fixed resource's `read` returns.
 */
export interface ResourceTemplateDefinition extends ResourceFields {
  uriTemplate: string;
  /** Values for the template's variables, for `completion/complete`. */
  complete?: Record<string, Completer>;
  read(params: UriParams, ctx: ResourceContext): unknown;
}

/** An argument a prompt takes (always a string on the wire). */
export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

/** One message of a prompt: `content` is a content block, or a string for a text block. */
export interface PromptMessage {
  role: "user" | "assistant";
  content: string | JsonObject;
}

/**
 * A prompt as a module in `prompts/` default-exports it (a Markdown file with front matter
 * is a prompt too, without code).
 *
 * `get` may return a string (one user message), an array of messages, or
 * `{ description?, messages }`.
 */
export interface PromptDefinition<Args = Record<string, string>> {
  /** Defaults to the file name without its extension. */
  name?: string;
  title?: string;
  description: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: JsonObject;
  /** How long one `get` may run; overrides the `--tool-timeout` flag. */
  timeoutMs?: number;
  /**
   * OAuth scopes the caller's token must grant (with `--auth-issuer`); a caller without them
   * gets HTTP 403 `insufficient_scope`, which makes an MCP client ask the user for them.
   */
  scopes?: string[];
  /** Values for the prompt's arguments, for `completion/complete`. */
  complete?: Record<string, Completer>;
  get(args: Args, ctx: PromptContext): unknown;
}

/**
 * One request as middleware sees it: the method and its params, who asks, over what, and the
 * signal that says when to stop. The same call the method's handler receives.
 */
export interface Call {
  /** The JSON-RPC method: `tools/call`, `resources/read`, `prompts/get`, `tools/list`, … */
  readonly method: string;
  /**
   * Its params, `_meta` included. To change what the handler receives, pass `next` a copy of
   * the call with other params: `next({ ...call, params: { ...call.params, … } })`.
   */
  readonly params: Readonly<JsonObject>;
  /** The JSON-RPC id of the request. */
  readonly id: RequestId;
  /** The protocol version of this request (2026-07-28) or of its session (2025-era). */
  readonly protocolVersion: string;
  /** The client's `Implementation` object, when it sent one. For display and logs only. */
  readonly clientInfo: JsonObject | undefined;
  /** The capabilities the client declared (`{}` when none). */
  readonly clientCapabilities: Readonly<JsonObject>;
  /** Aborted when the client cancels the request, it times out or the server stops. */
  readonly signal: AbortSignal;
  /** How the request arrived: a stdio connection, HTTP, or in process (tests, commands). */
  readonly transport: "stdio" | "http" | "in-process";
  /** Who is calling, when the server authenticates callers by OAuth (as `ctx.auth`). */
  readonly auth: AuthInfo | undefined;
  /** The 2025-era HTTP session it belongs to (`Mcp-Session-Id`), when there is one. */
  readonly sessionId: string | undefined;
}

/**
 * The rest of the chain for one call: the next middleware, or the method's handler. It gives
 * the `result` of the JSON-RPC response (a `CallToolResult` for `tools/call`), or throws: an
 * `McpError` answers with that JSON-RPC error, anything else with -32603.
 */
export type CallHandler = (call: Call) => JsonObject | Promise<JsonObject>;

/**
 * Code around every request: given the rest of the chain, the handler that runs it. A server
 * directory's `middleware/` folder holds one per file (its default export), run in file-name
 * order, the first outermost; `createServer({ middleware })` takes a list that runs outside
 * those. Composed once, so a middleware that returns `next` itself for methods it ignores
 * costs those methods one call.
 */
export type Middleware = (next: CallHandler) => CallHandler;

// Arguments inferred from the schema (adr/0069): types only, erased at run time. Each type
// below is a bounded chain of conditional types over the schema as written; nothing maps
// over a schema library's internals, so a library's deep types are read once, at
// `["~standard"]["types"]["output"]`, where the library has already computed them.

/**
 * A Standard Schema (https://standardschema.dev, v1): what Zod 4, Valibot and ArkType
 * schemas carry under `~standard`. Declared here, not imported: no run-time dependency.
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => unknown;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}

/** What `inputSchema` and `outputSchema` may be written as: JSON Schema or a library's schema. */
export type ToolSchema = JsonObject | StandardSchemaV1;

/** A Standard Schema's output type, read from `types.output` (`unknown` when it has none). */
type StandardOutput<S> = S extends {
  readonly "~standard": { readonly types?: { readonly output: infer O } | undefined };
} ? O
  : unknown;

/** Depths left: five levels of objects and arrays below the root are typed; deeper is `unknown`. */
type Less = [never, 0, 1, 2, 3, 4];

/** The type a JSON Schema `type` keyword names. */
type TypeNamed<T, S, D extends number> = T extends "string" ? string
  : T extends "number" | "integer" ? number
  : T extends "boolean" ? boolean
  : T extends "null" ? null
  : T extends "array" ? S extends { readonly items: infer I } ? JsonSchemaType<I, Less[D]>[]
    : unknown[]
  : T extends "object" ? ObjectOf<S, D>
  : unknown;

/** An object schema's properties: those in `required` are required, the others optional. */
type ObjectOf<S, D extends number> = S extends { readonly properties: infer P } ? Flat<
    & {
      -readonly [K in keyof P & RequiredOf<S>]: JsonSchemaType<P[K], Less[D]>;
    }
    & {
      -readonly [K in Exclude<keyof P, RequiredOf<S>>]?: JsonSchemaType<P[K], Less[D]>;
    }
  >
  : Record<string, unknown>;

type RequiredOf<S> = S extends { readonly required: readonly (infer R)[] } ? R & string : never;

/** One object type from an intersection, so that a message shows `{ n: number }`. */
type Flat<T> = T extends infer O ? { [K in keyof O]: O[K] } : never;

/**
 * The TypeScript type of a JSON Schema written `as const` (or inline in `defineTool`):
 * `const`, `enum`, and `type` (one name or a list) with `properties`/`required` and `items`.
 * Any other schema, or one nested more than five levels below the root, is `unknown`.
 */
export type JsonSchemaType<S, D extends number = 5> = [D] extends [never] ? unknown
  : S extends { readonly const: infer C } ? C
  : S extends { readonly enum: readonly (infer E)[] } ? E
  : S extends { readonly type: infer T }
    ? T extends readonly (infer U)[] ? TypeNamed<U, S, D> : TypeNamed<T, S, D>
  : unknown;

/**
 * The type a schema describes: a Standard Schema's output type, or a JSON Schema's type;
 * `Fallback` when neither says more than `unknown`.
 */
export type SchemaType<S, Fallback = unknown> = [S] extends [StandardSchemaV1]
  ? unknown extends StandardOutput<S> ? Fallback : StandardOutput<S>
  : unknown extends JsonSchemaType<S> ? Fallback
  : JsonSchemaType<S>;

/** Stands for "no type argument given" in `defineTool`: the schema's type is used. */
export interface FromSchema {
  readonly "~fromSchema": never;
}

/**
 * A tool whose handler's arguments are typed from `inputSchema` (unless `Args` is given) and
 * whose result is typed from `outputSchema` when it has one: what `defineTool` takes.
 */
export type TypedToolDefinition<Args, In, Out> =
  & Omit<ToolDefinition, "inputSchema" | "outputSchema" | "handler">
  & {
    inputSchema: In;
    outputSchema?: Out;
    handler: (
      args: [Args] extends [FromSchema] ? SchemaType<In, Record<string, unknown>> : Args,
      ctx: ToolContext,
    ) => ResultOf<SchemaType<Out>>;
  };

/** What a handler returns: anything, or with an outputSchema its type or a whole result. */
type ResultOf<O> = unknown extends O ? unknown
  : O | { content: unknown[] } | Promise<O | { content: unknown[] }>;
