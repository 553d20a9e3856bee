// server.meta.json (adr/0049): who a server is. Its rules field by field, that serverInfo in
// both eras and every 2026-07-28 result's _meta name it (through a real main.ts over stdio),
// that its problems stop start-up together with the directory's, where it is looked for, and
// `toolshed new server` / `toolshed check` around it.
import assert from "node:assert/strict";
import { memoryIo } from "./_memory_io.ts";
import { parseServerMeta } from "../lib/primitives/server_meta.ts";
import { implementationOf } from "../lib/primitives/server_identity.ts";
import { createServer } from "../lib/server/create_server.ts";
import { command as newCommand } from "../lib/commands/new.ts";
import { command as checkCommand } from "../lib/commands/check.ts";
import { DirectoryLoadError } from "../lib/discovery/load_error.ts";
import { manifestOf } from "../lib/commands/mcpb.ts";
import { spawnServer } from "./_server_process.ts";
import { recorder } from "./_diagnostics.ts";
import { initializeBody } from "./_http_server.ts";

const HELLO = decodeURIComponent(new URL("../examples/hello", import.meta.url).pathname);
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
const SERVER_INFO = "io.modelcontextprotocol/serverInfo";

const FULL = {
  name: "io.github.alice/weather",
  title: "Weather",
  description: "Forecasts for a city",
  version: "1.2.3-beta.1",
  repository: { url: "https://github.com/alice/weather" },
  websiteUrl: "https://alice.example/weather",
  icons: [{ src: "https://alice.example/icon.png", mimeType: "image/png", sizes: ["48x48"] }],
  author: { name: "Alice", email: "alice@example.com" },
  license: "MIT",
  env: {
    WEATHER_API_KEY: { description: "Your API key", secret: true, required: true },
    UNITS: { description: "metric or imperial", default: "metric" },
  },
};

function problemsOf(value: unknown): string[] {
  const parsed = parseServerMeta(JSON.stringify(value), "server.meta.json");
  assert.ok("problems" in parsed, `expected problems, got ${JSON.stringify(parsed)}`);
  return parsed.problems;
}

async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_meta_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("server meta: a full file reads into every field, the repository's source known from github.com, settings defaulted", () => {
  const parsed = parseServerMeta(JSON.stringify(FULL), "server.meta.json");
  assert.ok("meta" in parsed, JSON.stringify(parsed));
  assert.deepEqual(parsed.meta, {
    ...FULL,
    repository: { url: "https://github.com/alice/weather", source: "github" },
    env: {
      WEATHER_API_KEY: { description: "Your API key", secret: true, required: true },
      UNITS: {
        description: "metric or imperial",
        secret: false,
        required: false,
        default: "metric",
      },
    },
  });
  assert.deepEqual(
    Object.keys(parsed.meta.env),
    ["WEATHER_API_KEY", "UNITS"],
    "in the file's order",
  );
  assert.deepEqual(implementationOf(parsed.meta), {
    name: FULL.name,
    title: FULL.title,
    version: FULL.version,
    description: FULL.description,
    icons: FULL.icons,
    websiteUrl: FULL.websiteUrl,
  });
});

Deno.test("server meta: the three required fields, each said when missing, all at once", () => {
  assert.deepEqual(problemsOf({}), [
    '"server.meta.json": name is missing',
    '"server.meta.json": description is missing',
    '"server.meta.json": version is missing',
  ]);
});

