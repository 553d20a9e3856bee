// Code mode's view of a catalog (adr/0073 §1): three tools instead of the catalog — search it,
// describe tools as TypeScript, run code that calls them — made once per viewed snapshot, so
// that search and declarations follow every reload. The code runs in a process of its own with
// no permissions (sandbox.ts); each call it makes goes back through the core as the caller's
// (primitives/inner_calls.ts), and what a tool answers reaches the code as a value: its
// structured content, else its text; an error result or a refusal is an error the code catches.
import { isObject, type JsonObject } from "../util/json.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import { catalogOf, type Snapshot } from "../primitives/registry.ts";
import { checkDefinition, type Tool } from "../primitives/tools.ts";
import type { ToolContext } from "../primitives/types.ts";
import { InnerCallRefused, innerCallsOf } from "../primitives/inner_calls.ts";
import { callableFromCode } from "../primitives/toolsets.ts";
import { searchIndex } from "./search.ts";
import { declarationsOf } from "./declarations.ts";
import { createSandbox, type Sandbox, type SandboxLimits } from "./sandbox.ts";

/** The names of code mode's tools. */
const CODE_TOOLS = {
  search: "search_tools",
  describe: "describe_tools",
  run: "run_code",
} as const;

/** The longest query, and the most hits one search gives. */
const MAX_QUERY_CHARS = 500;
const MAX_HITS = 50;
/** The most tools one describe_tools call declares. */
const MAX_DESCRIBED = 50;
/** The longest code one run takes, in characters. */
const MAX_CODE_CHARS = 100_000;

interface CodeModeOptions {
  limits: SandboxLimits;
  /** Code may call destructive tools that opt in (`--code-destructive`). */
  destructive: boolean;
  /** The most characters of text one run's result carries to a host (`--code-result-chars`). */
  maxResultChars: number;
  diagnostics: Diagnostics;
}

/** Code mode for one server: its view of each snapshot, and the sandbox its runs share. */
export interface CodeMode {
  view(viewed: Snapshot): Snapshot;
  close(): Promise<void>;
}

export function createCodeMode(options: CodeModeOptions): CodeMode {
  let sandbox: Sandbox | undefined;
  // The sandbox (and its pool of processes) starts at the first run, not with the server.
  const sandboxOf = () =>
    sandbox ??= createSandbox(options.limits, { diagnostics: options.diagnostics });
  const views = new WeakMap<Snapshot, Snapshot>();
  return {
    view(viewed) {
      let shown = views.get(viewed);
      if (shown === undefined) {
        const callable = viewed.tools.items.filter((tool) =>
          callableFromCode(tool, options.destructive)
        );
        const tools = [
          searchTool(callable),
          describeTool(callable),
          runTool(callable, sandboxOf, options.maxResultChars),
        ];
        shown = Object.freeze({ ...viewed, tools: catalogOf(tools, (tool) => tool.name) });
        views.set(viewed, shown);
      }
      return shown;
    },
    close: () => sandbox?.close() ?? Promise.resolve(),
  };
}

function made(definition: JsonObject): Tool {
  return checkDefinition(definition, definition.name as string, "(toolshed code mode)");
}

function searchTool(tools: readonly Tool[]): Tool {
  let index: ReturnType<typeof searchIndex> | undefined;
  return made({
    name: CODE_TOOLS.search,
    title: "Search the tools",
    description: `Finds tools among the ${tools.length} this server's code can call, by what ` +
      `they do: give a few words (the task, the thing it acts on). Returns names with a line ` +
      `each; ${CODE_TOOLS.describe} gives their TypeScript declarations, ${CODE_TOOLS.run} ` +
      "calls them.",
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", minLength: 1, maxLength: MAX_QUERY_CHARS },
        limit: { type: "integer", minimum: 1, maximum: MAX_HITS, default: 10 },
      },
      required: ["query"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
    alwaysLoad: true,
    handler(args: { query: string; limit?: number }) {
      index ??= searchIndex(tools);
      const hits = index.search(args.query, args.limit ?? 10);
      const text = hits.length === 0
        ? `No tool matches "${args.query}"`
        : hits.map((hit) => `${hit.name}${hit.title ? ` (${hit.title})` : ""}: ${hit.summary}`)
          .join("\n");
      return { content: [{ type: "text", text }], structuredContent: { hits } };
    },
  });
}

