// examples/skills: what its README promises. It passes check; skills/list lists both skills with
// every file's digest and size as the files have them; skills/get finds one by its SKILL.md;
// each file reads as its bytes with the MIME type of its extension.
import assert from "node:assert/strict";
import { testServer } from "../../mod.ts";
import { exampleDir } from "./_example.ts";

const DIR = exampleDir("skills");

async function digestOf(path: string): Promise<{ digest: string; size: number }> {
  const bytes = await Deno.readFile(path);
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  const hex = Array.from(hash, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return { digest: `sha256:${hex}`, size: bytes.byteLength };
}

Deno.test("examples/skills: both skills are listed with their files' digests, got and read", async () => {
  const server = await testServer({ dir: DIR });
  const { skills } = await server.request("skills/list") as {
    skills: { uri: string; frontmatter: Record<string, unknown>; resources: unknown[] }[];
  };
  const files = {
    "pdf-forms": ["SKILL.md", "references/FIELDS.md", "scripts/fields.py"],
    "release-notes": ["SKILL.md"],
  };
  assert.deepEqual(
    skills.map((skill) => skill.uri),
    ["skill://pdf-forms/SKILL.md", "skill://release-notes/SKILL.md"],
  );
  for (const skill of skills) {
    const name = String(skill.frontmatter.name) as keyof typeof files;
    assert.deepEqual(
      skill.resources,
      await Promise.all(files[name].map(async (file) => ({
        uri: `skill://${name}/${file}`,
        ...await digestOf(`${DIR}skills/${name}/${file}`),
      }))),
    );
  }
  const { skill } = await server.request("skills/get", { uri: "skill://release-notes/SKILL.md" });
  assert.deepEqual(skill, skills[1]);

  const script = await server.readResource("skill://pdf-forms/scripts/fields.py");
  assert.deepEqual(script.contents, [{
    uri: "skill://pdf-forms/scripts/fields.py",
    mimeType: "text/x-python",
    text: await Deno.readTextFile(`${DIR}skills/pdf-forms/scripts/fields.py`),
  }]);
  const { capabilities } = await server.request("server/discover") as {
    capabilities: { extensions?: Record<string, unknown> };
  };
  assert.deepEqual(capabilities.extensions?.["io.modelcontextprotocol/skills"], {});
});
