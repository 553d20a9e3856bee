// What MCP clients do to a server's tools that start-up and the model APIs accept: a tool whose
// hints say nothing of what it changes (OpenAI's app review refuses it, and clients take it to
// be destructive), a description Claude Code truncates. The numbers and their sources are in
// client_limits.ts; these are warnings, since a client other than the one named works. More tools
// than a host takes is said of each endpoint, which serves its own list (list_cost.ts's caps,
// commands/check_endpoints.ts).
import { CLAUDE_CODE_DESCRIPTION, type Client, OPENAI_HINTS } from "./client_limits.ts";

/** One thing a client would refuse, cut or truncate. */
interface ClientFinding {
  readonly severity: "warning";
  /** The tool it is about. */
  readonly tool: string;
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

/** Every finding for a server's tools, each tool's in their order. */
export function lintForClients(tools: readonly ClientLintedTool[]): ClientFinding[] {
  return tools.flatMap(lintTool);
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
