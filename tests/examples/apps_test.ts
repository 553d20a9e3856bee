// examples/apps served by main.ts to the official SDK client (adr/0048): the app a `ui://`
// resource of the extension's MIME type with its sidecar's `_meta.ui`, the tool's link in
// `_meta.ui.resourceUri` (and the legacy flat key), the extension declared. Its page rendered
// by a host in Chromium is tests/apps_browser_test.ts.
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/client@2.4.0";
import {
  EXTENSION_ID,
  RESOURCE_MIME_TYPE,
  RESOURCE_URI_META_KEY,
} from "npm:@modelcontextprotocol/ext-apps@2.0.4/server";
import { spawnHttpServer } from "../_server_process.ts";

const EXAMPLE = new URL("../../examples/apps/", import.meta.url).pathname;

Deno.test("examples/apps: the SDK client sees the app, its link and the extension", async () => {
  const server = await spawnHttpServer(["--dir", EXAMPLE]);
  const client = new Client({ name: "apps-test", version: "1.0.0" }, {
    capabilities: { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } },
  });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    const extensions = (client.getServerCapabilities() as { extensions?: Record<string, unknown> })
      .extensions;
    deepStrictEqual(extensions?.[EXTENSION_ID], { mimeTypes: [RESOURCE_MIME_TYPE] });
    const { tools } = await client.listTools();
    const greet = tools.find((tool) => tool.name === "greet");
    deepStrictEqual(greet?._meta?.ui, { resourceUri: "ui://greeter" });
    strictEqual(greet?._meta?.[RESOURCE_URI_META_KEY], "ui://greeter");
    ok(!("ui" in (greet ?? {})), "the field itself is not sent");
    const { resources } = await client.listResources();
    const app = resources.find((resource) => resource.uri === "ui://greeter");
    const ui = {
      csp: { resourceDomains: ["https://unpkg.com"] },
      prefersBorder: true,
    };
    deepStrictEqual(app, {
      uri: "ui://greeter",
      name: "greeter",
      title: "Greeter",
      description: "Asks the greet tool for a greeting and shows it",
      mimeType: RESOURCE_MIME_TYPE,
      _meta: { ui },
    });
    const read = await client.readResource({ uri: "ui://greeter" });
    const [contents] = read.contents as { mimeType: string; text: string; _meta: unknown }[];
    strictEqual(contents.mimeType, RESOURCE_MIME_TYPE);
    deepStrictEqual(contents._meta, { ui });
    strictEqual(
      contents.text,
      await Deno.readTextFile(`${EXAMPLE}ui/greeter.html`),
    );
  } finally {
    await client.close();
    await server.stop();
  }
});
