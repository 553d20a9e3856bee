import assert from "node:assert/strict";
import { testServer } from "@toolshed/toolshed";
import type add from "../tools/add.ts";

Deno.test("add adds", async () => {
  // { add: typeof add } types calls to add: its arguments, and its result.
  const server = await testServer<{ add: typeof add }>({ dir: new URL("../", import.meta.url) });
  const result = await server.call("add", { a: 1, b: 2 });
  assert.equal(result.content[0].text, "3");
  assert.deepEqual(result, { content: [{ type: "text", text: "3" }] });
  // Arguments the schema refuses fail type-checking, and the server refuses them as well.
  const partial = { a: 1 };
  // @ts-expect-error: add needs b
  assert.equal((await server.call("add", partial)).isError, true);
});
