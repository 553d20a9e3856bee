import assert from "node:assert/strict";
import { testServer } from "@toolshed/toolshed";

Deno.test("add adds", async () => {
  const server = await testServer({ dir: new URL("../", import.meta.url) });
  assert.deepEqual(await server.call("add", { a: 1, b: 2 }), {
    content: [{ type: "text", text: "3" }],
  });
  assert.equal((await server.call("add", { a: 1 })).isError, true);
});
