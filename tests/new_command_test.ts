// toolshed new (lib/commands/new.ts): every scaffold is loaded by the real loader and used
// through the real core (a tool called, a prompt got, a resource read), its TypeScript
// type-checks against toolshed's types, and every refusal is pinned, with nothing written.
import assert from "node:assert/strict";
import { memoryIo } from "./_memory_io.ts";
import { command } from "../lib/commands/new.ts";
import { commandLine } from "../lib/commands/invocation.ts";
import { startInProcess } from "./_in_process.ts";

const MAIN = decodeURIComponent(new URL("../main.ts", import.meta.url).pathname);
const CONFIG = decodeURIComponent(new URL("../deno.json", import.meta.url).pathname);
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

async function runNew(args: string[], cwd: string) {
  const memory = memoryIo(cwd);
  const code = await command.run(args, memory.io);
  return { code, out: memory.out(), err: memory.err() };
}

async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_new_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The names of the files under `dir`, recursively, sorted. */
async function filesUnder(dir: string, prefix = ""): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) {
      found.push(...await filesUnder(`${dir}/${entry.name}`, `${prefix}${entry.name}/`));
    } else found.push(`${prefix}${entry.name}`);
  }
  return found.sort();
}

/** Sends requests to a server of `dir` in process; the result of each, in order. */
async function ask(
  dir: string,
  requests: { method: string; params: Record<string, unknown> }[],
): Promise<Record<string, unknown>[]> {
  const server = await startInProcess(["--dir", dir]);
  requests.forEach((request, id) =>
    server.send(JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: request.method,
      params: { ...request.params, _meta: META },
    }))
  );
  const answers = new Map<number, Record<string, unknown>>();
  while (answers.size < requests.length) {
    const line = await server.nextLine();
    assert.notEqual(line, null, "the server ended before answering");
    const message = JSON.parse(line!);
    if (typeof message.id === "number") answers.set(message.id, message);
  }
  await server.end();
  return requests.map((_, id) => {
    const answer = answers.get(id)!;
    assert.ok("result" in answer, JSON.stringify(answer));
    return answer.result as Record<string, unknown>;
  });
}

const textOf = (result: Record<string, unknown>) => {
  const content = result.content as { type: string; text: string }[];
  assert.equal(content.length, 1, JSON.stringify(result));
  return content[0].text;
};

async function onPath(program: string): Promise<boolean> {
  try {
    const { success } = await new Deno.Command(program, { args: ["--version"], stdout: "null" })
      .output();
    return success;
  } catch {
    return false;
  }
}

