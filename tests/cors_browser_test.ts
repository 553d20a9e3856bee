// CORS in a real browser (adr/0039): Debian's headless Chromium loads a page from another origin
// (another port of 127.0.0.1) whose script calls a tool on toolshed with fetch, as a 2026-07-28
// client does (Content-Type, Accept, MCP-Protocol-Version, Mcp-Method, Mcp-Name, and a bearer
// token in one server's case: headers that make the browser send a preflight first), and shows
// what came back; the test reads it from the page over the DevTools protocol. A page of a listed
// origin gets the tool's result (and can read a 401's challenge); a page of an origin not listed
// sees its fetch fail, and the tool never runs. Both pages are on 127.0.0.1, which the guard
// lets through by name: what refuses the second is CORS, the browser's own check.
//
// Where /usr/bin/chromium is missing the test is ignored with a message, except under CI=true
// (.ci/run installs it), where its absence fails.
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { checkDefinition } from "../lib/primitives/tools.ts";
import { CHROMIUM, hasChromium, launchChromium, type Page } from "./_chromium.ts";
import { serveForTest, type TestHttpServer } from "./_http_server.ts";
import { withHangGuard } from "./_server_process.ts";

const UNDER_CI = Deno.env.get("CI") === "true";
const AVAILABLE = hasChromium();
if (!AVAILABLE && !UNDER_CI) {
  Deno.stderr.writeSync(new TextEncoder().encode(
    `tests: ${CHROMIUM} is missing, so the CORS browser test is ignored ` +
      "(apt-get install chromium runs it)\n",
  ));
}

const TOKEN = "br0wser-t0ken";

/**
 * The page: its script POSTs a tools/call to the server its fragment names (`#{"url":…}`),
 * with the token when given, and writes what it got, or how the fetch failed, into #result.
 * `window.outcome` settles once it has.
 */
const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>A page calling toolshed</title>
<pre id="result">calling…</pre>
<script>
window.outcome = (async () => {
  const { url, token } = JSON.parse(decodeURIComponent(location.hash.slice(1)));
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": "greet",
  };
  if (token) headers.authorization = "Bearer " + token;
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: {
      name: "greet",
      arguments: { from: location.origin },
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  });
  let shown;
  try {
    const response = await fetch(url, { method: "POST", headers, body });
    const answer = await response.json();
    shown = {
      status: response.status,
      challenge: response.headers.get("www-authenticate"),
      text: answer.result?.content?.[0]?.text ?? null,
      error: answer.error?.message ?? null,
    };
  } catch (error) {
    shown = { failed: error.name + ": " + error.message };
  }
  document.getElementById("result").textContent = JSON.stringify(shown);
})();
</script>
`;

/** A server of the page on a free port of 127.0.0.1: a page of origin `http://127.0.0.1:PORT`. */
function servePage(): { origin: string; server: Deno.HttpServer } {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }),
  );
  return { origin: `http://127.0.0.1:${server.addr.port}`, server };
}

/** The tool the pages call, counting its calls. */
function greetTool(calls: string[]) {
  return checkDefinition(
    {
      description: "greets the page that called",
      inputSchema: { type: "object", properties: { from: { type: "string" } } },
      handler: ({ from }: { from: string }) => {
        calls.push(from);
        return `hello, ${from}`;
      },
    },
    "greet",
    "greet",
  );
}

/** What the page at `pageOrigin` showed after calling `server` (with `token`). */
async function called(
  page: (url: string) => Promise<Page>,
  pageOrigin: string,
  server: TestHttpServer,
  token?: string,
): Promise<Record<string, unknown>> {
  const fragment = encodeURIComponent(JSON.stringify({ url: server.url, token }));
  const tab = await page(`${pageOrigin}/#${fragment}`);
  try {
    const shown = await tab.evaluate(
      'window.outcome.then(() => document.getElementById("result").textContent)',
    );
    strictEqual(typeof shown, "string");
    return JSON.parse(shown as string);
  } finally {
    await tab.close();
  }
}

Deno.test({
  name: "CORS in Chromium: a page of a listed origin calls a tool, a page of another is refused",
  ignore: !AVAILABLE && !UNDER_CI,
  async fn(t) {
    if (!AVAILABLE) throw new Error(`${CHROMIUM} is missing: .ci/run installs chromium`);
    const listed = servePage();
    const other = servePage();
    const calls: string[] = [];
    const open = await serveForTest([greetTool(calls)], { corsOrigins: [listed.origin] });
    const tokened = await serveForTest([greetTool(calls)], {
      corsOrigins: [listed.origin],
      bearerToken: TOKEN,
    });
    const browser = await launchChromium();
    try {
      await t.step("a page of the listed origin gets the tool's result", async () => {
        deepStrictEqual(await called(browser.open, listed.origin, open), {
          status: 200,
          challenge: null,
          text: `hello, ${listed.origin}`,
          error: null,
        });
        deepStrictEqual(calls, [listed.origin]);
      });

      await t.step(
        "a page of another origin sees its fetch fail, and the tool never runs",
        async () => {
          deepStrictEqual(await called(browser.open, other.origin, open), {
            failed: "TypeError: Failed to fetch",
          });
          deepStrictEqual(calls, [listed.origin], "the preflight's refusal stopped the POST");
        },
      );

      await t.step(
        "with a token: the page reads the 401's challenge without it, and calls with it",
        async () => {
          deepStrictEqual(await called(browser.open, listed.origin, tokened), {
            status: 401,
            challenge: 'Bearer realm="toolshed"',
            text: null,
            error: "Unauthorized: this server requires Authorization: Bearer with its token",
          });
          deepStrictEqual(await called(browser.open, listed.origin, tokened, TOKEN), {
            status: 200,
            challenge: null,
            text: `hello, ${listed.origin}`,
            error: null,
          });
          deepStrictEqual(await called(browser.open, other.origin, tokened, TOKEN), {
            failed: "TypeError: Failed to fetch",
          });
          deepStrictEqual(calls, [listed.origin, listed.origin]);
        },
      );
    } catch (error) {
      if (error instanceof Error) error.message += `\n--- Chromium's stderr ---\n${browser.log()}`;
      throw error;
    } finally {
      await browser.close();
      await open.close();
      await tokened.close();
      await withHangGuard(listed.server.shutdown(), "the listed page's server");
      await withHangGuard(other.server.shutdown(), "the other page's server");
    }
  },
});