Deno.test("server meta: every rule of a field is a sentence naming it, and all are reported together", () => {
  const base = { name: FULL.name, description: FULL.description, version: FULL.version };
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ name: "weather" }, /name "weather" is not in reverse-DNS form/],
    [{ name: "io.github.alice/weather/now" }, /not in reverse-DNS form/],
    [{ name: "a b/c" }, /not in reverse-DNS form/],
    [{ name: `io.github.alice/${"w".repeat(200)}` }, /name is 216 characters, more than 200/],
    [{ description: "x".repeat(101) }, /description is 101 characters, more than 100/],
    [{ description: "  " }, /description must be a non-empty string/],
    [{ version: "^1.2.3" }, /version "\^1\.2\.3" is not a semantic version/],
    [{ version: "1.x" }, /version "1\.x" is not a semantic version/],
    [{ version: "latest" }, /not a semantic version/],
    [{ version: 1 }, /version must be a non-empty string/],
    [{ websiteUrl: "ftp://x.example" }, /websiteUrl must be an http\(s\) URL/],
    [{ repository: "https://github.com/a/b" }, /repository must be an object/],
    [{ repository: { url: "https://git.example/a/b" } }, /repository\.source is missing/],
    [{ repository: { source: "github" } }, /repository\.url is missing/],
    [
      { repository: { url: "https://github.com/a/b", subfolder: "../x" } },
      /repository\.subfolder "\.\.\/x" must be a relative path inside it/,
    ],
    [{ icons: [{ mimeType: "image/png" }] }, /icons are invalid/],
    [{ author: "Alice" }, /author must be an object/],
    [{ author: { email: "a@b" } }, /author\.name must be a non-empty string/],
    [{ author: { name: "A", email: "nope" } }, /author\.email must be an e-mail address/],
    [{ env: [] }, /env must map variable names to settings/],
    [
      { env: { "NOT-A-NAME": { description: "x" } } },
      /env\.NOT-A-NAME is not an environment variable name/,
    ],
    [{ env: { KEY: {} } }, /env\.KEY\.description must be a non-empty string/],
    [
      { env: { KEY: { description: "k", secret: "yes" } } },
      /env\.KEY\.secret must be true or false/,
    ],
    [{ env: { KEY: { description: "k", default: 3 } } }, /env\.KEY\.default must be a string/],
    [
      { env: { KEY: { description: "k", secrets: true } } },
      /env\.KEY\.secrets is not a known field; did you mean "secret"\?/,
    ],
    [{ titel: "Weather" }, /titel is not a known field; did you mean "title"\?/],
  ];
  for (const [change, expected] of cases) {
    const problems = problemsOf({ ...base, ...change });
    assert.equal(problems.length, 1, `${JSON.stringify(change)}: ${problems.join(" | ")}`);
    assert.match(problems[0], /^"server\.meta\.json": /);
    assert.match(problems[0], expected, JSON.stringify(change));
  }
  // Several at once: all of them, in the file's field order.
  assert.equal(problemsOf({ name: "x", description: "", version: "1" }).length, 3);
  assert.deepEqual(
    parseServerMeta("{ not json", "d/server.meta.json"),
    { problems: [`"d/server.meta.json" is not valid JSON: ${jsonError("{ not json")}`] },
  );
  assert.match(problemsOf([1])[0], /must hold a JSON object/);
});

function jsonError(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("parsed");
}

Deno.test("server meta: over stdio, serverInfo in initialize and in every 2026-07-28 result's _meta is the file's, for a real main.ts", async () => {
  const server = spawnServer(["--dir", HELLO]);
  const expected = JSON.parse(await Deno.readTextFile(`${HELLO}/server.meta.json`));
  const info = {
    name: expected.name,
    title: expected.title,
    version: expected.version,
    description: expected.description,
  };
  try {
    await server.send(JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "server/discover",
      params: { _meta: META },
    }));
    const discover = JSON.parse((await server.nextLine())!);
    assert.deepEqual(discover.result._meta[SERVER_INFO], info);
    await server.send(JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "add", arguments: { a: 1, b: 2 }, _meta: META },
    }));
    const call = JSON.parse((await server.nextLine())!);
    assert.equal(call.result.content[0].text, "3");
    assert.deepEqual(call.result._meta[SERVER_INFO], info);
  } finally {
    await server.finish();
  }
  const session = spawnServer(["--dir", HELLO]);
  try {
    await session.send(initializeBody("2025-11-25"));
    const initialized = JSON.parse((await session.nextLine())!);
    assert.deepEqual(initialized.result.serverInfo, info);
  } finally {
    await session.finish();
  }
});

Deno.test("server meta: without the file serverInfo names toolshed; given in code, the file is not read", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(`${dir}/tools`);
    await Deno.copyFile(`${HELLO}/tools/add.ts`, `${dir}/tools/add.ts`);
    const plain = await createServer({ dir, diagnostics: quiet });
    try {
      assert.equal(plain.meta, undefined);
      const answer = await plain.request("server/discover");
      const info =
        (answer.result as { _meta: Record<string, { name: string }> })._meta[SERVER_INFO];
      assert.equal(info.name, "toolshed");
    } finally {
      await plain.close();
    }
    // A broken file beside a meta given in code: the code's wins and the file is not read.
    await Deno.writeTextFile(`${dir}/server.meta.json`, "{ broken");
    const parsed = parseServerMeta(JSON.stringify(FULL), "x");
    assert.ok("meta" in parsed);
    const given = await createServer({ dir, meta: parsed.meta, diagnostics: quiet });
    try {
      const answer = await given.request("server/discover");
      const info =
        (answer.result as { _meta: Record<string, { name: string }> })._meta[SERVER_INFO];
      assert.equal(info.name, FULL.name);
    } finally {
      await given.close();
    }
    // Folders named on their own without --dir: the directory's file is not theirs.
    const alone = await createServer({ tools: `${dir}/tools`, diagnostics: quiet });
    await alone.close();
    assert.equal(alone.meta, undefined);
  });
});

