import { strictEqual } from "node:assert/strict";
import { clientText, clientWord, quotedClientText } from "../lib/util/client_text.ts";

Deno.test("clientWord() leaves a plain word as it is and quotes anything that could pose as another field", () => {
  for (const word of ["tools/call", "notifications/initialized", "POST", "/mcp/a-b_c.d~%20"]) {
    strictEqual(clientWord(word), word);
  }
  strictEqual(clientWord("-"), '"-"'); // not the "no method" of a refused body
  strictEqual(clientWord(""), '""');
  strictEqual(clientWord("3.1"), '"3.1"'); // not a duration
  strictEqual(clientWord('tools/call by "admin"'), '"tools/call by \\"admin\\""');
  strictEqual(clientWord("a\nb\r\u001b[2K"), '"a\\nb\\r\\u001b[2K"');
  strictEqual(clientWord("a\\b"), '"a\\\\b"');
  strictEqual(clientWord("é"), '"é"');
});

Deno.test("clientText() cuts at 128 characters, says how long the text was, and keeps a surrogate pair whole", () => {
  strictEqual(clientText("a".repeat(128)), "a".repeat(128));
  strictEqual(clientText("a".repeat(1_000_000)), `${"a".repeat(128)}… (1000000 characters)`);
  strictEqual(clientText(`${"a".repeat(127)}😀b`), `${"a".repeat(127)}… (130 characters)`);
  strictEqual(clientWord("m".repeat(129)), `"${"m".repeat(128)}… (129 characters)"`);
  strictEqual(quotedClientText("x\ny"), '"x\\ny"');
});
