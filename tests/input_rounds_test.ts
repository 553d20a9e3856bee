// Tools and prompts that ask the client (lib/rounds/input_rounds.ts, request_state.ts): in
// 2026-07-28 as input_required rounds with a sealed requestState, in a 2025 session as real
// requests, the same handler code. Through the real core over stdio, in this process, with
// the conformance fixture's tools.
import { deepStrictEqual, match, notStrictEqual, ok, strictEqual } from "node:assert/strict";
import { startInProcess } from "./_in_process.ts";
import {
  openState,
  REQUEST_STATE_TTL_MS,
  SEALED_ELSEWHERE,
  sealState,
  stateKey,
  TAMPERED,
} from "../lib/rounds/request_state.ts";
import { createKeyRing } from "../lib/rounds/key_ring.ts";
import { createRounds } from "../lib/rounds/input_rounds.ts";
import { InputRequired } from "../lib/primitives/input_required.ts";

type Message = Record<string, unknown> & {
  id?: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
};

const CAPABILITIES = { elicitation: {}, sampling: {}, roots: {} };
const meta = (clientCapabilities: Record<string, unknown> = CAPABILITIES) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": clientCapabilities,
});
const accept = (content: Record<string, unknown>) => ({ action: "accept", content });

/** Sends each request in turn to a fresh server; the answers, in order. */
async function exchange(...requests: Record<string, unknown>[]): Promise<Message[]> {
  const server = await startInProcess(["--dir", "tests/conformance/fixture"]);
  const answers: Message[] = [];
  for (const [index, request] of requests.entries()) {
    server.send(JSON.stringify({ jsonrpc: "2.0", id: index + 1, ...request }));
    const line = await server.nextLine();
    ok(line !== null, "the server answers");
    answers.push(JSON.parse(line));
  }
  await server.end();
  return answers;
}

/** One round of a tool call; `round` adds inputResponses and requestState. */
function callTool(
  name: string,
  round: Record<string, unknown> = {},
  capabilities?: Record<string, unknown>,
) {
  return {
    method: "tools/call",
    params: { name, arguments: {}, ...round, _meta: meta(capabilities) },
  };
}

/** Runs a whole conversation on one server: each round built from the previous answer. */
async function conversation(
  ...rounds: ((previous: Message | undefined) => Record<string, unknown>)[]
): Promise<Message[]> {
  const server = await startInProcess(["--dir", "tests/conformance/fixture"]);
  const answers: Message[] = [];
  for (const [index, round] of rounds.entries()) {
    server.send(JSON.stringify({ jsonrpc: "2.0", id: index + 1, ...round(answers.at(-1)) }));
    answers.push(JSON.parse((await server.nextLine())!));
  }
  await server.end();
  return answers;
}

Deno.test("a 2026-07-28 tool asks with input_required, then completes with the answer and its requestState", async () => {
  const [first, second] = await conversation(
    () => callTool("test_input_required_result_elicitation"),
    (previous) =>
      callTool("test_input_required_result_elicitation", {
        inputResponses: { user_name: accept({ name: "Alice" }) },
        requestState: previous!.result!.requestState,
      }),
  );
  const asked = first.result!;
  strictEqual(asked.resultType, "input_required");
  deepStrictEqual(Object.keys(asked.inputRequests as object), ["user_name"]);
  deepStrictEqual(
    (asked.inputRequests as Record<string, { method: string }>).user_name.method,
    "elicitation/create",
  );
  strictEqual(typeof asked.requestState, "string");
  strictEqual(asked.ttlMs, undefined, "an incomplete result carries no cache hints");
  deepStrictEqual(second.result!.content, [{ type: "text", text: "Hello, Alice!" }]);
  strictEqual(second.result!.resultType, "complete");
});