Deno.test("new writes each kind in each language, and says what it wrote and what to do next", async () => {
  // The next command names toolshed as this process runs (tests/invocation_test.ts checks how).
  const toolshed = commandLine();
  await withTempDir(async (cwd) => {
    const cases: [string[], string][] = [
      [
        ["tool", "greet"],
        // srv is new: it becomes a server directory of its own, with its deno.json (once).
        "Created srv/tools/greet.ts\n" +
        `Created srv/deno.json ("@toolshed/toolshed" is ${
          new URL("../mod.ts", import.meta.url).href
        }; deno task test, deno task check)\n` +
        `Next: edit it, then try it with: ${toolshed} call greet text=hello --dir srv\n`,
      ],
      [
        ["tool", "shout", "--lang", "bash"],
        "Created srv/tools/shout.sh\nCreated srv/tools/shout.json\n" +
        `Next: edit it, then try it with: ${toolshed} call shout text=hello --dir srv\n`,
      ],
      [
        ["tool", "py.tool", "--lang", "python"],
        "Created srv/tools/py.tool.py\nCreated srv/tools/py.tool.json\n" +
        `Next: edit it, then try it with: ${toolshed} call py.tool text=hello --dir srv\n`,
      ],
      [
        ["prompt", "explain"],
        "Created srv/prompts/explain.ts\n" +
        `Next: edit it, then see it listed with: ${toolshed} list --dir srv\n`,
      ],
      [
        ["prompt", "teach", "--lang", "md"],
        "Created srv/prompts/teach.md\n" +
        `Next: edit it, then see it listed with: ${toolshed} list --dir srv\n`,
      ],
      [
        ["resource", "clock"],
        "Created srv/resources/clock.ts\n" +
        `Next: edit it, then see it listed with: ${toolshed} list --dir srv\n`,
      ],
      [
        ["resource", "notes", "--lang", "md"],
        "Created srv/resources/notes.md\n" +
        `Next: edit it, then see it listed with: ${toolshed} list --dir srv\n`,
      ],
    ];
    for (const [args, expected] of cases) {
      const { code, out, err } = await runNew([...args, "--dir", "srv"], cwd);
      assert.deepEqual({ code, out, err }, { code: 0, out: expected, err: "" }, args.join(" "));
    }
    assert.deepEqual(await filesUnder(`${cwd}/srv`), [
      "deno.json",
      "prompts/explain.ts",
      "prompts/teach.md",
      "resources/clock.ts",
      "resources/notes.md",
      "tools/greet.ts",
      "tools/py.tool.json",
      "tools/py.tool.py",
      "tools/shout.json",
      "tools/shout.sh",
    ]);
    for (const program of ["tools/shout.sh", "tools/py.tool.py"]) {
      const { mode } = await Deno.stat(`${cwd}/srv/${program}`);
      assert.ok((mode! & 0o100) !== 0, `${program} is executable`);
    }
    for (const sidecar of ["tools/greet.ts", "tools/shout.json"]) {
      const { mode } = await Deno.stat(`${cwd}/srv/${sidecar}`);
      assert.equal(mode! & 0o111, 0, `${sidecar} is not executable`);
    }
  });
});

Deno.test("new scaffolds load with the real loader and work through the real core", async () => {
  // CI has python3 and this test must run there: no silent skip.
  assert.ok(await onPath("python3"), "python3 is not on the PATH: the Python scaffold is untested");
  const hasJq = await onPath("jq");
  await withTempDir(async (dir) => {
    for (
      const args of [
        ["tool", "greet"],
        ["tool", "shout", "--lang", "bash"],
        ["tool", "py.tool", "--lang", "python"],
        ["prompt", "explain"],
        ["prompt", "teach", "--lang", "md"],
        ["resource", "clock"],
        ["resource", "notes", "--lang", "md"],
      ]
    ) {
      assert.equal((await runNew([...args, "--dir", dir], dir)).code, 0, args.join(" "));
    }
    const call = (name: string) => ({
      method: "tools/call",
      params: { name, arguments: { text: 'hello, "world" $(id)' } },
    });
    const [list, greet, shout, python, explain, teach, clock, notes, prompts, resources] =
      await ask(dir, [
        { method: "tools/list", params: {} },
        call("greet"),
        call("shout"),
        call("py.tool"),
        { method: "prompts/get", params: { name: "explain", arguments: { topic: "DNS" } } },
        { method: "prompts/get", params: { name: "teach", arguments: { topic: "TLS" } } },
        { method: "resources/read", params: { uri: "toolshed:///clock" } },
        { method: "resources/read", params: { uri: "toolshed:///notes.md" } },
        { method: "prompts/list", params: {} },
        { method: "resources/list", params: {} },
      ]);
    assert.deepEqual(
      (list.tools as { name: string }[]).map((tool) => tool.name),
      ["greet", "py.tool", "shout"],
    );
    assert.equal(textOf(greet), 'greet received: hello, "world" $(id)');
    assert.equal(textOf(python), 'py.tool received: hello, "world" $(id)');
    if (hasJq) assert.equal(textOf(shout), 'shout received: hello, "world" $(id)');
    else {
      assert.equal(shout.isError, true);
      assert.match(textOf(shout), /shout needs jq/);
    }
    for (const [result, topic] of [[explain, "DNS"], [teach, "TLS"]] as const) {
      const messages = result.messages as { role: string; content: { text: string } }[];
      assert.deepEqual(messages.map((message) => message.role), ["user"]);
      assert.equal(
        messages[0].content.text,
        `Explain ${topic} in a few short paragraphs, for a newcomer.`,
      );
    }
    assert.deepEqual(
      (prompts.prompts as { name: string }[]).map((prompt) => prompt.name),
      ["explain", "teach"],
    );
    const [clockText] = clock.contents as { uri: string; text: string }[];
    assert.match(clockText.text, /^clock was read at \d{4}-\d\d-\d\dT/);
    const [notesText] = notes.contents as { uri: string; text: string; mimeType: string }[];
    assert.equal(notesText.mimeType, "text/markdown");
    assert.match(notesText.text, /^# notes\n/);
    assert.deepEqual(
      (resources.resources as { uri: string }[]).map((resource) => resource.uri).sort(),
      ["toolshed:///clock", "toolshed:///notes.md"],
    );
  });
});

Deno.test("new writes TypeScript that type-checks against toolshed's types", async () => {
  await withTempDir(async (dir) => {
    for (const kind of ["tool", "prompt", "resource"]) {
      assert.equal((await runNew([kind, `a_${kind}`, "--dir", dir], dir)).code, 0);
    }
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "check",
        "--config",
        CONFIG,
        "--no-lock",
        `${dir}/tools/a_tool.ts`,
        `${dir}/prompts/a_prompt.ts`,
        `${dir}/resources/a_resource.ts`,
      ],
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.equal(code, 0, new TextDecoder().decode(stderr));
  });
});

