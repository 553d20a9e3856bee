// A server directory in the test's own process, for authors testing their tools with
// Deno.test: loaded by the loader `toolshed serve` uses, and asked through the request core
// every transport uses, so a call is validated, timed out and checked as a client's call is.
// Each request is a 2026-07-28 (stateless) request, encoded, extracted and serialized as on
// the wire, to the server createServer builds (as main.ts does), so a result is exactly what
// a client would read. Nothing here is loaded by the server itself: mod.ts imports this file
// only when a test calls `testServer`.
import { createServer, type Server } from "../server/create_server.ts";
import { DirectoryLoadError } from "../discovery/load_error.ts";
import type { ClientRequestMethod, LogLevel } from "../primitives/types.ts";
import { ProtocolError } from "../wire/errors.ts";
import { META_SERVER_INFO } from "../wire/protocol.ts";
import { serialize } from "../wire/serialize.ts";
import { diagnosticText } from "../util/diagnostics.ts";
import { isObject, type JsonObject } from "../util/json.ts";
import type {
  ArgsOf,
  CallRest,
  CallResult,
  GetPromptResult,
  OutputOf,
  ReadResourceResult,
  ToolEntry,
  ToolNamed,
} from "./results.ts";

/** Where the server directory is, and how to serve it. */
export interface TestServerOptions {
  /**
   * The server directory, holding `tools/`, `resources/` and `prompts/` (each optional), as
   * `--dir` takes it: a path, or a `file:` URL such as `new URL("./", import.meta.url)`.
   * Default: the working directory.
   */
  dir?: string | URL;
  /** The tools folder, as `--tools` takes it (alone, it is all that is served). */
  tools?: string | URL;
  /** The resources folder, as `--resources` takes it. */
  resources?: string | URL;
  /** The prompts folder, as `--prompts` takes it. */
  prompts?: string | URL;
  /** As `--tool-timeout`: how long a call may run when its tool sets no `timeoutMs`. */
  toolTimeoutMs?: number;
  /** As `--pass-env`: environment variables executable tools receive. */
  passEnv?: string[];
}

/** What one request may carry besides its arguments. */
export interface RequestOptions {
  /** Aborting it cancels the request, as a client's `notifications/cancelled` does. */
  signal?: AbortSignal;
  /**
   * Answers what the handler asks the client with `ctx.request` (elicitation, sampling,
   * roots); the request is sent again with the answers until it completes. Without it, an
   * `input_required` result is returned as it is.
   */
  answer?: (method: ClientRequestMethod, params: JsonObject) => unknown;
  /**
   * The client capabilities the request declares. Default: none, or `elicitation`,
   * `sampling` and `roots` when `answer` is given.
   */
  clientCapabilities?: JsonObject;
  /** Asks for the handler's `ctx.log` messages of this level and more severe ones. */
  logLevel?: LogLevel;
  /**
   * Receives each notification the request sends (`notifications/progress`,
   * `notifications/message`); giving it makes the request carry a `progressToken`.
   */
  onNotification?: (notification: JsonObject) => void;
}

/**
 * A result as a client reads it, less the fields the server stamps on every 2026-07-28
 * result (`resultType: "complete"` and its `serverInfo`), so that it compares as written.
 * What `request` answers; `call`, `readResource` and `getPrompt` answer typed results.
 */
export type TestResult = JsonObject;

/**
 * A loaded server directory that answers requests in process. `Tools` maps tool names to
 * their definitions (`{ add: typeof add }`) to type `call`'s arguments and result for those
 * tools; other names are called with `JsonObject` arguments.
 */
