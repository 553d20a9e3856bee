// `toolshed compile --dir DIR` (lib/commands/compile.ts, adr/0067): a person's server directory
// into one executable, staged as `toolshed publish` stages it (adr/0059). In process, up to the
// `deno compile` invocation: the request and its arguments, the staged directory as the compile
// step finds it, the refusals. The real `deno compile` runs in tests/compile_test.ts.
import assert from "node:assert/strict";
import { compileServer } from "../lib/commands/compile.ts";
import {
  COMPILE_CONFIG,
  type CompileRequest,
  denoCompileArgs,
} from "../lib/commands/compile_binary.ts";
import { TARGET } from "../lib/commands/denort.ts";
import type { Compile } from "../lib/commands/publish_stage.ts";
import type { Io } from "../lib/commands/command.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);
const HELLO = `${ROOT}examples/hello`;

interface Run {
  code: number;
  said: string;
  printed: string;
}

/** `toolshed compile ARGS` in process, from `cwd`, with `env`. */
async function run(
  args: string[],
  compile: Compile,
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<Run> {
  let said = "";
  let printed = "";
  const io: Io = {
    out: (text) => void (printed += text),
    err: (text) => void (said += text),
    env: (name) => options.env?.[name],
    cwd: options.cwd ?? ROOT,
  };
  const code = await compileServer(args, io, compile);
  return { code, said, printed };
}

/** The files under `dir`, relative, sorted (folders end with "/"). */
async function tree(dir: string, under = ""): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(`${dir}/${under}`)) {
    const path = `${under}${entry.name}`;
    if (entry.isDirectory) found.push(`${path}/`, ...await tree(dir, `${path}/`));
    else found.push(path);
  }
  return found.sort();
}

/**
 * A compile step that records what it was handed and the staged directory as it found it,
 * then writes `bytes` where the binary goes (or fails, given `fail`).
 */
function recorder(fail?: string) {
  const seen: { request: CompileRequest; staged: string[]; entry: string }[] = [];
  const compile: Compile = async (request, report) => {
    seen.push({
      request,
      staged: await tree(request.cwd),
      entry: await Deno.readTextFile(`${request.cwd}/${request.entry}`),
    });
    if (fail !== undefined) {
      report("deno compile's own report");
      return fail;
    }
    await Deno.mkdir(request.output.slice(0, request.output.lastIndexOf("/")), {
      recursive: true,
    });
    await Deno.writeTextFile(request.output, "a compiled server");
    return undefined;
  };
  return { compile, seen };
}