Deno.test("new refuses a name the loader would refuse or skip, with the loader's message", async () => {
  await withTempDir(async (dir) => {
    const cases: [string[], string][] = [
      [
        ["tool", "a b"],
        'toolshed: Cannot create tool "a b": the name "a b" is invalid: use 1 to 128 letters, ' +
        'digits, "_", "-" or "."\n',
      ],
      [
        ["prompt", "x".repeat(129)],
        `toolshed: Cannot create prompt "${"x".repeat(129)}": the name "${
          "x".repeat(129)
        }" is invalid: use 1 to 128 letters, digits, "_", "-" or "."\n`,
      ],
      [
        ["tool", "_helper"],
        'toolshed: Cannot create tool "_helper": a name that starts with "_" or "." is not ' +
        "loaded (such files are helpers)\n",
      ],
      [
        ["resource", ".hidden"],
        'toolshed: Cannot create resource ".hidden": a name that starts with "_" or "." is not ' +
        "loaded (such files are helpers)\n",
      ],
      [
        ["tool", "add.ts"],
        'toolshed: Cannot create tool "add.ts": give the name without an extension ("add"): ' +
        "--lang chooses the kind of file\n",
      ],
    ];
    for (const [args, expected] of cases) {
      const { code, out, err } = await runNew([...args, "--dir", dir], dir);
      assert.deepEqual({ code, out, err }, { code: 1, out: "", err: expected }, args.join(" "));
    }
    assert.deepEqual(await filesUnder(dir), []);
  });
});

