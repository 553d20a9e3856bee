// examples/resources-and-templates: what its README promises. It type-checks; the Markdown file
// is listed under a toolshed:/// URI with its MIME type and read as it is; status.ts answers JSON
// read afresh; notes.ts serves notes://{topic}, completes the topics, and a topic without a note
// is "Resource not found".
import assert from "node:assert/strict";
import { McpError, testServer } from "../../mod.ts";
import { exampleDir } from "./_example.ts";

const DIR = exampleDir("resources-and-templates");

Deno.test("examples/resources-and-templates: a file, a module and a template are listed and read", async () => {
  const server = await testServer({ dir: DIR });
  const { resources } = await server.request("resources/list");
  const listed = (resources as Record<string, unknown>[]).map(({ uri, name, mimeType }) => ({
    uri,
    name,
    mimeType,
  }));
  assert.deepEqual(listed, [
    { uri: "status://server", name: "status", mimeType: "application/json" },
    {
      uri: "toolshed:///guides/getting-started.md",
      name: "guides/getting-started.md",
      mimeType: "text/markdown",
    },
  ]);
  const { resourceTemplates } = await server.request("resources/templates/list");
  assert.deepEqual(
    (resourceTemplates as { uriTemplate: string }[]).map((each) => each.uriTemplate),
    ["notes://{topic}"],
  );

  const guide = await server.readResource("toolshed:///guides/getting-started.md");
  assert.deepEqual(guide.contents, [{
    uri: "toolshed:///guides/getting-started.md",
    mimeType: "text/markdown",
    text: await Deno.readTextFile(`${DIR}resources/guides/getting-started.md`),
  }]);
  const [status] = (await server.readResource("status://server")).contents as { text: string }[];
  const health = JSON.parse(status.text);
  assert.equal(health.ok, true);
  assert.ok(!Number.isNaN(Date.parse(health.checkedAt)), status.text);

  const [note] = (await server.readResource("notes://prompts")).contents as { text: string }[];
  assert.match(note.text, /^A prompt is a Markdown file/);
  await assert.rejects(
    () => server.readResource("notes://cobol"),
    (error: unknown) => error instanceof McpError && error.code === -32602,
  );
  const completed = await server.request("completion/complete", {
    ref: { type: "ref/resource", uri: "notes://{topic}" },
    argument: { name: "topic", value: "p" },
  });
  assert.deepEqual((completed.completion as { values: string[] }).values, ["prompts"]);
});
