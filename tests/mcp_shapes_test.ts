import { strictEqual } from "node:assert/strict";
import { checkAnnotations, checkCallToolResult, checkIcons } from "../lib/schema/mcp_shapes.ts";

Deno.test("checkIcons() accepts https: and data: icons and names what is wrong with others", () => {
  strictEqual(checkIcons([{ src: "https://example.com/a.png", sizes: ["48x48"] }]), undefined);
  strictEqual(checkIcons([{ src: "data:image/png;base64,AA==", theme: "dark" }]), undefined);
  strictEqual(
    checkIcons([{ src: "http://example.com/a.png" }]),
    'at "/0/src": String does not match pattern',
  );
  strictEqual(
    checkIcons([{ sizes: "48x48" }]),
    'at "/0": Instance does not have required property "src"; at "/0/sizes": Instance type "string" is invalid. Expected "array"',
  );
});

Deno.test("checkAnnotations() wants the hints to be booleans", () => {
  strictEqual(checkAnnotations({ readOnlyHint: true, title: "T" }), undefined);
  strictEqual(
    checkAnnotations({ destructiveHint: "no" }),
    'at "/destructiveHint": Instance type "string" is invalid. Expected "boolean"',
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
    'at "/content/0/resource": Instance does not match any subschemas; at "/content/0/resource": Instance does not have required property "text"; at "/content/0/resource": Instance does not have required property "blob"',
  );
  strictEqual(
    checkCallToolResult({ content: [{ type: "video" }] }),
    'at "/content/0/type": Instance does not match any of ["text","image","audio","resource_link","resource"]',
  );
});