Deno.test("a 2026-07-28 tool asks again for an answer that is missing, misnamed or malformed", async () => {
  const [wrongKey, malformed] = await exchange(
    callTool("test_input_required_result_elicitation", {
      inputResponses: { wrong_key: accept({ name: "Alice" }) },
    }),
    callTool("test_input_required_result_elicitation", { inputResponses: { user_name: 42 } }),
  );
  for (const answer of [wrongKey, malformed]) {
    strictEqual(answer.result!.resultType, "input_required", JSON.stringify(answer));
    deepStrictEqual(Object.keys(answer.result!.inputRequests as object), ["user_name"]);
  }
});

Deno.test("a 2026-07-28 retry with a tampered, foreign or malformed requestState is -32602", async () => {
  const [first, tampered, foreign, malformed, notObject] = await conversation(
    () => callTool("test_input_required_result_tampered_state"),
    (previous) =>
      callTool("test_input_required_result_tampered_state", {
        inputResponses: { confirm: accept({ ok: true }) },
        requestState: `${previous!.result!.requestState}-TAMPERED`,
      }),
    () => callTool("test_input_required_result_elicitation", { requestState: "x.y" }),
    () => callTool("test_input_required_result_elicitation", { requestState: 7 }),
    () => callTool("test_input_required_result_elicitation", { inputResponses: [] }),
  );
  strictEqual(first.result!.resultType, "input_required");
  for (const refused of [tampered, foreign, malformed]) {
    strictEqual(refused.error?.code, -32602, JSON.stringify(refused));
    match(refused.error!.message, /^Invalid requestState: /);
  }
  deepStrictEqual(notObject.error, {
    code: -32602,
    message: "Invalid params: inputResponses must be an object",
  });
});

Deno.test("a 2026-07-28 requestState is bound to its tool and arguments", async () => {
  const [first, elsewhere] = await conversation(
    () => callTool("test_input_required_result_request_state"),
    (previous) =>
      callTool("test_input_required_result_tampered_state", {
        inputResponses: { confirm: accept({ ok: true }) },
        requestState: previous!.result!.requestState,
      }),
  );
  strictEqual(first.result!.resultType, "input_required");
  deepStrictEqual(elsewhere.error, {
    code: -32602,
    message: "Invalid requestState: requestState belongs to another request",
  });
});

Deno.test("a 2026-07-28 tool asks in as many rounds as it awaits in turn, and all at once what it awaits together", async () => {
  const rounds = await conversation(
    () => callTool("test_input_required_result_multi_round"),
    (previous) =>
      callTool("test_input_required_result_multi_round", {
        inputResponses: { step1: accept({ name: "Alice" }) },
        requestState: previous!.result!.requestState,
      }),
    (previous) =>
      callTool("test_input_required_result_multi_round", {
        inputResponses: { step2: accept({ color: "blue" }) },
        requestState: previous!.result!.requestState,
      }),
    () => callTool("test_input_required_result_multiple_inputs"),
  );
  deepStrictEqual(rounds.map((answer) => answer.result!.resultType), [
    "input_required",
    "input_required",
    "complete",
    "input_required",
  ]);
  notStrictEqual(rounds[0].result!.requestState, rounds[1].result!.requestState);
  deepStrictEqual(rounds[2].result!.content, [{ type: "text", text: "Alice likes blue" }]);
  const together = rounds[3].result!.inputRequests as Record<string, { method: string }>;
  deepStrictEqual(
    Object.entries(together).map(([key, request]) => [key, request.method]),
    [
      ["user_name", "elicitation/create"],
      ["greeting", "sampling/createMessage"],
      ["client_roots", "roots/list"],
    ],
  );
});