Deno.test("new refuses a command line it cannot read, saying how to fix it", async () => {
  await withTempDir(async (dir) => {
    const hint = "(toolshed new --help shows how)\n";
    const cases: [string[], string][] = [
      [
        [],
        "toolshed: toolshed new needs what to create: tool, prompt, resource, skill, app or server, then a NAME\n",
      ],
      [
        ["tol", "x"],
        'toolshed: Cannot create a "tol": toolshed new creates a tool, a prompt, a resource, ' +
        "a skill, an app or a server's server.meta.json; " +
        "did you mean tool?\n",
      ],
      [["prompt"], "toolshed: toolshed new prompt needs a NAME\n"],
      [["tool", "a", "b"], 'toolshed: toolshed new takes a kind and one NAME, not also "b"\n'],
      [
        ["tool", "x", "--lang", "pyton"],
        'toolshed: Unknown language "pyton": use ts, bash, python for a tool; did you mean ' +
        "python?\n",
      ],
      [
        ["prompt", "x", "--lang", "bash"],
        'toolshed: Cannot write a prompt in "bash": a prompt is a TypeScript module (--lang ts) ' +
        "or a Markdown file (--lang md)\n",
      ],
      [
        ["resource", "x", "--lang", "python"],
        'toolshed: Cannot write a resource in "python": a resource is a TypeScript module ' +
        "(--lang ts) or a Markdown file (--lang md)\n",
      ],
      [
        ["tool", "x", "--lang", "md"],
        'toolshed: Cannot write a tool in "md": a tool is a TypeScript module (--lang ts) or a ' +
        "Bash script with a JSON sidecar (--lang bash) or a Python script with a JSON sidecar " +
        "(--lang python)\n",
      ],
      [["tool", "x", "--dir", ""], "toolshed: --dir needs a directory\n"],
    ];
    for (const [args, expected] of cases) {
      const { code, out, err } = await runNew(args, dir);
      assert.deepEqual(
        { code, out, err },
        { code: 2, out: "", err: expected + hint },
        args.join(" "),
      );
    }
    const typo = await runNew(["tool", "x", "--lnag", "ts"], dir);
    assert.equal(typo.code, 2);
    assert.match(typo.err, /^toolshed: Unknown option "--lnag"; did you mean --lang\?\n/);
    assert.deepEqual(await filesUnder(dir), []);
  });
});

Deno.test("new never overwrites: it names the file that holds the name, and writes nothing", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(`${dir}/tools`);
    await Deno.mkdir(`${dir}/prompts`);
    await Deno.writeTextFile(`${dir}/tools/greet.json`, "mine");
    await Deno.writeTextFile(`${dir}/tools/other.ts`, "mine too");
    await Deno.writeTextFile(`${dir}/prompts/explain.md`, "and mine");
    const cases: [string[], string][] = [
      [["tool", "greet", "--lang", "bash"], '"tools/greet.json" exists already'],
      [["tool", "greet"], '"tools/greet.json" exists already'], // the same name, another kind of file
      [["tool", "other", "--lang", "python"], '"tools/other.ts" exists already'],
      [["prompt", "explain"], '"prompts/explain.md" exists already'],
    ];
    for (const [args, taken] of cases) {
      const { code, out, err } = await runNew(args, dir);
      assert.deepEqual({ code, out, err }, {
        code: 1,
        out: "",
        err: `toolshed: Cannot create ${args[0]} "${args[1]}": ${taken} (toolshed new never ` +
          "overwrites a file; pick another name or remove it)\n",
      }, args.join(" "));
    }
    assert.deepEqual(await filesUnder(dir), [
      "prompts/explain.md",
      "tools/greet.json",
      "tools/other.ts",
    ]);
    assert.equal(await Deno.readTextFile(`${dir}/tools/greet.json`), "mine");
  });
});

Deno.test("new --help prints the usage on stdout", async () => {
  const { code, out, err } = await runNew(["--help"], "/");
  assert.deepEqual({ code, out, err }, { code: 0, out: `${command.usage}\n`, err: "" });
  assert.match(command.usage, /^Usage: toolshed new tool\|prompt\|resource\|skill\|app NAME/);
});

