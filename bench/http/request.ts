// The request every contestant gets: a 2026-07-28 stateless `tools/call` of `echo`, with the
// headers the transport requires and the `_meta` claim in the body. `check` sends a few with
// `fetch` and compares each whole answer with the exact JSON the contestant should send.
import type { HttpContestant } from "./server.ts";

export const HEADERS: Record<string, string> = {
  "Content-Type": "application/json",
  "Accept": "application/json, text/event-stream",
  "MCP-Protocol-Version": "2026-07-28",
  "Mcp-Method": "tools/call",
  "Mcp-Name": "echo",
};

/** The text the load generator sends; its answers are checked for it. */
export const LOAD_TEXT = "toolshed-http-bench-echo";

export function echoBody(id: number, text: string): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: {
      name: "echo",
      arguments: { text },
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  });
}

/** Sends `count` echoes one after another and throws unless each answer is exactly right. */
export async function check(contestant: HttpContestant, url: string, count = 3): Promise<void> {
  for (let i = 0; i < count; i++) {
    const id = 1 + i;
    const text = i === 0 ? LOAD_TEXT : `check ${i} ${crypto.randomUUID()}`;
    const response = await fetch(url, {
      method: "POST",
      headers: HEADERS,
      body: echoBody(id, text),
    });
    const body = await response.text();
    const type = response.headers.get("content-type") ?? "";
    const want = canonical({ jsonrpc: "2.0", id, result: contestant.result(text) });
    let got: string;
    try {
      got = canonical(JSON.parse(body));
    } catch {
      got = body;
    }
    if (response.status !== 200 || !type.startsWith("application/json") || got !== want) {
      throw new Error(
        `${contestant.label}: wrong answer (${response.status}, ${type}): ${body.slice(0, 300)}`,
      );
    }
  }
}

/** JSON with object keys sorted, so that two equal values compare equal as strings. */
function canonical(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, v) =>
      v !== null && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
        : v,
  );
}
