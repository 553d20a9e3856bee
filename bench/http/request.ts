// The request every contestant gets: a 2026-07-28 stateless `tools/call` of `echo`, with the
// headers the transport requires and the `_meta` claim in the body. `check` sends a few with
// `fetch` and compares each whole answer with the exact JSON the contestant should send; for a
// contestant that asks for credentials, it first makes sure that a request without them is
// refused, so that a server which let everyone in could not pass for a cheap authentication.
import type { HttpContestant, RunningServer } from "./server.ts";

export const HEADERS: Record<string, string> = {
  "Content-Type": "application/json",
  "Accept": "application/json, text/event-stream",
  "MCP-Protocol-Version": "2026-07-28",
  "Mcp-Method": "tools/call",
  "Mcp-Name": "echo",
};

/** The text the load generator sends; its answers are checked for it. */
export const LOAD_TEXT = "toolshed-http-bench-echo";

/** The `result` of the echo of `text` as the floor programs and toolshed give it. */
export function echoResult(text: string): unknown {
  return { content: [{ type: "text", text }] };
}

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

/**
 * Sends `count` echoes one after another and throws unless each answer is exactly right; with
 * credentials, one echo without them first, which must be refused with 401.
 */
export async function check(
  contestant: HttpContestant,
  server: Pick<RunningServer, "url" | "authorization">,
  count = 3,
): Promise<void> {
  const { url, authorization } = server;
  if (authorization !== undefined) {
    const response = await fetch(url, {
      method: "POST",
      headers: HEADERS,
      body: echoBody(1, LOAD_TEXT),
    });
    const body = await response.text();
    if (response.status !== 401) {
      throw new Error(
        `${contestant.label}: answered ${response.status} without credentials, not 401: ${
          body.slice(0, 300)
        }`,
      );
    }
  }
  const headers = authorization === undefined ? HEADERS : { ...HEADERS, authorization };
  for (let i = 0; i < count; i++) {
    const id = 1 + i;
    const text = i === 0 ? LOAD_TEXT : `check ${i} ${crypto.randomUUID()}`;
    const response = await fetch(url, {
      method: "POST",
      headers,
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
