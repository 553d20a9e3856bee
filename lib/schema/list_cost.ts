// What a list of tools costs a host: the bytes of `tools/list` and, roughly, the tokens they
// make, and which hosts' caps on tools its count fits. toolshed check says it of each API in
// tools/ (openapi/size.ts) and of each endpoint (commands/check_endpoints.ts) in the same words;
// the caps are client_limits.ts's rows, and what each host does past its cap is said here once.
import type { JsonObject } from "../util/json.ts";
import {
  type Client,
  CURSOR_TOOL_CAP,
  type LimitRule,
  OPENAI_TOOL_CAP,
  VSCODE_TOOL_CAP,
} from "./client_limits.ts";

/** How many UTF-8 bytes make a token, roughly: the estimate check gives. */
const BYTES_PER_TOKEN = 4;

/** How check says the tokens are estimated. */
export const TOKENS_ESTIMATED = "tokens estimated as UTF-8 bytes / 4";

/** What a list of tools costs a client: how many, and the bytes and estimated tokens sent. */
export interface ListCost {
  readonly tools: number;
  /** UTF-8 bytes of `{"tools":[…]}`, the tools as tools/list renders them, on one page. */
  readonly bytes: number;
  /** An estimate: bytes / 4, rounded up. */
  readonly tokens: number;
}

/** The cost of `tools`, each as tools/list sends it (`statelessTool`, or a real answer's). */
export function listCost(tools: readonly JsonObject[]): ListCost {
  const bytes = new TextEncoder().encode(JSON.stringify({ tools })).length;
  return { tools: tools.length, bytes, tokens: Math.ceil(bytes / BYTES_PER_TOKEN) };
}

/** "615,261 bytes, about 153,816 tokens". */
export function costFigures({ bytes, tokens }: ListCost): string {
  return `${bytes.toLocaleString("en-US")} bytes, about ${tokens.toLocaleString("en-US")} tokens`;
}

/** A host's cap on the tools it takes, and what it does past it. */
interface ToolCap {
  readonly rule: LimitRule;
  /** What the host does with more, said after "serves N tools: ". */
  readonly past: string;
}

/** Each host's cap on tools, smallest first: the one table check's findings on counts read. */
export const TOOL_CAPS: readonly ToolCap[] = [
  {
    rule: CURSOR_TOOL_CAP,
    past: `Cursor sends only the first ${CURSOR_TOOL_CAP.limit} of all its servers' tools to ` +
      "its agent and drops the rest without a word",
  },
  {
    rule: VSCODE_TOOL_CAP,
    past: `VS Code refuses a chat request with more than ${VSCODE_TOOL_CAP.limit} ("You may ` +
      `not include more than ${VSCODE_TOOL_CAP.limit} tools in your request") until the user ` +
      "deselects some",
  },
  {
    rule: OPENAI_TOOL_CAP,
    past: `OpenAI's function calling refuses a request with more than ${OPENAI_TOOL_CAP.limit} ` +
      `("A max of ${OPENAI_TOOL_CAP.limit} functions are supported"), so a host that hands ` +
      "every tool to an OpenAI model fails",
  },
];

/** "Cursor 40, VS Code 128, OpenAI 128". */
export const CAPS_NAMED = TOOL_CAPS.map(({ rule }) => `${rule.client} ${rule.limit}`).join(", ");

/** The caps `count` tools are over, and those they fit, each smallest first. */
export function capsFor(count: number): { over: ToolCap[]; fit: ToolCap[] } {
  return {
    over: TOOL_CAPS.filter(({ rule }) => count > rule.limit),
    fit: TOOL_CAPS.filter(({ rule }) => count <= rule.limit),
  };
}

/** The hosts of `caps`, in their order. */
export function hostsOf(caps: readonly ToolCap[]): Client[] {
  return caps.map(({ rule }) => rule.client);
}