/** A scratch server directory named `name`: examples/hello's tools and prompts, and `change`. */
async function scratch(
  name: string,
  change: (dir: string) => Promise<void>,
  use: (dir: string) => Promise<void>,
): Promise<void> {
  const parent = await Deno.makeTempDir({ prefix: "toolshed_compile_dir_" });
  const dir = `${parent}/${name}`;
  try {
    for (const folder of ["tools", "prompts"]) {
      await Deno.mkdir(`${dir}/${folder}`, { recursive: true });
      for await (const entry of Deno.readDir(`${HELLO}/${folder}`)) {
        await Deno.copyFile(`${HELLO}/${folder}/${entry.name}`, `${dir}/${folder}/${entry.name}`);
      }
    }
    await change(dir);
    await use(dir);
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
}

Deno.test("compile --dir: hands deno compile the staged directory (DIR's folders, server.meta.json and an entry starting toolshed), the build config and DENORT_BIN, and writes the binary at --output", async () => {
  const out = await Deno.makeTempDir({ prefix: "toolshed_compile_out_" });
  try {
    const { compile, seen } = recorder();
    const { code, said, printed } = await run(
      ["--dir", HELLO, "--output", `${out}/bin/hello`],
      compile,
      { env: { DENORT_BIN: "/opt/denort" } },
    );
    assert.equal(code, 0, said);
    assert.equal(seen.length, 1);
    const [{ request, staged, entry }] = seen;
    assert.deepEqual(staged, [
      "entry.ts",
      "prompts/",
      "prompts/code_review.md",
      "server.meta.json",
      "tools/",
      "tools/add.ts",
    ]);
    assert.match(entry, /import \{ start \} from "file:\/\/.*\/main\.ts";\s+await start\(\);/);
    assert.equal(new URL(entry.split('"')[1]).pathname, `${ROOT}main.ts`);
    assert.equal(request.entry, "entry.ts");
    assert.equal(request.config, COMPILE_CONFIG);
    assert.equal(COMPILE_CONFIG, `${ROOT}build/compile.deno.json`);
    assert.equal(request.target, TARGET);
    assert.equal(request.denortBin, "/opt/denort");
    const args = denoCompileArgs(request);
    // deno compile -A --exclude-unused-npm --config CONFIG, then the includes.
    assert.equal(
      args.slice(0, 5).join(" "),
      `compile -A --exclude-unused-npm --config ${COMPILE_CONFIG}`,
    );
    assert.deepEqual(
      args.flatMap((arg, i) => args[i - 1] === "--include" ? [arg] : []).sort(),
      ["prompts/", "server.meta.json", "tools/"],
    );
    assert.equal(args.at(-1), "entry.ts");
    // Compiled inside the staging directory, then copied to --output.
    assert.ok(request.output.startsWith(`${request.cwd}/`), request.output);
    assert.equal(await Deno.readTextFile(`${out}/bin/hello`), "a compiled server");
    if (Deno.build.os !== "windows") {
      assert.equal((await Deno.stat(`${out}/bin/hello`)).mode! & 0o777, 0o755);
    }
    assert.match(printed, new RegExp(`^Built "${out}/bin/hello" for ${TARGET}: 1 tool\\(s\\)`));
    assert.match(printed, /over HTTP: .*hello --http/);
    // The staging directory is gone.
    await assert.rejects(Deno.stat(request.cwd), Deno.errors.NotFound);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("compile --dir: without --output the binary is DIR/dist/DIR's name (.exe for Windows); a directory without server.meta.json compiles; relative paths are the caller's", async () => {
  await scratch("weather", async () => {}, async (dir) => {
    const { compile, seen } = recorder();
    const parent = dir.slice(0, dir.lastIndexOf("/"));
    const { code, said } = await run(["--dir", "weather"], compile, { cwd: parent });
    assert.equal(code, 0, said);
    assert.equal(await Deno.readTextFile(`${dir}/dist/weather`), "a compiled server");
    assert.ok(!seen[0].staged.includes("server.meta.json"));
    assert.ok(!seen[0].request.includes.includes("server.meta.json"));

    const windows = await run(["--dir", dir, "--target", "x86_64-pc-windows-msvc"], compile);
    assert.equal(windows.code, 0, windows.said);
    assert.equal(seen[1].request.target, "x86_64-pc-windows-msvc");
    assert.ok((await Deno.stat(`${dir}/dist/weather.exe`)).isFile);
  });
});

Deno.test("compile --dir: dot files are left out and named, an executable tool is left out with a warning, both saying the binary", async () => {
  await scratch("dots", async (dir) => {
    await Deno.writeTextFile(`${dir}/tools/.env`, "SECRET=1\n");
    await Deno.writeTextFile(`${dir}/tools/shout.sh`, "#!/bin/sh\necho hi\n");
    await Deno.chmod(`${dir}/tools/shout.sh`, 0o755);
    await Deno.writeTextFile(
      `${dir}/tools/shout.json`,
      JSON.stringify({ description: "Shouts", inputSchema: { type: "object" } }),
    );
  }, async (dir) => {
    const { compile, seen } = recorder();
    const { code, said } = await run(["--dir", dir, "--output", `${dir}/dist/dots`], compile);
    assert.equal(code, 0, said);
    assert.match(said, /1 dot file\(s\) and folder\(s\) left out of the binary.*"tools\/\.env"/);
    assert.match(
      said,
      /the executable tool\(s\) shout \(tools\/shout\.json\) are left out of the binary/,
    );
    assert.ok(!seen[0].staged.includes("tools/.env"));

    const dotted = recorder();
    const withDots = await run(
      ["--dir", dir, "--output", `${dir}/dist/dots`, "--include-dotfiles"],
      dotted.compile,
    );
    assert.equal(withDots.code, 0, withDots.said);
    assert.ok(dotted.seen[0].staged.includes("tools/.env"));
  });
});

Deno.test("compile --dir: refuses what start-up refuses, naming the problem, and compiles nothing", async () => {
  await scratch("broken", async (dir) => {
    await Deno.writeTextFile(`${dir}/tools/broken.ts`, "export default { description: 1 };\n");
  }, async (dir) => {
    const { compile, seen } = recorder();
    const { code, said } = await run(["--dir", dir], compile);
    assert.equal(code, 1);
    assert.match(
      said,
      /^toolshed: Cannot compile: 1 problem\(s\) in the server directory, which start-up refuses too\n/,
    );
    assert.match(said, /broken\.ts/);
    assert.equal(seen.length, 0);
    await assert.rejects(Deno.stat(`${dir}/dist`), Deno.errors.NotFound);
  });
});

Deno.test("compile --dir: a failed compile shows deno compile's report and leaves nothing at --output", async () => {
  const out = await Deno.makeTempDir({ prefix: "toolshed_compile_out_" });
  try {
    const { compile } = recorder("deno compile exited with 1");
    const { code, said } = await run(["--dir", HELLO, "--output", `${out}/new/hello`], compile);
    assert.equal(code, 1);
    assert.match(
      said,
      /deno compile's own report\ntoolshed: Cannot compile for \S+: deno compile exited with 1\n$/,
    );
    await assert.rejects(Deno.stat(`${out}/new`), Deno.errors.NotFound);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("compile --dir: with DENORT_BIN naming no file, the real compile step refuses before running deno compile, saying what DENORT_BIN must be", async () => {
  const out = await Deno.makeTempDir({ prefix: "toolshed_compile_out_" });
  try {
    let said = "";
    const code = await compileServer(["--dir", HELLO, "--output", `${out}/hello`], {
      out: () => {},
      err: (text) => void (said += text),
      env: (name) => name === "DENORT_BIN" ? `${out}/no-denort` : undefined,
      cwd: ROOT,
    });
    assert.equal(code, 1, said);
    assert.match(
      said,
      new RegExp(
        `Cannot compile for ${TARGET}: DENORT_BIN "${out}/no-denort" names no file: DENORT_BIN ` +
          `must name the denort binary of Deno ${Deno.version.deno.replaceAll(".", "\\.")}`,
      ),
    );
    assert.deepEqual([...Deno.readDirSync(out)], []);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("compile: refuses a wrong command line in one line, exit 2, compiling nothing", async () => {
  const cases: [string[], RegExp][] = [
    [["examples/hello"], /Unexpected argument "examples\/hello": use --dir DIR/],
    [
      ["--dir", HELLO, "--target", "x86_64-unknown-linux-gnux"],
      /Unknown target "x86_64-unknown-linux-gnux"; did you mean x86_64-unknown-linux-gnu\?/,
    ],
    [["--dir", HELLO, "--output", "dist/"], /--output "dist\/" names a folder/],
    [
      ["--dir", HELLO, "--output", `${HELLO}/tools/hello`],
      /is inside tools\/, which the binary embeds/,
    ],
    [["--dir", ""], /--dir needs a value/],
    [["--dir", HELLO, "--bogus"], /--bogus/],
  ];
  for (const [args, expected] of cases) {
    const { compile, seen } = recorder();
    const { code, said } = await run(args, compile);
    assert.equal(code, 2, `${args.join(" ")}: ${said}`);
    assert.match(said, expected);
    assert.equal(said.split("\n")[0].startsWith("toolshed: "), true, said);
    assert.equal(seen.length, 0);
  }
  const missing = await run(["--dir", `${ROOT}no-such-server`], recorder().compile);
  assert.equal(missing.code, 1);
  assert.match(missing.said, /Cannot compile ".*no-such-server": there is no such directory/);
});
