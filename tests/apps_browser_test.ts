// MCP Apps rendered the way a host renders them (adr/0048): Debian's headless Chromium loads a
// host page whose script is the official SDK's client (connected to main.ts over Streamable
// HTTP, --cors-origin naming the page's origin) and the official ext-apps package's AppBridge.
// The page lists the tools, reads the app the tool "greet" links to (examples/apps'
// ui/greeter.html, its script loaded from this test's server instead of unpkg.com, which its
// sidecar's CSP then names), and renders it in a sandboxed iframe under that CSP. Over the
// DevTools protocol the test clicks the app's button: the app calls "greet" through the bridge,
// the host relays it to toolshed, and the test reads the answer the frame shows.
//
// Where /usr/bin/chromium is missing the test is ignored with a message, except under CI=true.
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { CHROMIUM, hasChromium, launchChromium } from "./_chromium.ts";
import { spawnHttpServer, withHangGuard } from "./_server_process.ts";

const UNDER_CI = Deno.env.get("CI") === "true";
const AVAILABLE = hasChromium();
if (!AVAILABLE && !UNDER_CI) {
  Deno.stderr.writeSync(new TextEncoder().encode(
    `tests: ${CHROMIUM} is missing, so the MCP Apps browser test is ignored ` +
      "(apt-get install chromium runs it)\n",
  ));
}

const EXAMPLE = new URL("../examples/apps/", import.meta.url);
const UNPKG = "https://unpkg.com/@modelcontextprotocol/ext-apps@2.0.4/dist/src/app-with-deps.js";
const HOST_PAGE = `<!doctype html>
<meta charset="utf-8">
<title>A host of MCP Apps</title>
<script type="module" src="/host.js"></script>
`;

/** Runs `deno` with `args`; its stdout, or throws with its stderr. */
async function deno(args: string[]): Promise<string> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), { args }).output();
  const decoder = new TextDecoder();
  if (code !== 0) throw new Error(`deno ${args.join(" ")}:\n${decoder.decode(stderr)}`);
  return decoder.decode(stdout);
}

/** The published file the app imports: the package's `./app-with-deps` export. */
async function appWithDeps(): Promise<string> {
  await deno(["cache", "npm:@modelcontextprotocol/ext-apps@2.0.4"]);
  const { npmCache } = JSON.parse(await deno(["info", "--json"]));
  return `${npmCache}/registry.npmjs.org/@modelcontextprotocol/ext-apps/2.0.4/dist/src/` +
    "app-with-deps.js";
}

Deno.test({
  name: "MCP Apps in Chromium: an ext-apps host renders ui/greeter and its button calls greet",
  ignore: !AVAILABLE && !UNDER_CI,
  async fn() {
    if (!AVAILABLE) throw new Error(`${CHROMIUM} is missing: .ci/run installs chromium`);
    const work = await Deno.makeTempDir({ prefix: "toolshed_apps_browser_" });
    const hostJs = `${work}/host.js`;
    await deno([
      "bundle",
      "--platform",
      "browser",
      "-o",
      hostJs,
      new URL("./fixtures/apps_host/host.js", import.meta.url).pathname,
    ]);
    const files: Record<string, { path: string; type: string }> = {
      "/host.js": { path: hostJs, type: "text/javascript" },
      "/app-with-deps.js": { path: await appWithDeps(), type: "text/javascript" },
    };
    const statics = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
      const path = new URL(req.url).pathname;
      // A sandboxed frame's origin is opaque: its module script is fetched with CORS.
      const headers = { "access-control-allow-origin": "*" };
      if (path === "/") {
        return new Response(HOST_PAGE, { headers: { ...headers, "content-type": "text/html" } });
      }
      const file = files[path];
      if (file === undefined) return new Response("not found", { status: 404 });
      return new Response(await Deno.readFile(file.path), {
        headers: { ...headers, "content-type": file.type },
      });
    });
    const origin = `http://127.0.0.1:${statics.addr.port}`;
    // examples/apps, but for where the app's script comes from (this machine is offline).
    await Deno.mkdir(`${work}/dir/tools`, { recursive: true });
    await Deno.mkdir(`${work}/dir/ui`);
    await Deno.copyFile(new URL("tools/greet.ts", EXAMPLE), `${work}/dir/tools/greet.ts`);
    const html = await Deno.readTextFile(new URL("ui/greeter.html", EXAMPLE));
    strictEqual(html.includes(UNPKG), true, "the example imports the package from unpkg.com");
    await Deno.writeTextFile(
      `${work}/dir/ui/greeter.html`,
      html.replace(UNPKG, `${origin}/app-with-deps.js`),
    );
    const sidecar = JSON.parse(await Deno.readTextFile(new URL("ui/greeter.json", EXAMPLE)));
    sidecar.csp.resourceDomains = [origin];
    await Deno.writeTextFile(`${work}/dir/ui/greeter.json`, JSON.stringify(sidecar));

    const server = await spawnHttpServer(["--dir", `${work}/dir`, "--cors-origin", origin]);
    const browser = await launchChromium();
    try {
      const fragment = encodeURIComponent(JSON.stringify({ url: server.url, tool: "greet" }));
      const page = await browser.open(`${origin}/#${fragment}`);
      deepStrictEqual(await page.evaluate("globalThis.hosted"), {
        uri: "ui://greeter",
        mimeType: "text/html;profile=mcp-app",
        serverExtensions: {
          "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] },
        },
        uiMeta: { csp: { resourceDomains: [origin] }, prefersBorder: true },
      });
      // In the frame: wait (bounded) for the app to be connected, type a name, click, and wait
      // for the answer it shows.
      const shown = await page.evaluateInFrame(`(async () => {
        const button = document.getElementById("greet");
        const answer = document.getElementById("answer");
        for (let i = 0; i < 400 && button.disabled; i++) await new Promise((r) => setTimeout(r, 25));
        if (button.disabled) return "the app never connected";
        document.getElementById("name").value = "Chromium";
        button.click();
        for (let i = 0; i < 400 && answer.textContent === ""; i++) {
          await new Promise((r) => setTimeout(r, 25));
        }
        return answer.textContent;
      })()`);
      strictEqual(shown, "Hello, Chromium!");
      await page.close();
    } catch (error) {
      if (error instanceof Error) {
        error.message += `\n--- Chromium's stderr ---\n${browser.log()}\n--- toolshed's ---\n` +
          server.stderr().join("\n");
      }
      throw error;
    } finally {
      await browser.close();
      await server.stop();
      await withHangGuard(statics.shutdown(), "the static server");
      await Deno.remove(work, { recursive: true });
    }
  },
});