function describeTool(tools: readonly Tool[]): Tool {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return made({
    name: CODE_TOOLS.describe,
    title: "Describe tools as TypeScript",
    description: `The TypeScript declarations of the named tools, as \`tools.<name>(args)\` in ` +
      `${CODE_TOOLS.run}'s code: their arguments, what they return, and their documentation.`,
    inputSchema: {
      type: "object",
      properties: {
        names: {
          type: "array",
          items: { type: "string" },
          minItems: 1,
          maxItems: MAX_DESCRIBED,
        },
      },
      required: ["names"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
    alwaysLoad: true,
    handler(args: { names: string[] }) {
      const unknown = args.names.filter((name) => !byName.has(name));
      if (unknown.length > 0) {
        return {
          isError: true,
          content: [{
            type: "text",
            text: `No tool ${unknown.map((name) => `"${name}"`).join(", ")} that code can call ` +
              `here: ${CODE_TOOLS.search} finds them`,
          }],
        };
      }
      const chosen = [...new Set(args.names)].map((name) => byName.get(name)!);
      return { content: [{ type: "text", text: declarationsOf(chosen) }] };
    },
  });
}

function runTool(
  tools: readonly Tool[],
  sandboxOf: () => Sandbox,
  maxResultChars: number,
): Tool {
  const tool = made({
    name: CODE_TOOLS.run,
    title: "Run code that calls the tools",
    description: "Runs the body of an async TypeScript function with `tools` in scope: " +
      "`const pets = await tools.listPets({ limit: 5 }); return pets.length;`. Each " +
      "`tools.<name>(args)` is a real call of that tool (as you, with your permissions); it " +
      "returns the tool's structured result, else its text, and throws what the tool reports " +
      "as an error. Returns what the code returns (as JSON) and what it logged with console. " +
      "The code has no files, network or environment; its time, memory, calls and output are " +
      `bounded. ${CODE_TOOLS.describe} gives the tools' types.`,
    inputSchema: {
      type: "object",
      properties: { code: { type: "string", minLength: 1, maxLength: MAX_CODE_CHARS } },
      required: ["code"],
      additionalProperties: false,
    },
    annotations: {
      readOnlyHint: tools.every((each) => each.definition.annotations?.readOnlyHint === true),
      destructiveHint: tools.some((each) =>
        each.definition.annotations?.destructiveHint !== false &&
        each.definition.annotations?.readOnlyHint !== true
      ),
      openWorldHint: true,
    },
    task: "optional",
    alwaysLoad: true,
    maxResultChars,
    handler: (args: { code: string }, ctx: ToolContext) => run(args.code, ctx, sandboxOf()),
  });
  return { ...tool, makesInnerCalls: true };
}

async function run(code: string, ctx: ToolContext, sandbox: Sandbox): Promise<JsonObject> {
  const inner = innerCallsOf(ctx);
  if (inner === undefined) throw new Error("unreachable: run_code without its inner calls");
  const scopes = new Set<string>();
  const outcome = await sandbox.run(code, async (name, args, signal) => {
    let result: unknown;
    try {
      result = await inner(name, args, signal);
    } catch (error) {
      const wanted = error instanceof InnerCallRefused ? error.data?.requiredScopes : undefined;
      if (Array.isArray(wanted)) { for (const scope of wanted) scopes.add(String(scope)); }
      throw error instanceof Error ? new Error(error.message) : error;
    }
    return valueOf(name, result);
  }, ctx.signal);
  const lines: string[] = [];
  if (outcome.console !== "") {
    lines.push(`Console${outcome.consoleCut ? " (cut)" : ""}:\n${outcome.console}`);
  }
  if (scopes.size > 0) {
    lines.push(
      `Some calls were refused for scopes your token lacks: ${[...scopes].join(" ")} ` +
        "(sign in again granting them)",
    );
  }
  if (!outcome.ok) {
    return {
      isError: true,
      content: [{
        type: "text",
        text: [`The code failed: ${outcome.error}`, ...lines].join("\n\n"),
      }],
    };
  }
  const value = outcome.value === undefined ? null : outcome.value;
  return {
    content: [{
      type: "text",
      text: [
        `Returned${outcome.calls > 0 ? ` (after ${outcome.calls} tool calls)` : ""}: ${
          JSON.stringify(value)
        }`,
        ...lines,
      ].join("\n\n"),
    }],
    structuredContent: { value, console: outcome.console, calls: outcome.calls },
  };
}

/**
 * What a tool's answer is to the code: its structured content, else its text (texts joined by
 * blank lines, other content named); an error result is thrown with its text, and a tool that
 * asks the user is refused, since code cannot answer.
 */
function valueOf(name: string, result: unknown): unknown {
  if (!isObject(result)) return result;
  if (result.resultType === "input_required") {
    throw new Error(
      `Tool "${name}" asks the user for input, which code cannot answer: call it directly, ` +
        "outside code",
    );
  }
  const text = (Array.isArray(result.content) ? result.content : []).map((item) =>
    isObject(item) && item.type === "text" && typeof item.text === "string"
      ? item.text
      : `[${isObject(item) ? String(item.type) : "content"}]`
  ).join("\n\n");
  if (result.isError === true) throw new Error(text || `Tool "${name}" failed`);
  return result.structuredContent !== undefined ? result.structuredContent : text;
}
