// What MCP clients and the model platforms behind them refuse, cut or truncate, as data: one
// row per rule, with the number, what happens past it, and where that is written down. toolshed
// check reads it (schema/client_lint.ts, schema/model_lint.ts); docs/authoring/clients-lint.md
// shows the same table to people, and adr/0046 says why these rules and not others.
//
// A host changes its limits without notice: when one moves, change the row (its number, its
// sources and `checked`), and the findings and their tests follow. `evidence` says how sure we
// are: "documented" when the client's or platform's own pages say it, "reported" when only its
// users' reports, its issue tracker or its shipped code do.

/** A client or platform a rule names. */
export type Client = "OpenAI" | "Claude Code" | "Cursor" | "VS Code" | "Anthropic" | "Gemini";

/** One limit of one client. */
interface ClientRule {
  /** A stable name for the rule, as `check --json` reports it. */
  readonly id: string;
  readonly client: Client;
  /** What the rule is about, in a few words. */
  readonly subject: string;
  /** The number past which the client acts, when the rule has one. */
  readonly limit?: number;
  /** What the client does past it: refuses the tool or the request, cuts the list, truncates text. */
  readonly effect: string;
  readonly evidence: "documented" | "reported";
  /** Public pages that say so, the most authoritative first. */
  readonly sources: readonly string[];
  /** When the sources were last read (YYYY-MM-DD). */
  readonly checked: string;
}

/** A rule with a number. */
export type LimitRule = ClientRule & { readonly limit: number };

/** OpenAI's app review (ChatGPT apps, the Apps SDK) wants each tool's hints set. */
export const OPENAI_HINTS: ClientRule = {
  id: "openai-hints",
  client: "OpenAI",
  subject: "readOnlyHint / destructiveHint / openWorldHint",
  effect: "refuses the app at review until every tool sets its hints to true or false",
  evidence: "reported",
  sources: [
    "https://developers.openai.com/apps-sdk/app-submission-guidelines",
    "https://community.openai.com/t/rejected-for-annotations-do-not-appear-to-match-the-tools-behavior-with-all-hints-set-explicitly-what-else-is-expected/1413175",
    "https://github.com/modelcontextprotocol/ext-apps/issues/190",
  ],
  checked: "2026-12-02",
};

/** Cursor sends its agent the first 40 tools of all its servers and drops the rest. */
export const CURSOR_TOOL_CAP: LimitRule = {
  id: "cursor-tool-count",
  client: "Cursor",
  subject: "tools per host",
  limit: 40,
  effect: "sends only the first 40 tools to its agent and drops the rest without a word",
  evidence: "reported",
  sources: [
    "https://docs.cursor.com/context/model-context-protocol",
    "https://github.com/modelcontextprotocol/.github/discussions/360",
  ],
  checked: "2026-12-02",
};

/** VS Code's chat refuses a request carrying more than 128 tools. */
export const VSCODE_TOOL_CAP: LimitRule = {
  id: "vscode-tool-count",
  client: "VS Code",
  subject: "tools per chat request",
  limit: 128,
  effect: 'refuses the chat request: "You may not include more than 128 tools in your request"',
  evidence: "reported",
  sources: [
    "https://github.com/microsoft/vscode-copilot-release/issues/11653",
    "https://github.com/microsoft/vscode-copilot-release/issues/13065",
    "https://github.com/microsoft/vscode/issues/255532",
  ],
  checked: "2026-12-02",
};

/** OpenAI's function calling refuses a request with more than 128 functions. */
export const OPENAI_TOOL_CAP: LimitRule = {
  id: "openai-tool-count",
  client: "OpenAI",
  subject: "functions per request",
  limit: 128,
  effect: 'refuses the request ("A max of 128 functions are supported")',
  evidence: "documented",
  sources: ["https://platform.openai.com/docs/api-reference/chat/create"],
  checked: "2026-12-05",
};

/** Claude Code cuts each MCP tool description at 2 KB before the model reads it. */
export const CLAUDE_CODE_DESCRIPTION: LimitRule = {
  id: "claude-code-description",
  client: "Claude Code",
  subject: "tool description length",
  limit: 2048,
  effect: 'truncates the description ("… [truncated]"), so the model never reads the rest',
  evidence: "documented",
  sources: [
    "https://code.claude.com/docs/en/mcp",
    "https://github.com/anthropics/claude-code/issues/41593",
    "https://github.com/anthropics/claude-code/issues/87650",
  ],
  checked: "2026-12-02",
};

/** OpenAI's function calling refuses a function description over 1024 characters. */
export const OPENAI_DESCRIPTION: LimitRule = {
  id: "openai-description",
  client: "OpenAI",
  subject: "function description length",
  limit: 1024,
  effect: "refuses the request",
  evidence: "reported",
  sources: ["https://github.com/getsentry/sentry-mcp/issues/106"],
  checked: "2026-12-02",
};

/** Anthropic, OpenAI and Gemini all refuse a tool name over 64 characters. */
export const TOOL_NAME_LENGTH: LimitRule = {
  id: "name-length",
  client: "Anthropic",
  subject: "tool name length (Anthropic, OpenAI, Gemini)",
  limit: 64,
  effect: "refuses the request",
  evidence: "documented",
  sources: [
    "https://docs.anthropic.com/en/api/messages",
    "https://platform.openai.com/docs/api-reference/chat/create",
    "https://cloud.google.com/vertex-ai/docs/reference/rest/v1beta1/FunctionDeclaration",
  ],
  checked: "2026-12-02",
};

/** Every rule, in the order the docs list them. */
export const CLIENT_RULES: readonly ClientRule[] = [
  OPENAI_HINTS,
  CURSOR_TOOL_CAP,
  VSCODE_TOOL_CAP,
  OPENAI_TOOL_CAP,
  CLAUDE_CODE_DESCRIPTION,
  OPENAI_DESCRIPTION,
  TOOL_NAME_LENGTH,
];
