// Skills (adr/0047) against the official SDK's host side, `SkillsClient` of
// `@modelcontextprotocol/client` 2.4.0 (ext/skills), over a real stdio pipe to main.ts: it lists
// and gets the skills of a skills/ folder, reads each file and verifies its size, SHA-256
// digest and front matter against the entry, in a 2025-11-25 session and in 2026-07-28; an
// edit under --watch is seen without a restart, with the notice a session already gets. Then
// the folder rules: what loads, what is refused and why, nested skills listed flat.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { Client } from "npm:@modelcontextprotocol/client@2.4.0";
import { StdioClientTransport } from "npm:@modelcontextprotocol/client@2.4.0/stdio";
import { SkillsClient } from "npm:@modelcontextprotocol/client@2.4.0/ext/skills";
import { testServer } from "../mod.ts";
import { loadSkills } from "../lib/discovery/skills_dir.ts";
import { DirectoryLoadError } from "../lib/discovery/load_error.ts";
import { recorder } from "./_diagnostics.ts";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
const EXAMPLE = fileURLToPath(new URL("../examples/skills/", import.meta.url));
const CLIENT_INFO = { name: "toolshed-skills-test", version: "1.0.0" };

/** A copy of examples/skills in a temporary folder, to edit. */
async function copyOfExample(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed-skills-" });
  await new Deno.Command("cp", { args: ["-r", `${EXAMPLE}skills`, dir] }).output();
  return dir;
}

async function digestOf(path: string): Promise<{ digest: string; size: number }> {
  const bytes = await Deno.readFile(path);
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  const hex = Array.from(hash, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return { digest: `sha256:${hex}`, size: bytes.byteLength };
}

/** Connects the SDK client to main.ts serving `dir` with --watch, in the given era. */
async function connect(dir: string, pin?: string): Promise<Client> {
  const client = new Client(
    CLIENT_INFO,
    pin === undefined ? undefined : { versionNegotiation: { mode: { pin } } } as never,
  );
  await client.connect(
    new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", "-A", MAIN, "--dir", dir, "--watch"],
      env: { ...Deno.env.toObject(), npm_lifecycle_event: "", npm_config_user_agent: "" },
      stderr: "pipe",
    }),
  );
  return client;
}

/** Lists, gets and reads every file of the example's skills, checking digests ourselves too. */
async function listGetAndRead(skills: SkillsClient, dir: string): Promise<void> {
  assert.equal(skills.supported, true);
  const { skills: entries, invalid } = await skills.list();
  assert.deepEqual(invalid, []);
  assert.deepEqual(entries.map((entry) => entry.uri), [
    "skill://pdf-forms/SKILL.md",
    "skill://release-notes/SKILL.md",
  ]);
  const [pdf] = entries;
  assert.equal(pdf.frontmatter.name, "pdf-forms");
  assert.deepEqual(pdf.frontmatter.metadata, { owner: "docs-team" });
  assert.ok(pdf.resources !== "dynamic");
  const files = ["SKILL.md", "references/FIELDS.md", "scripts/fields.py"];
  assert.deepEqual(
    pdf.resources,
    await Promise.all(files.map(async (file) => ({
      uri: `skill://pdf-forms/${file}`,
      ...await digestOf(`${dir}/skills/pdf-forms/${file}`),
    }))),
  );
  const { skill } = await skills.get("skill://pdf-forms/SKILL.md");
  assert.deepEqual(skill, pdf);

  const manifest = await skills.read(pdf);
  assert.equal(manifest.verified, true);
  assert.deepEqual(manifest.frontmatter, pdf.frontmatter);
  assert.match(manifest.body!, /^\n# Filling PDF forms/);
  const script = await skills.read(pdf, "scripts/fields.py");
  assert.equal(script.verified, true);
  assert.equal(script.mimeType, "text/x-python");
  assert.deepEqual(script.bytes, await Deno.readFile(`${dir}/skills/pdf-forms/scripts/fields.py`));
  await assert.rejects(() => skills.get("skill://no-such/SKILL.md"), /No skill is served/);
}

/** Calls `look` until it is true, a bounded number of times (a reload takes its while). */
async function eventually(look: () => Promise<boolean>, what: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await look()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`never happened: ${what}`);
}

