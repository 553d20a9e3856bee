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
import { spawnHttpServer, withHangGuard } from "./_server_process.ts";
import { modernBody, modernHeaders } from "./_http_server.ts";
import { statusBytes } from "./_processes.ts";

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
    const skills = await loadSkills(dir, { diagnostics: recorder(), maxResourceBytes: 1 << 20 });
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
    const error = await loadSkills(dir, { diagnostics: recorder(), maxResourceBytes: 1 << 20 })
      .then(
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

/** A `resources/read` of `uri` from a real server's endpoint, in 2026-07-28: its JSON answer. */
async function readOver(url: string, uri: string): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: "POST",
    headers: modernHeaders("resources/read", uri),
    body: modernBody(1, "resources/read", { uri }),
  });
  return await response.json();
}

const MIB = 1024 * 1024;
/** What serving one refused read may add to the peak (the refused file is 768 MiB). */
const READ_PEAK_BOUND = 64 * MIB;

/**
 * Serves a copy of the example over `main.ts --http` (no --watch), reads the file `swapped`
 * once as it was, lets `swap` replace it, reads it again; gives that answer and what the
 * server's peak memory grew by across the swapped read.
 */
async function swappedRead(
  swap: (path: string, dir: string) => Promise<void>,
): Promise<{ answer: Record<string, unknown>; grew: number; stderr: string[] }> {
  const dir = await copyOfExample();
  const uri = "skill://pdf-forms/references/FIELDS.md";
  const server = await spawnHttpServer(["--dir", dir]);
  try {
    const first = await readOver(server.url, uri);
    assert.ok("result" in first, JSON.stringify(first));
    const before = statusBytes(server.pid, "VmHWM");
    await swap(`${dir}/skills/pdf-forms/references/FIELDS.md`, dir);
    const answer = await withHangGuard(readOver(server.url, uri), "the swapped read");
    const grew = statusBytes(server.pid, "VmHWM") - before;
    // The server still serves the other files.
    const other = await readOver(server.url, "skill://pdf-forms/scripts/fields.py");
    assert.ok("result" in other, JSON.stringify(other));
    return { answer, grew, stderr: server.stderr() };
  } finally {
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Makes `path` a sparse file of `bytes` (nothing written: no disk, no page cache). */
async function sparse(path: string, bytes: number): Promise<void> {
  await using file = await Deno.open(path, { write: true, create: true, truncate: true });
  await file.truncate(bytes);
}

/** The error message of a JSON-RPC answer. */
function errorOf(answer: Record<string, unknown>): string {
  assert.ok("error" in answer, JSON.stringify(answer).slice(0, 300));
  return String((answer.error as { message: unknown }).message);
}

Deno.test("skills over a real process: a file swapped for a 768 MiB sparse file is refused at the size bound, reading no more than it", async () => {
  const { answer, grew } = await swappedRead(async (path) => {
    await Deno.remove(path);
    await sparse(path, 768 * MIB);
  });
  assert.ok(grew < READ_PEAK_BOUND, `the peak grew by ${(grew / MIB).toFixed(1)} MiB`);
  assert.match(
    errorOf(answer),
    /"skill:\/\/pdf-forms\/references\/FIELDS\.md" is 805306368 bytes, over the limit of 8388608 bytes \(--max-resource-bytes\)/,
  );
});

Deno.test("skills over a real process: a file swapped for a symlink to a sparse file outside the folder is refused unread", async () => {
  const outside = await Deno.makeTempFile();
  try {
    const { answer, grew } = await swappedRead(async (path) => {
      await sparse(outside, 768 * MIB);
      await Deno.remove(path);
      await Deno.symlink(outside, path);
    });
    assert.ok(grew < READ_PEAK_BOUND, `the peak grew by ${(grew / MIB).toFixed(1)} MiB`);
    assert.match(
      errorOf(answer),
      /"skill:\/\/pdf-forms\/references\/FIELDS\.md" now leads outside/,
    );
  } finally {
    await Deno.remove(outside);
  }
});

Deno.test("skills over a real process: a file swapped for a symlink to /dev/zero is refused, never read", async () => {
  const { answer, grew } = await swappedRead(async (path) => {
    await Deno.remove(path);
    await Deno.symlink("/dev/zero", path);
  });
  assert.ok(grew < READ_PEAK_BOUND, `the peak grew by ${(grew / MIB).toFixed(1)} MiB`);
  assert.match(errorOf(answer), /"skill:\/\/pdf-forms\/references\/FIELDS\.md" now leads outside/);
});

Deno.test("skills over a real process: a file swapped for a FIFO is refused, never opened", async () => {
  const fifo = await swappedRead(async (path) => {
    await Deno.remove(path);
    const made = await new Deno.Command("mkfifo", { args: [path] }).output();
    assert.ok(made.success, "mkfifo failed");
  });
  assert.match(
    errorOf(fifo.answer),
    /"skill:\/\/pdf-forms\/references\/FIELDS\.md" changed since its skill was loaded/,
  );
});

Deno.test("skills: a file over --max-resource-bytes, or that is no regular file, is refused at load, naming it", async () => {
  const dir = await folderOf({ "big/SKILL.md": skillMd("big"), "fifo/SKILL.md": skillMd("fifo") });
  try {
    await sparse(`${dir}/big/data.bin`, 2 * MIB);
    const made = await new Deno.Command("mkfifo", { args: [`${dir}/fifo/pipe`] }).output();
    assert.ok(made.success, "mkfifo failed");
    const error = await loadSkills(dir, { diagnostics: recorder(), maxResourceBytes: MIB }).then(
      () => assert.fail("loaded"),
      (error) => error,
    );
    assert.ok(error instanceof DirectoryLoadError);
    assert.deepEqual(error.problems, [
      `Cannot load skill "${dir}/big": Resource "skill://big/data.bin" is 2097152 bytes, over ` +
      "the limit of 1048576 bytes (--max-resource-bytes)",
      `Cannot load skill "${dir}/fifo": "fifo/pipe" is not a regular file (a FIFO, a socket or ` +
      "a device)",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
