// What MCP clients do to a server's tools that start-up and the model APIs accept: a tool whose
// hints say nothing of what it changes (OpenAI's app review refuses it, and clients take it to
// be destructive), more tools than a host passes on (Cursor drops past 40, VS Code refuses past
// 128, and so does OpenAI's function calling), a description Claude Code truncates. The numbers and their sources are in
// client_limits.ts; these are warnings, since a client other than the one named works.
import {
  CLAUDE_CODE_DESCRIPTION,
  type Client,
  CURSOR_TOOL_CAP,
  OPENAI_HINTS,
  OPENAI_TOOL_CAP,
  VSCODE_TOOL_CAP,
} from "./client_limits.ts";

/** One thing a client would refuse, cut or truncate. */
interface ClientFinding {
  readonly severity: "warning";
  /** The tool it is about, or undefined for the server's list of tools as a whole. */
  readonly tool: string | undefined;
  /** The rule's id in client_limits.ts. */
  readonly rule: string;
  readonly clients: readonly Client[];
  /** What is wrong and what the client does, one sentence without the tool's name. */
  readonly message: string;
}

/** What of a tool the clients' rules read. */
export interface ClientLintedTool {
  readonly name: string;
  readonly description: string;
  /** Its `annotations`, of which the hints are read. */
  readonly annotations?: { readonly readOnlyHint?: unknown; readonly destructiveHint?: unknown };
}

/** Every finding for a server's tools: each tool's in their order, then the count's. */
export function lintForClients(tools: readonly ClientLintedTool[]): ClientFinding[] {
  return [...tools.flatMap(lintTool), ...lintCount(tools.length)];
}

function lintTool(tool: ClientLintedTool): ClientFinding[] {
  const found: ClientFinding[] = [];
  const hints = tool.annotations ?? {};
  if (typeof hints.readOnlyHint !== "boolean" && typeof hints.destructiveHint !== "boolean") {
    found.push({
      severity: "warning",
      tool: tool.name,
      rule: OPENAI_HINTS.id,
      clients: [OPENAI_HINTS.client],
      message: "no readOnlyHint or destructiveHint in annotations: OpenAI's app review refuses " +
        "a tool whose hints are unset, and clients take it to be destructive (set " +
        '"readOnlyHint": true if it changes nothing, else "destructiveHint")',
    });
  }
  const { limit } = CLAUDE_CODE_DESCRIPTION;
  if (tool.description.length > limit) {
    found.push({
      severity: "warning",
      tool: tool.name,
      rule: CLAUDE_CODE_DESCRIPTION.id,
      clients: [CLAUDE_CODE_DESCRIPTION.client],
      message: `the description is ${tool.description.length} characters long: Claude Code ` +
        `truncates it at ${limit}, so the model never reads the rest (put what matters first)`,
    });
  }
  return found;
}

/** Each host's cap on a server's tools, and what it does past it (after "serves N tools: "). */
const TOOL_CAPS = [
  [
    CURSOR_TOOL_CAP,
    `Cursor sends only the first ${CURSOR_TOOL_CAP.limit} of all its servers' tools to its ` +
    "agent and drops the rest without a word (serve fewer, or split them across servers)",
  ],
  [
    VSCODE_TOOL_CAP,
    `VS Code refuses a chat request with more than ${VSCODE_TOOL_CAP.limit} ("You may not ` +
    `include more than ${VSCODE_TOOL_CAP.limit} tools in your request") until the user ` +
    "deselects some",
  ],
  [
    OPENAI_TOOL_CAP,
    `OpenAI's function calling refuses a request with more than ${OPENAI_TOOL_CAP.limit} ("A ` +
    `max of ${OPENAI_TOOL_CAP.limit} functions are supported"), so a host that hands every ` +
    "tool to an OpenAI model fails",
  ],
] as const;

function lintCount(count: number): ClientFinding[] {
  return TOOL_CAPS.filter(([cap]) => count > cap.limit).map(([cap, effect]) => ({
    severity: "warning",
    tool: undefined,
    rule: cap.id,
    clients: [cap.client],
    message: `the directory serves ${count} tools: ${effect}`,
  }));
}
