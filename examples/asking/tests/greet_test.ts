import assert from "node:assert/strict";
import { testServer } from "@toolshed/toolshed";
import type greet from "../tools/greet.ts";

Deno.test("greet asks the user's name, then greets them", async () => {
  const server = await testServer<{ greet: typeof greet }>({
    dir: new URL("../", import.meta.url),
  });
  // `answer`, an option of each request, replies to what the handler asks with ctx.request.
  const result = await server.call("greet", {}, {
    answer: (method, params) => {
      assert.equal(method, "elicitation/create");
      assert.equal(params.message, "What is your name?");
      return { action: "accept", content: { name: "Ada" } };
    },
  });
  assert.equal(result.content[0].text, "Hello, Ada!");
  // Without it, the question is the result, as a 2026-07-28 client reads it.
  const asked = await server.call("greet", {}, { clientCapabilities: { elicitation: {} } });
  assert.equal(asked.resultType, "input_required");
  assert.equal(asked.inputRequests?.input_1.method, "elicitation/create");
});
