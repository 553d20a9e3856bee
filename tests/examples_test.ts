// The example resources and prompts of the repository (resources/, prompts/) work as the README
// says: served through the real core over stdio in this process, in both eras.
import assert from "node:assert/strict";
import { startInProcess } from "./_in_process.ts";

const REPO = decodeURIComponent(new URL("../", import.meta.url).pathname);
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** Serves the example folders (and no tools: a user may have added some) and asks `requests`. */
async function ask(
  requests: { method: string; params?: Record<string, unknown> }[],
): Promise<Record<string, unknown>[]> {
  const server = await startInProcess([
    "--resources",
    `${REPO}resources`,
    "--prompts",
    `${REPO}prompts`,
  ]);
  requests.forEach(({ method, params }, index) =>
    server.send(JSON.stringify({
      jsonrpc: "2.0",
      id: index + 1,
      method,
      params: { ...params, _meta: META },
    }))
  );
  const answers: Record<string, unknown>[] = [];
  while (answers.length < requests.length) {
    const line = await server.nextLine();
    assert.notEqual(line, null, "the server ended before answering every request");
    answers.push(JSON.parse(line!));
  }
  await server.end();
  return answers.sort((a, b) => Number(a.id) - Number(b.id));
}

function resultOf(answer: Record<string, unknown>): Record<string, unknown> {
  assert.ok(answer.result, JSON.stringify(answer));
  return answer.result as Record<string, unknown>;
}

Deno.test("examples: resources/ serves the guide as text, the logo as a PNG blob and notes by topic", async () => {
  const [list, guide, logo, note, missing, topics] = await ask([
    { method: "resources/list" },
    { method: "resources/read", params: { uri: "toolshed:///guide.md" } },
    { method: "resources/read", params: { uri: "toolshed:///logo.png" } },
    { method: "resources/read", params: { uri: "notes://prompts" } },
    { method: "resources/read", params: { uri: "notes://cobol" } },
    {
      method: "completion/complete",
      params: {
        ref: { type: "ref/resource", uri: "notes://{topic}" },
        argument: { name: "topic", value: "" },
      },
    },
  ]);
  const uris = (resultOf(list).resources as { uri: string }[]).map((resource) => resource.uri);
  assert.ok(uris.includes("toolshed:///guide.md") && uris.includes("toolshed:///logo.png"));
  const [guideText] = resultOf(guide).contents as { text: string; mimeType: string }[];
  assert.equal(guideText.mimeType, "text/markdown");
  assert.equal(guideText.text, await Deno.readTextFile(`${REPO}resources/guide.md`));
  const [logoBlob] = resultOf(logo).contents as { blob: string; mimeType: string }[];
  assert.equal(logoBlob.mimeType, "image/png");
  const png = await Deno.readFile(`${REPO}resources/logo.png`);
  assert.deepEqual(Uint8Array.from(atob(logoBlob.blob), (char) => char.charCodeAt(0)), png);
  const [noteText] = resultOf(note).contents as { text: string }[];
  assert.match(noteText.text, /prompt/i);
  assert.equal((missing.error as { code: number }).code, -32602);
  assert.deepEqual(
    (resultOf(topics).completion as { values: string[] }).values.sort(),
    ["prompts", "resources", "tools"],
  );
});

Deno.test("examples: prompts/ fills code_review's arguments and starts commit_message's answer", async () => {
  const [list, review, commit, languages] = await ask([
    { method: "prompts/list" },
    {
      method: "prompts/get",
      params: { name: "code_review", arguments: { language: "go", focus: "error handling" } },
    },
    { method: "prompts/get", params: { name: "commit_message", arguments: { summary: "Fix it" } } },
    {
      method: "completion/complete",
      params: {
        ref: { type: "ref/prompt", name: "code_review" },
        argument: { name: "language", value: "Ty" },
      },
    },
  ]);
  const names = (resultOf(list).prompts as { name: string }[]).map((prompt) => prompt.name);
  assert.ok(names.includes("code_review") && names.includes("commit_message"), String(names));
  const [message] = resultOf(review).messages as { content: { text: string } }[];
  assert.match(message.content.text, /some go code/);
  assert.match(message.content.text, /error handling/);
  assert.doesNotMatch(message.content.text, /\{\{/);
  const roles = (resultOf(commit).messages as { role: string }[]).map((item) => item.role);
  assert.deepEqual(roles, ["user", "assistant"]);
  assert.deepEqual((resultOf(languages).completion as { values: string[] }).values, [
    "typescript",
  ]);
});
