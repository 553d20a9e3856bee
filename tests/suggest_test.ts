// "Did you mean …?" (lib/util/suggest.ts) and the messages that use it: a mistyped field of a
// tool, a flag, a tool name.
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { closest, didYouMean } from "../lib/util/suggest.ts";
import { checkDefinition } from "../lib/primitives/tools.ts";
import { parseCommand } from "../lib/host/cli.ts";
import { startInProcess } from "./_in_process.ts";

Deno.test("closest() finds a typo's word (a letter missing, extra, changed or swapped) and nothing for another word", () => {
  const fields = ["description", "inputSchema", "outputSchema", "timeoutMs", "title"];
  strictEqual(closest("descripton", fields), "description");
  strictEqual(closest("descriptoin", fields), "description");
  strictEqual(closest("inputschema", fields), "inputSchema");
  strictEqual(closest("titel", fields), "title");
  strictEqual(closest("handlr", fields), undefined);
  strictEqual(closest("x", fields), undefined);
  strictEqual(didYouMean("timeoutMS", fields), '; did you mean "timeoutMs"?');
  strictEqual(didYouMean("colour", fields), "");
});

Deno.test("a tool with a mistyped field is refused with the field it meant", () => {
  let message = "";
  try {
    checkDefinition(
      { descripton: "Adds", inputSchema: { type: "object" }, handler: () => 1 },
      "add",
      "tools/add.ts",
    );
  } catch (error) {
    message = (error as Error).message;
  }
  strictEqual(message, 'unknown field "descripton"; did you mean "description"?');
});

Deno.test("a mistyped flag is a usage error naming the flag meant", () => {
  deepStrictEqual(parseCommand(["--tolls", "x"]), {
    kind: "usage-error",
    message: 'Unknown option "--tolls"; did you mean --tools?',
  });
  deepStrictEqual(parseCommand(["--frobnicate"]), {
    kind: "usage-error",
    message: 'Unknown option "--frobnicate"',
  });
});

Deno.test("an unknown tool is answered with the tool meant, or the tools there are", async () => {
  const server = await startInProcess();
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const call = async (id: number, name: string) => {
    server.send(JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, _meta: meta },
    }));
    return JSON.parse((await server.nextLine())!).error.message;
  };
  strictEqual(await call(1, "ecoh"), 'Unknown tool: "ecoh"; did you mean "echo"?');
  strictEqual(
    await call(2, "nope"),
    'Unknown tool: "nope" (this server has "boom", "careless", "chatty", "echo", "liar", ' +
      '"numbers", "quitter", "slow", "stubborn")',
  );
  await server.end();
});