Deno.test("toolshed new in a real process writes a tool that the server then calls", async () => {
  await withTempDir(async (dir) => {
    // Run as `deno run -A /abs/main.ts` from elsewhere, without what an outer deno task or npx
    // running this test set: the next command is that same command line.
    const env = Object.fromEntries(
      Object.entries(Deno.env.toObject()).filter(([name]) =>
        !name.startsWith("npm_") && name !== "INIT_CWD"
      ),
    );
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN, "new", "tool", "hello", "--dir", dir],
      cwd: dir,
      env,
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    assert.deepEqual({ code, stdout: text(stdout), stderr: text(stderr) }, {
      code: 0,
      stdout: `Created ${dir}/tools/hello.ts\n` +
        `Next: edit it, then try it with: deno run -A ${MAIN} call hello text=hello --dir ${dir}\n`,
      stderr: "",
    });
    const [result] = await ask(dir, [{
      method: "tools/call",
      params: { name: "hello", arguments: { text: "there" } },
    }]);
    assert.equal(textOf(result), "hello received: there");
  });
});

Deno.test("new skill: skills/NAME/SKILL.md that loads and is listed by skills/list; a bad name or a taken folder writes nothing", async () => {
  await withTempDir(async (dir) => {
    const made = await runNew(["skill", "pdf-forms"], dir);
    assert.equal(made.code, 0, made.err);
    assert.deepEqual(await filesUnder(dir), ["skills/pdf-forms/SKILL.md"]);
    const [listed] = await ask(dir, [{ method: "skills/list", params: { _meta: META } }]);
    const [skill] = listed.skills as { uri: string; frontmatter: { name: string } }[];
    assert.equal(skill.uri, "skill://pdf-forms/SKILL.md");
    assert.equal(skill.frontmatter.name, "pdf-forms");

    const again = await runNew(["skill", "pdf-forms"], dir);
    assert.equal(again.code, 1);
    assert.match(again.err, /"skills\/pdf-forms" exists already/);
    const bad = await runNew(["skill", "PDF_forms"], dir);
    assert.equal(bad.code, 1);
    assert.match(bad.err, /1-64 lowercase letters, digits and single hyphens/);
    assert.deepEqual(await filesUnder(dir), ["skills/pdf-forms/SKILL.md"]);
  });
});

Deno.test("new app writes a page, its sidecar and the tool it calls, which load linked", async () => {
  await withTempDir(async (dir) => {
    const made = await runNew(["app", "board", "--dir", dir], dir);
    assert.equal(made.code, 0, made.err);
    assert.deepEqual(await filesUnder(dir), ["tools/board.ts", "ui/board.html", "ui/board.json"]);
    assert.match(made.out, /^Created .*\/ui\/board\.html\nCreated .*\/ui\/board\.json\n/);
    assert.match(made.out, /Created .*\/tools\/board\.ts\nNext: .* call board text=hello/);
    const page = await Deno.readTextFile(`${dir}/ui/board.html`);
    assert.match(page, /app\.callServerTool\(\{ name: "board", arguments: \{ text \} \}\)/);
    const [list, read, call] = await ask(dir, [
      { method: "tools/list", params: {} },
      { method: "resources/read", params: { uri: "ui://board" } },
      { method: "tools/call", params: { name: "board", arguments: { text: "hi" } } },
    ]);
    const [tool] = list.tools as { _meta: Record<string, unknown> }[];
    assert.deepEqual(tool._meta, {
      ui: { resourceUri: "ui://board" },
      "ui/resourceUri": "ui://board",
    });
    const [contents] = read.contents as { mimeType: string; text: string; _meta: unknown }[];
    assert.equal(contents.mimeType, "text/html;profile=mcp-app");
    assert.equal(contents.text, page);
    assert.deepEqual(contents._meta, {
      ui: { csp: { resourceDomains: ["https://unpkg.com"] }, prefersBorder: true },
    });
    assert.equal(textOf(call), "board received: hi");
    // Twice: it names the file that holds the name and writes nothing.
    const again = await runNew(["app", "board", "--dir", dir], dir);
    assert.equal(again.code, 1);
    assert.match(again.err, /"[^"]*ui\/board\.html" exists already/);
  });
});