Deno.test("a 2026-07-28 tool asks only what the client declared it can answer", async () => {
  const [onlySampling, nothing] = await exchange(
    callTool("test_input_required_result_capabilities", {}, { sampling: {} }),
    callTool("test_input_required_result_capabilities", {}, {}),
  );
  deepStrictEqual(Object.keys(onlySampling.result!.inputRequests as object), ["kind_words"]);
  // Nothing to ask: the tool completes without the answers.
  strictEqual(nothing.result!.resultType, "complete");
  match(
    String((nothing.result!.content as { text: string }[])[0].text),
    /no name \(Cannot send elicitation\/create: the client did not declare/,
  );
});

Deno.test("a question refused for an undeclared capability takes no number: the next is input_1 in every run", async () => {
  // A relayed upstream may ask roots/list in one run and not the next (server-everything
  // does 350 ms after its handshake): the elicitation after it must keep its name, or the
  // answer the client gave is not found and the person is asked the same question again.
  const controller = new AbortController();
  const binding = { method: "tools/call", name: "ask", args: {} };
  const rounds = createRounds(controller, { elicitation: {} }, {}, createKeyRing([]), binding);
  const refused = await rounds.request("roots/list", {}).then(() => "answered", String);
  match(refused, /did not declare the "roots" capability/);
  const waiting = rounds.request("elicitation/create", { message: "Name?" }).catch(() => {});
  await new Promise((resolve) => setTimeout(resolve, 0));
  ok(controller.signal.reason instanceof InputRequired, String(controller.signal.reason));
  deepStrictEqual(Object.keys(controller.signal.reason.requests), ["input_1"]);
  await waiting;
});

Deno.test("a 2026-07-28 prompt asks with input_required too, then gives its messages", async () => {
  const [first, second] = await conversation(
    () => ({
      method: "prompts/get",
      params: { name: "test_input_required_result_prompt", _meta: meta() },
    }),
    (previous) => ({
      method: "prompts/get",
      params: {
        name: "test_input_required_result_prompt",
        inputResponses: { user_context: accept({ context: "tests" }) },
        requestState: previous!.result!.requestState,
        _meta: meta(),
      },
    }),
  );
  deepStrictEqual(Object.keys(first.result!.inputRequests as object), ["user_context"]);
  deepStrictEqual(second.result!.messages, [{
    role: "user",
    content: { type: "text", text: "Using this context: tests" },
  }]);
});

Deno.test("the same tool in a 2025-11-25 session sends the client a real request and uses its answer", async () => {
  const server = await startInProcess(["--dir", "tests/conformance/fixture"]);
  const send = (message: Record<string, unknown>) =>
    server.send(JSON.stringify({ jsonrpc: "2.0", ...message }));
  send({
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: { elicitation: {} },
      clientInfo: { name: "t", version: "1" },
    },
  });
  await server.nextLine();
  send({ id: 1, method: "tools/call", params: { name: "test_input_required_result_elicitation" } });
  const asked = JSON.parse((await server.nextLine())!);
  deepStrictEqual([asked.id, asked.method], ["toolshed-1", "elicitation/create"]);
  send({ id: asked.id, result: accept({ name: "Bob" }) });
  const answer = JSON.parse((await server.nextLine())!);
  deepStrictEqual(answer, {
    jsonrpc: "2.0",
    id: 1,
    result: { content: [{ type: "text", text: "Hello, Bob!" }] },
  });
  await server.end();
});

Deno.test("openState() refuses expired state and accepts arguments in any key order", async () => {
  const key = await stateKey("0123456789abcdef0123456789abcdef");
  const binding = { method: "tools/call", name: "t", args: { a: 1, b: [1, { c: 2, d: 3 }] } };
  const sealed = await sealState(key, binding, { k: { action: "cancel" } }, 1_000);
  deepStrictEqual(
    await openState([key], sealed, { ...binding, args: { b: [1, { d: 3, c: 2 }], a: 1 } }, 1_000),
    { k: { action: "cancel" } },
  );
  strictEqual(
    await openState([key], sealed, binding, 1_000 + REQUEST_STATE_TTL_MS + 1),
    "requestState has expired",
  );
  strictEqual(
    await openState(
      [await stateKey("another secret of thirty-two chars!!")],
      sealed,
      binding,
      1_000,
    ),
    SEALED_ELSEWHERE,
  );
});

