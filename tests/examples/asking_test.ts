// examples/asking: what its README promises. It type-checks; a 2026-07-28 client gets the
// question as an input_required result with a sealed requestState and retries with the answer
// (testServer answers as such a client); an answer of the wrong shape is asked again; two
// questions awaited together are one round, each under its key; a 2025-era client over a real
// stdio pipe gets a real elicitation/create request and its answer comes back by id.
import assert from "node:assert/strict";
import { testServer } from "../../mod.ts";
import { openSession, spawnServer, withHangGuard } from "../_server_process.ts";
import { exampleDir } from "./_example.ts";

const DIR = exampleDir("asking");

Deno.test("examples/asking: greet asks a 2026-07-28 client in an input_required round, then greets", async () => {
  const server = await testServer({ dir: DIR });
  const asked = await server.call("greet", {}, { clientCapabilities: { elicitation: {} } });
  assert.equal(asked.resultType, "input_required");
  assert.equal(typeof asked.requestState, "string");
  assert.deepEqual(asked.inputRequests, {
    input_1: {
      method: "elicitation/create",
      params: {
        message: "What is your name?",
        requestedSchema: {
          type: "object",
          properties: { name: { type: "string" } },
          required: ["name"],
        },
      },
    },
  });
  const accept = () => ({ action: "accept", content: { name: "Ada" } });
  assert.deepEqual(await server.call("greet", {}, { answer: accept }), {
    content: [{ type: "text", text: "Hello, Ada!" }],
  });
  assert.deepEqual(await server.call("greet", {}, { answer: () => ({ action: "decline" }) }), {
    content: [{ type: "text", text: "Hello, stranger!" }],
  });
});

Deno.test("examples/asking: an answer of the wrong shape is asked again; one without a name is a stranger", async () => {
  const server = await testServer({ dir: DIR });
  // An elicitation result without an action is no answer: the question is asked again.
  const answers = [{ content: { name: "Ada" } }, { action: "accept", content: { name: "Ada" } }];
  let asked = 0;
  const result = await server.call("greet", {}, { answer: () => answers[asked++] });
  assert.deepEqual(result, { content: [{ type: "text", text: "Hello, Ada!" }] });
  assert.equal(asked, 2);
  // Its content is the client's own: greet checks it.
  const nameless = await server.call("greet", {}, {
    answer: () => ({ action: "accept", content: { name: 42 } }),
  });
  assert.deepEqual(nameless, { content: [{ type: "text", text: "Hello, stranger!" }] });
});

Deno.test("examples/asking: introduce asks both questions in one round, under its keys", async () => {
  const server = await testServer({ dir: DIR });
  const asked = await server.call("introduce", {}, { clientCapabilities: { elicitation: {} } });
  assert.deepEqual(Object.keys(asked.inputRequests as object).sort(), ["city", "name"]);
  const rounds: string[][] = [];
  const result = await server.call("introduce", {}, {
    answer: (_method, params) => {
      rounds.push([String(params.message)]);
      return {
        action: "accept",
        content: { text: params.message === "What is your name?" ? "Ada" : "London" },
      };
    },
  });
  assert.deepEqual(result, { content: [{ type: "text", text: "This is Ada from London." }] });
  assert.deepEqual(rounds.flat().sort(), ["What is your name?", "Where do you live?"]);
});

Deno.test("examples/asking: a 2025-era client over stdio gets a real request and answers it by id", async () => {
  const server = spawnServer(["--dir", DIR]);
  try {
    const next = async () => JSON.parse((await withHangGuard(server.nextLine(), "a line"))!);
    const opened = await openSession(server, "example-test", { elicitation: {} });
    assert.equal(opened.result?.protocolVersion, "2025-11-25");
    await server.send(JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "greet", arguments: {} },
    }));
    const question = await next();
    assert.equal(question.method, "elicitation/create");
    assert.equal(question.params.message, "What is your name?");
    await server.send(JSON.stringify({
      jsonrpc: "2.0",
      id: question.id,
      result: { action: "accept", content: { name: "Ada" } },
    }));
    assert.deepEqual(await next(), {
      jsonrpc: "2.0",
      id: 2,
      result: { content: [{ type: "text", text: "Hello, Ada!" }] },
    });
  } finally {
    const { code } = await server.finish();
    assert.equal(code, 0);
  }
});