Deno.test("server meta: a bad file stops start-up with the directory's other problems, all said together", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(`${dir}/tools`);
    await Deno.writeTextFile(`${dir}/tools/broken.ts`, "export default {");
    await Deno.writeTextFile(
      `${dir}/server.meta.json`,
      JSON.stringify({ name: "x", description: "d", version: "1.0.0" }),
    );
    await assert.rejects(createServer({ dir, diagnostics: quiet }), (error) => {
      assert.ok(error instanceof DirectoryLoadError);
      assert.equal(error.problems.length, 2, error.problems.join("\n"));
      assert.ok(error.problems.some((p) => p.includes("broken.ts")));
      assert.ok(error.problems.some((p) => p.startsWith(`"${dir}/server.meta.json": name "x"`)));
      return true;
    });
    // And main.ts says both, then exits 1.
    const server = spawnServer(["--dir", dir]);
    const { code, stderr } = await server.finish();
    assert.equal(code, 1);
    assert.match(stderr, /Cannot start: 2 problem\(s\) in the server directory/);
    assert.match(stderr, /server\.meta\.json": name "x" is not in reverse-DNS form/);
  });
});

Deno.test("server meta: `toolshed new server NAME` writes a file that loads, check warns about its TODOs until they are replaced, and it never overwrites", async () => {
  await withTempDir(async (dir) => {
    const first = memoryIo(dir);
    assert.equal(
      await newCommand.run(["server", "io.github.alice/weather-now", "--dir", "srv"], first.io),
      0,
      first.err(),
    );
    assert.match(
      first.out(),
      /^Created srv\/server\.meta\.json, license MIT \(--license names another\)\nCreated srv\/deno\.json \("@toolshed\/toolshed" is file:.*\/mod\.ts; .*\)\nNext: replace its TODO values, then check it with: .* check --dir srv\n$/,
    );
    const text = await Deno.readTextFile(`${dir}/srv/server.meta.json`);
    const parsed = parseServerMeta(text, "srv/server.meta.json");
    assert.ok("meta" in parsed, JSON.stringify(parsed));
    assert.equal(parsed.meta.name, "io.github.alice/weather-now");
    assert.equal(parsed.meta.title, "Weather Now");
    assert.equal(parsed.meta.version, "0.1.0");
    assert.deepEqual(parsed.meta.repository, {
      url: "https://github.com/alice/weather-now",
      source: "github",
    });

    // check: the two TODOs are warnings (so --strict fails), naming the file and the field.
    await Deno.mkdir(`${dir}/srv/tools`);
    await Deno.copyFile(`${HELLO}/tools/add.ts`, `${dir}/srv/tools/add.ts`);
    const check = async () => {
      const memory = memoryIo(dir);
      const code = await checkCommand.run(
        ["--dir", `${dir}/srv`, "--no-types", "--json", "--strict"],
        memory.io,
      );
      return { code, report: JSON.parse(memory.out()) };
    };
    const before = await check();
    assert.equal(before.code, 1);
    const metaFindings = before.report.findings.filter((f: { source: string }) =>
      f.source === "meta"
    );
    assert.deepEqual(
      metaFindings.map((
        f: { field?: string; file: string; message: string },
      ) => [f.file, f.message.split(" ")[0]]),
      [
        [`${dir}/srv/server.meta.json`, "description"],
        [`${dir}/srv/server.meta.json`, "author.name"],
      ],
    );
    const finished = JSON.parse(text);
    finished.description = "Weather now, for any city";
    finished.author.name = "Alice";
    await Deno.writeTextFile(`${dir}/srv/server.meta.json`, JSON.stringify(finished));
    const after = await check();
    assert.deepEqual(
      after.report.findings.filter((f: { source: string }) => f.source === "meta"),
      [],
    );

    // Never over a file that exists; a name that is not reverse-DNS; no --lang.
    const again = memoryIo(dir);
    assert.equal(
      await newCommand.run(["server", "io.github.alice/other", "--dir", "srv"], again.io),
      1,
    );
    assert.match(again.err(), /"srv\/server\.meta\.json" exists already/);
    assert.equal(
      JSON.parse(await Deno.readTextFile(`${dir}/srv/server.meta.json`)).description,
      finished.description,
    );
    const bad = memoryIo(dir);
    assert.equal(await newCommand.run(["server", "weather"], bad.io), 1);
    assert.match(
      bad.err(),
      /Cannot create server "weather": name "weather" is not in reverse-DNS form/,
    );
    const lang = memoryIo(dir);
    assert.equal(await newCommand.run(["server", "io.github.a/b", "--lang", "ts"], lang.io), 2);
    assert.match(lang.err(), /toolshed new server takes no --lang/);
    const none = memoryIo(dir);
    assert.equal(await newCommand.run(["server"], none.io), 2);
    assert.match(none.err(), /needs the server's registry NAME/);
  });
});

const quiet = recorder();

Deno.test("server meta: `toolshed new server --license SPDX` names the licence it writes (MIT unless told, said in its output), as SPDX writes it; none writes none; the bundle's manifest carries the same; an unknown id is refused with the one meant", async () => {
  await withTempDir(async (dir) => {
    /** `new server` into DIR/SUB with `args`: its exit code, output and the file's license. */
    const made = async (sub: string, args: string[]) => {
      const memory = memoryIo(dir);
      const code = await newCommand.run(
        ["server", "io.github.alice/weather", "--dir", sub, ...args],
        memory.io,
      );
      let license: unknown = "(no file)";
      let manifest: Record<string, unknown> | undefined;
      try {
        const text = await Deno.readTextFile(`${dir}/${sub}/server.meta.json`);
        license = "license" in JSON.parse(text) ? JSON.parse(text).license : "(no field)";
        const parsed = parseServerMeta(text, "server.meta.json");
        assert.ok("meta" in parsed, JSON.stringify(parsed));
        manifest = manifestOf(parsed.meta, { tools: [], prompts: [] }, Deno.build.target);
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      }
      return { code, out: memory.out(), err: memory.err(), license, manifest };
    };
    const byDefault = await made("a", []);
    assert.equal(byDefault.code, 0, byDefault.err);
    assert.equal(byDefault.license, "MIT");
    assert.match(
      byDefault.out,
      /^Created a\/server\.meta\.json, license MIT \(--license names another\)\n/,
    );
    assert.equal(byDefault.manifest?.license, "MIT");

    const apache = await made("b", ["--license", "apache-2.0 OR mit"]);
    assert.equal(apache.code, 0, apache.err);
    assert.equal(apache.license, "Apache-2.0 OR MIT");
    assert.match(apache.out, /^Created b\/server\.meta\.json, license Apache-2\.0 OR MIT\n/);
    assert.equal(apache.manifest?.license, "Apache-2.0 OR MIT");

    const none = await made("c", ["--license", "none"]);
    assert.equal(none.code, 0, none.err);
    assert.equal(none.license, "(no field)");
    assert.match(none.out, /^Created c\/server\.meta\.json, with no license/);
    assert.equal(none.manifest !== undefined && "license" in none.manifest, false);

    for (
      const [given, meant] of [
        ["Apache2", /did you mean Apache-2\.0\?/],
        ["GPL-3.0", /did you mean GPL-3\.0-only or GPL-3\.0-or-later\?/],
        ["MTI", /did you mean MIT\?/],
        ["MIT Apache-2.0", /"MIT Apache-2\.0" is not an SPDX licence expression/],
      ] as const
    ) {
      const refused = await made("d", ["--license", given]);
      assert.equal(refused.code, 2, given);
      assert.match(refused.err, meant);
      assert.match(refused.err, /^toolshed: [^\n]*\n\(toolshed new --help shows how\)\n$/);
      assert.equal(refused.license, "(no file)", given);
    }
    const onTool = memoryIo(dir);
    assert.equal(await newCommand.run(["tool", "greet", "--license", "MIT"], onTool.io), 2);
    assert.match(onTool.err(), /toolshed new tool takes no --license/);
    assert.match(newCommand.usage, /--license SPDX/);
    assert.match(newCommand.usage, /default MIT; none writes no "license"/);
  });
});