Deno.test("openState() tells state changed by a client from state sealed with another key", async () => {
  const key = await stateKey("0123456789abcdef0123456789abcdef");
  const binding = { method: "tools/call", name: "t", args: {} };
  const sealed = await sealState(key, binding, { k: { action: "decline" } });
  const [payload, mac] = sealed.split(".");
  const text = new TextDecoder().decode(
    Uint8Array.from(
      atob(payload.replaceAll("-", "+").replaceAll("_", "/")),
      (c) => c.charCodeAt(0),
    ),
  );
  // The payload names its key by a fingerprint, which says nothing of the key itself.
  const fingerprint = JSON.parse(text).k;
  match(fingerprint, /^[A-Za-z0-9_-]{11}$/);
  ok(!text.includes("0123456789abcdef"));
  const reseal = (changed: string) =>
    `${btoa(changed).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "")}.${mac}`;
  // Answers changed, the fingerprint kept: changed.
  strictEqual(
    await openState([key], reseal(text.replace('"decline"', '"accept"')), binding),
    TAMPERED,
  );
  // Another fingerprint, or none: only the first is another key's.
  strictEqual(
    await openState([key], reseal(text.replace(fingerprint, "AAAAAAAAAAA")), binding),
    SEALED_ELSEWHERE,
  );
  strictEqual(
    await openState([key], reseal(text.replace(`"k":"${fingerprint}",`, "")), binding),
    TAMPERED,
  );
  deepStrictEqual(await openState([key], sealed, binding), { k: { action: "decline" } });
});

Deno.test("openState() refuses a state whose last character differs only in unused bits", async () => {
  const key = await stateKey("0123456789abcdef0123456789abcdef");
  const binding = { method: "tools/call", name: "t", args: {} };
  const sealed = await sealState(key, binding, { k: 1 });
  // 32 MAC bytes are 43 base64url characters: the last one carries 4 bits and 2 unused ones.
  const last = sealed.at(-1)!;
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  const sameBits = alphabet[alphabet.indexOf(last) ^ 1];
  strictEqual(
    await openState([key], sealed.slice(0, -1) + sameBits, binding),
    "requestState is not one this server issued",
  );
  deepStrictEqual(await openState([key], sealed, binding), { k: 1 });
});

Deno.test("a key ring signs with its first key and opens state sealed with any of its keys (a rotation)", async () => {
  const [oldSecret, newSecret] = [
    "old-secret-of-thirty-two-characters!",
    "new-secret-of-thirty-two-characters!",
  ];
  const binding = { method: "tools/call", name: "t", args: {} };
  const before = createKeyRing([oldSecret]);
  const during = createKeyRing([newSecret, oldSecret]);
  const after = createKeyRing([newSecret]);
  const sealedBefore = await sealState(await before.signing(), binding, { k: 1 });
  const sealedDuring = await sealState(await during.signing(), binding, { k: 2 });
  deepStrictEqual(await openState(await during.verifying(), sealedBefore, binding), { k: 1 });
  deepStrictEqual(await openState(await after.verifying(), sealedDuring, binding), { k: 2 });
  strictEqual(
    await openState(await after.verifying(), sealedBefore, binding),
    SEALED_ELSEWHERE,
    "a key dropped from the ring opens nothing",
  );
  const random = createKeyRing();
  strictEqual((await random.verifying()).length, 1);
  strictEqual(await random.signing(), (await random.verifying())[0]);
});

Deno.test("openState() refuses state sealed for another caller, and state sealed without one to a caller", async () => {
  const key = await stateKey("0123456789abcdef0123456789abcdef");
  const binding = { method: "tools/call", name: "t", args: {} };
  const alice = JSON.stringify(["https://issuer.example", "alice"]);
  const bob = JSON.stringify(["https://issuer.example", "bob"]);
  const sealed = await sealState(key, { ...binding, caller: alice }, { k: 1 }, 1_000);
  deepStrictEqual(await openState([key], sealed, { ...binding, caller: alice }, 1_000), { k: 1 });
  for (const other of [bob, undefined]) {
    strictEqual(
      await openState([key], sealed, { ...binding, caller: other }, 1_000),
      "requestState was issued to another caller",
    );
  }
  const anonymous = await sealState(key, binding, { k: 1 }, 1_000);
  strictEqual(
    await openState([key], anonymous, { ...binding, caller: alice }, 1_000),
    "requestState was issued to another caller",
  );
});
