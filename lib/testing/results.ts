// What `testServer` answers, typed (adr/0069 step 3): the results of calls, reads and prompts
// as a client reads them, and a call's arguments and structured result typed by the tool it
// names. Types only, erased at run time; each is one conditional type over a tool's
// definition, reusing the schema types `defineTool` infers with (lib/primitives/types.ts).
import type {
  ClientRequestMethod,
  Icon,
  JsonSchemaType,
  ResourceAnnotations,
  SchemaType,
  StandardSchemaV1,
  ToolAnnotations,
} from "../primitives/types.ts";
import type { JsonObject } from "../util/json.ts";

/**
 * Fields every content block may carry. The blocks are type literals, not interfaces, so that
 * each is also a `JsonObject` (`content as JsonObject[]` keeps compiling).
 */
type ContentFields = {
  annotations?: ResourceAnnotations;
  _meta?: JsonObject;
};

type TextContent = ContentFields & {
  type: "text";
  text: string;
};

type ImageContent = ContentFields & {
  type: "image";
  /** Base64. */
  data: string;
  mimeType: string;
  text?: never;
};

type AudioContent = ContentFields & {
  type: "audio";
  /** Base64. */
  data: string;
  mimeType: string;
  text?: never;
};

type ResourceLink = ContentFields & {
  type: "resource_link";
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  icons?: Icon[];
  text?: never;
};

type EmbeddedResource = ContentFields & {
  type: "resource";
  resource: ResourceContents;
  text?: never;
};

/**
 * One content block of a result. Every kind declares `text` (absent, `never`, but for
 * `"text"`), so `content[0].text` reads as `string | undefined` without narrowing; `type`
 * narrows to one kind.
 */
export type Content = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

/** What one resource holds: `text`, or `blob` (base64). */
type ResourceContents =
  | { uri: string; mimeType?: string; text: string; blob?: never; _meta?: JsonObject }
  | { uri: string; mimeType?: string; blob: string; text?: never; _meta?: JsonObject };

/** The fields of a result that is not complete: returned as it is, as a client reads it. */
interface Incomplete<Type extends string> {
  /**
   * Absent once the request is complete. `"input_required"` when the handler asked the client
   * something (`ctx.request`) and the request had no `answer`; `"task"` when a call runs on as
   * a task (a client declaring the tasks extension).
   */
  resultType?: Type;
  /** What the handler asks, by key, when the result is `input_required`. */
  inputRequests?: Record<string, { method: ClientRequestMethod; params: JsonObject }>;
  /** The sealed state to send back with the answers, when the result is `input_required`. */
  requestState?: string;
}

/**
 * A tool's `CallToolResult`, `structuredContent` typed by the tool's `outputSchema` when the
 * server's type argument names the tool (`unknown` otherwise). `content` is absent only from
 * an incomplete result (`resultType` says so).
 */
export interface CallResult<Out = unknown> extends Incomplete<"input_required" | "task"> {
  content: Content[];
  /** The tool's structured result, which the server has checked against its `outputSchema`. */
  structuredContent?: Out;
  /** True when the tool failed: it threw, timed out or was given arguments its schema refuses. */
  isError?: boolean;
  _meta?: JsonObject;
  /** The task a call runs on as (`resultType: "task"`). */
  task?: JsonObject;
  [key: string]: unknown;
}

/** A `resources/read` result. */
export interface ReadResourceResult extends Incomplete<"input_required"> {
  contents: ResourceContents[];
  _meta?: JsonObject;
  [key: string]: unknown;
}

/** A `prompts/get` result. */
export interface GetPromptResult extends Incomplete<"input_required"> {
  description?: string;
  messages: { role: "user" | "assistant"; content: Content }[];
  _meta?: JsonObject;
  [key: string]: unknown;
}

/** A tool as `tools/list` shows it. */
export interface ToolEntry {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonObject;
  outputSchema?: JsonObject;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  _meta?: JsonObject;
  [key: string]: unknown;
}

// A call typed by the tool it names: `Tools` maps names to what the tool files default-export
// (`{ add: typeof add }`).

/** A Standard Schema's input type, read from `types.input` (`unknown` when it has none). */
type StandardInput<S> = S extends {
  readonly "~standard": { readonly types?: { readonly input: infer I } | undefined };
} ? I
  : unknown;

/** What a client sends for `inputSchema`: a library schema's input type, or the JSON Schema's. */
type InputOf<S> = [S] extends [StandardSchemaV1] ? StandardInput<S> : JsonSchemaType<S>;

/** The type the handler's own first parameter declares (`JsonObject` when it says nothing). */
type HandlerArgs<T> = T extends { readonly handler: (args: infer A, ...rest: never[]) => unknown }
  ? unknown extends A ? JsonObject : A
  : JsonObject;

/**
 * A tool's arguments: the type its `inputSchema` describes (the schema's input type, so that a
 * field with a default is optional), else the handler's parameter type, else `JsonObject`.
 */
export type ArgsOf<T> = T extends { readonly inputSchema: infer S }
  ? unknown extends InputOf<S> ? HandlerArgs<T> : InputOf<S>
  : JsonObject;

/**
 * A tool's structured result: the type its `outputSchema` describes, else `unknown`. Not the
 * handler's return type: what it returns reaches the client through JSON (a `Date` as a
 * string, an `undefined` field dropped), where the arguments reach the handler as sent.
 */
export type OutputOf<T> = T extends { readonly outputSchema?: infer O }
  ? SchemaType<Exclude<O, undefined>>
  : unknown;

/** The tool `Tools` names `N`; `undefined` for a name it does not hold. */
export type ToolNamed<Tools, N extends string> = string extends N ? undefined
  : N extends keyof Tools ? Tools[N]
  : undefined;

/** The arguments and options of a call: the arguments may be left out when `{}` would do. */
export type CallRest<Args, Options> = Record<never, never> extends Args
  ? [args?: Args, options?: Options]
  : [args: Args, options?: Options];