for (const pin of [undefined, "2026-07-28"]) {
  const era = pin ?? "2025-11-25";
  Deno.test(`skills: the SDK's SkillsClient lists, gets and verifies, and sees an edit (${era})`, async () => {
    const dir = await copyOfExample();
    const client = await connect(dir, pin);
    try {
      const noticed: string[] = [];
      if (pin === undefined) {
        client.setNotificationHandler(
          "notifications/resources/list_changed",
          () => void noticed.push("resources/list_changed"),
        );
      }
      const skills = new SkillsClient(client);
      await listGetAndRead(skills, dir);

      const path = `${dir}/skills/release-notes/SKILL.md`;
      const edited = (await Deno.readTextFile(path)).replace(
        "Use when preparing a release.",
        "Use when preparing a release or a changelog.",
      );
      await Deno.writeTextFile(path, edited);
      await eventually(async () => {
        const { skills: entries } = await skills.list();
        return entries[1].frontmatter.description.endsWith("or a changelog.");
      }, "the edited description listed");
      const { skill } = await skills.get("skill://release-notes/SKILL.md");
      assert.deepEqual(skill.resources, [{
        uri: "skill://release-notes/SKILL.md",
        ...await digestOf(path),
      }]);
      const read = await skills.read(skill);
      assert.equal(read.verified, true);
      assert.equal(read.text, edited);
      if (pin === undefined) {
        await eventually(() => Promise.resolve(noticed.length > 0), "resources/list_changed");
      }
    } finally {
      await client.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("skills: a file changed behind a server that does not watch is refused, not served unverified", async () => {
  const dir = await copyOfExample();
  try {
    const server = await testServer({ dir });
    await Deno.writeTextFile(`${dir}/skills/pdf-forms/references/FIELDS.md`, "changed\n");
    await assert.rejects(
      () => server.readResource("skill://pdf-forms/references/FIELDS.md"),
      /changed since its skill was loaded/,
    );
    const listed = await server.readResource("skill://pdf-forms/scripts/fields.py");
    assert.equal((listed.contents as unknown[]).length, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Writes `files` (path → text) under a new folder; returns it. */
async function folderOf(files: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed-skills-" });
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(`${dir}/${path.slice(0, path.lastIndexOf("/") + 1)}`, { recursive: true });
    await Deno.writeTextFile(`${dir}/${path}`, text);
  }
  return dir;
}

const skillMd = (name: string, more = "") =>
  `---\nname: ${name}\ndescription: Does ${name} things.\n${more}---\n\nBody.\n`;

Deno.test("skills: nested skills are listed flat, and an inner skill's files are the outer's too", async () => {
  const dir = await folderOf({
    "tools/outer/SKILL.md": skillMd("outer"),
    "tools/outer/inner/SKILL.md": skillMd("inner"),
    "tools/outer/inner/notes.txt": "notes\n",
    "tools/outer/.git-keep": "hidden\n",
    "README.md": "not a skill\n",
  });
  try {
    const skills = await loadSkills(dir, { diagnostics: recorder() });
    assert.deepEqual(
      skills.map((skill) => skill.uri),
      [
        "skill://tools/outer/SKILL.md",
        "skill://tools/outer/inner/SKILL.md",
      ].sort(),
    );
    const outer = skills.find((skill) => skill.uri === "skill://tools/outer/SKILL.md")!;
    assert.deepEqual((outer.entry.resources as { uri: string }[]).map((file) => file.uri), [
      "skill://tools/outer/SKILL.md",
      "skill://tools/outer/inner/SKILL.md",
      "skill://tools/outer/inner/notes.txt",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("skills: every broken rule is reported together, naming the folder", async () => {
  const dir = await folderOf({
    "SKILL.md": skillMd("root"),
    "wrong-name/SKILL.md": skillMd("other-name"),
    "Capital/SKILL.md": skillMd("Capital"),
    "no-description/SKILL.md": "---\nname: no-description\n---\nBody\n",
    "no-front/SKILL.md": "# Just a heading\n",
    "bad-yaml/SKILL.md": "---\nname: bad-yaml\ndescription: [unclosed\n---\n",
    "bad-meta/SKILL.md": skillMd("bad-meta", "metadata:\n  version: 2\n"),
    "lower/skill.md": skillMd("lower"),
    "good/SKILL.md": skillMd("good"),
  });
  await Deno.symlink(`${dir}/good/SKILL.md`, `${dir}/good/link.md`);
  try {
    const error = await loadSkills(dir, { diagnostics: recorder() }).then(
      () => assert.fail("loaded"),
      (error: unknown) => error as DirectoryLoadError,
    );
    assert.ok(error instanceof DirectoryLoadError);
    const problems = error.problems.map((problem) => problem.replace(dir, "DIR"));
    const expect = [
      /"DIR\/lower\/skill\.md": name it "SKILL\.md"/,
      /"DIR\/SKILL\.md": a skill is a folder/,
      /"DIR\/Capital": name "Capital" must be 1-64 lowercase letters/,
      /"DIR\/bad-meta": metadata must map strings to strings/,
      /"DIR\/bad-yaml": the front matter is not valid YAML/,
      /"DIR\/good": "good\/link\.md" is a symlink/,
      /"DIR\/no-description": .*must hold "name" and "description"/,
      /"DIR\/no-front": SKILL\.md must begin with front matter/,
      /"DIR\/wrong-name": name "other-name" must be the name of its folder, "wrong-name"/,
    ];
    assert.equal(problems.length, expect.length, problems.join("\n"));
    for (const pattern of expect) {
      assert.ok(
        problems.some((problem) => pattern.test(problem)),
        `${pattern}\n${problems.join("\n")}`,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("skills: a server without skills/ advertises no skills extension and answers no skills method", async () => {
  const server = await testServer({
    dir: fileURLToPath(new URL("./fixtures/server/", import.meta.url)),
  });
  const { capabilities } = await server.request("server/discover") as {
    capabilities: { extensions?: Record<string, unknown> };
  };
  assert.equal(capabilities.extensions?.["io.modelcontextprotocol/skills"], undefined);
  await assert.rejects(() => server.request("skills/list"), /-32601|not found|Method/i);
});
