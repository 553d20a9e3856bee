import { strictEqual } from "node:assert/strict";
import { checkAnnotations, checkCallToolResult, checkIcons } from "../lib/schema/mcp_shapes.ts";

Deno.test("checkIcons() accepts https: and data: icons and names what is wrong with others", () => {
  strictEqual(checkIcons([{ src: "https://example.com/a.png", sizes: ["48x48"] }]), undefined);
  strictEqual(checkIcons([{ src: "data:image/png;base64,AA==", theme: "dark" }]), undefined);
  strictEqual(
    checkIcons([{ src: "http://example.com/a.png" }]),
    'at "/0/src": does not match its "pattern"',
  );
  strictEqual(
    checkIcons([{ sizes: "48x48" }]),
    'at "/0": missing required property "src"; at "/0/sizes": expected an array, got a string',
  );
});

Deno.test("checkAnnotations() wants the hints to be booleans", () => {
  strictEqual(checkAnnotations({ readOnlyHint: true, title: "T" }), undefined);
  strictEqual(
    checkAnnotations({ destructiveHint: "no" }),
    'at "/destructiveHint": expected a boolean, got a string',
  );
});

Deno.test("checkCallToolResult() checks each content block by its type", () => {
  strictEqual(
    checkCallToolResult({
      content: [
        { type: "text", text: "t" },
        { type: "image", data: "AA==", mimeType: "image/png" },
        { type: "audio", data: "AA==", mimeType: "audio/wav" },
        { type: "resource_link", uri: "file:///a", name: "a" },
        { type: "resource", resource: { uri: "file:///a", text: "x" } },
      ],
      isError: false,
    }),
    undefined,
  );
  strictEqual(
    checkCallToolResult({ content: [{ type: "resource", resource: { uri: "file:///a" } }] }),
    'at "/content/0/resource": matches none of the "anyOf" choices; at "/content/0/resource": missing required property "text"; at "/content/0/resource": missing required property "blob"',
  );
  strictEqual(
    checkCallToolResult({ content: [{ type: "video" }] }),
    'at "/content/0/type": must be one of ["text","image","audio","resource_link","resource"]',
  );
});