export interface TestServer<Tools extends object = Record<never, never>> {
  /**
   * Calls a tool: its `CallToolResult` (a failure of the tool is `isError: true`). Any name
   * may be called; an editor offers the names `Tools` holds (`string & Record<never, never>`
   * keeps them from merging into `string`).
   */
  call<const N extends (keyof Tools & string) | (string & Record<never, never>)>(
    name: N,
    ...argsAndOptions: CallRest<ArgsOf<ToolNamed<Tools, N>>, RequestOptions>
  ): Promise<CallResult<OutputOf<ToolNamed<Tools, N>>>>;
  /** The tools as `tools/list` shows them, every page. */
  list(): Promise<ToolEntry[]>;
  /** Reads a resource: the `resources/read` result (`contents`). */
  readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult>;
  /** Gets a prompt: the `prompts/get` result (`messages`). */
  getPrompt(
    name: string,
    args?: Record<string, string>,
    options?: RequestOptions,
  ): Promise<GetPromptResult>;
  /** Sends any request (`resources/list`, `completion/complete`…) and returns its result. */
  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<TestResult>;
  /** What the server would have printed on stderr: stacks of failed calls, programs' stderr. */
  readonly diagnostics: readonly string[];
  /**
   * Stops what the server started: the servers mounted from `tools/*.mcp.json` (their
   * processes, their connections). A directory without mounts starts nothing, so a test of one
   * need not call it; `await using server = await testServer(…)` calls it at the end.
   */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Rounds of input_required answers one request may take before the helper gives up. */
const MAX_ROUNDS = 16;
const CLIENT_INFO = { name: "toolshed-test", version: "1" };
const ASKING = { elicitation: {}, sampling: {}, roots: {} };

/**
 * Loads a server directory as `toolshed serve` does (a problem in it rejects with every
 * problem listed) and returns a server that answers requests in this process, its calls typed
 * by `Tools` (see `TestServer`).
 */
export async function testServer<Tools extends object = Record<never, never>>(
  options: TestServerOptions = {},
): Promise<TestServer<Tools>> {
  const diagnostics: string[] = [];
  const sink = {
    error: (message: string, error?: unknown) => {
      diagnostics.push(diagnosticText(message, error));
    },
    forward: (text: string) => {
      diagnostics.push(text);
      return undefined;
    },
  };
  let server: Server;
  try {
    server = await createServer({
      ...foldersOf(options),
      passEnv: options.passEnv,
      toolTimeoutMs: options.toolTimeoutMs,
      diagnostics: sink,
    });
  } catch (error) {
    if (!(error instanceof DirectoryLoadError)) throw error;
    throw new Error(
      `Cannot load the server directory: ${error.problems.length} problem(s)\n  ${
        error.problems.join("\n  ")
      }`,
    );
  }

  let lastId = 0;

  /** One request on the wire and back: encoded, extracted, handled, serialized, parsed. */
  async function send(method: string, params: JsonObject, given: RequestOptions) {
    const id = ++lastId;
    const onNotification = given.onNotification;
    const sent = await server.request(method, params, {
      id,
      capabilities: given.clientCapabilities ?? (given.answer === undefined ? {} : ASKING),
      clientInfo: CLIENT_INFO,
      logLevel: given.logLevel,
      progressToken: onNotification === undefined ? undefined : `test-${id}`,
      notify: (message) => onNotification?.(JSON.parse(serialize(message))),
      signal: given.signal,
    });
    const response: unknown = JSON.parse(serialize(sent));
    if (!isObject(response)) throw new Error(`Unexpected response: ${String(response)}`);
    if (isObject(response.error)) {
      const { code, message, data } = response.error;
      throw new ProtocolError(Number(code), String(message), data);
    }
    return response.result as JsonObject;
  }

  /** Sends a request, answering input_required rounds with `answer` when there is one. */
  async function ask(method: string, params: JsonObject, given: RequestOptions = {}) {
    let result = await send(method, params, given);
    for (let round = 1; result.resultType === "input_required" && given.answer; round++) {
      if (round > MAX_ROUNDS) {
        throw new Error(`Cannot finish "${method}": it still asks after ${MAX_ROUNDS} rounds`);
      }
      const asked = isObject(result.inputRequests) ? result.inputRequests : {};
      const inputResponses: JsonObject = {};
      for (const [key, question] of Object.entries(asked)) {
        if (!isObject(question) || typeof question.method !== "string") continue;
        const questionParams = isObject(question.params) ? question.params : {};
        inputResponses[key] = await given.answer(
          question.method as ClientRequestMethod,
          questionParams,
        ) as JsonObject;
      }
      result = await send(
        method,
        { ...params, inputResponses, requestState: result.requestState },
        given,
      );
    }
    return unstamped(result);
  }

  // The typed results are what the server guarantees of a result before it answers (it
  // checks every result's shape, and `structuredContent` against the tool's outputSchema);
  // the arguments' types are the test's promise, which the server checks all the same.
  const typed = <T>(result: Promise<JsonObject>) => result as Promise<T>;
  const server_: Omit<TestServer, "call"> & {
    call(name: string, args?: JsonObject, given?: RequestOptions): Promise<CallResult>;
  } = {
    call: (name: string, args: JsonObject = {}, given?: RequestOptions) =>
      typed<CallResult>(ask("tools/call", { name, arguments: args }, given)),
    async list() {
      const tools: ToolEntry[] = [];
      let cursor: unknown;
      do {
        const page = await send("tools/list", cursor === undefined ? {} : { cursor }, {});
        tools.push(...(Array.isArray(page.tools) ? page.tools : []));
        cursor = page.nextCursor;
      } while (typeof cursor === "string");
      return tools;
    },
    readResource: (uri, given) => typed(ask("resources/read", { uri }, given)),
    getPrompt: (name, args = {}, given) =>
      typed(ask("prompts/get", { name, arguments: args }, given)),
    request: (method, params = {}, given) => ask(method, params, given),
    diagnostics,
    close: () => server.close(),
    [Symbol.asyncDispose]: () => server.close(),
  };
  // `Tools` types the calls only: the server is the same whatever names it maps.
  return server_ as TestServer<Tools>;
}

/** The folders to load, as serve's flags name them (paths: a `file:` URL is read as one). */
function foldersOf(options: TestServerOptions) {
  const path = (location: string | URL | undefined) => {
    if (!(location instanceof URL)) return location;
    if (location.protocol !== "file:") {
      throw new Error(`Cannot serve "${location.href}": give a path or a file: URL`);
    }
    return decodeURIComponent(location.pathname);
  };
  return {
    dir: path(options.dir),
    tools: path(options.tools),
    resources: path(options.resources),
    prompts: path(options.prompts),
  };
}

/** The result less `resultType: "complete"` and the server's info in `_meta`. */
function unstamped(result: JsonObject): JsonObject {
  const { resultType, _meta, ...rest } = result;
  const shown: JsonObject = resultType === "complete" ? rest : { resultType, ...rest };
  if (isObject(_meta)) {
    const { [META_SERVER_INFO]: _server, ...others } = _meta;
    if (Object.keys(others).length > 0) shown._meta = others;
  }
  return shown;
}
