// Code mode's sandbox as a compiled toolshed runs it (adr/0073 decision 2): the child is the
// binary itself with the hidden subcommand `__code-runner`, and the binary has every permission
// baked in (-A), so what keeps the code in is the runner's own revocation. `deno run -A main.ts
// __code-runner` is that same path (main.ts's start(), the same runner, every permission
// granted), so the red team's main cases run through it here. A real compiled binary needs
// denort, which cannot be downloaded here: that test runs where DENORT_BIN names one and is
// ignored otherwise, saying so. From a URL, the child is `deno eval` of the runner's text, which
// came with the module: that runs here too.
import assert from "node:assert/strict";
import {
  type CallTool,
  createSandbox,
  type RunnerCommand,
  type SandboxLimits,
} from "../lib/code/sandbox.ts";
import { CODE_RUNNER_COMMAND } from "../lib/code/runner_command.ts";
import { withHangGuard } from "./_server_process.ts";
import { serveStatic } from "./_static_server.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;

/** The compiled binary's path, with what it has baked in: every permission. */
const AS_COMPILED: RunnerCommand = {
  program: Deno.execPath(),
  args: ["run", "-A", "--no-lock", MAIN, CODE_RUNNER_COMMAND],
};

const LIMITS: SandboxLimits = {
  heapMb: 64,
  timeoutMs: 60_000,
  maxCalls: 5,
  maxConsoleBytes: 64 * 1024,
  maxResultBytes: 64 * 1024,
  poolSize: 0,
};

const never = new AbortController().signal;

const add: CallTool = (_name, args) => {
  const { a, b } = args as { a: number; b: number };
  return Promise.resolve({ sum: a + b });
};

Deno.test("sandbox through `main.ts __code-runner` with -A: the runner revokes what the binary has, and a normal run works after", async () => {
  const dir = await Deno.makeTempDir();
  const secret = crypto.randomUUID();
  const name = `TOOLSHED_SANDBOX_SECRET_${crypto.randomUUID().replaceAll("-", "")}`;
  Deno.env.set(name, secret);
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let accepted = 0;
  const accepting = (async () => {
    for await (const connection of listener) {
      accepted++;
      connection.close();
    }
  })();
  const sandbox = createSandbox(LIMITS, { runner: AS_COMPILED });
  try {
    await Deno.writeTextFile(`${dir}/secret.json`, JSON.stringify({ secret }));
    const code = `
      const tries = [
        () => import("file://${dir}/secret.json", { with: { type: "json" } }),
        () => fetch("file://${dir}/secret.json").then((r) => r.text()),
        () => fetch("http://127.0.0.1:${listener.addr.port}/"),
        () => import("http://127.0.0.1:${listener.addr.port}/x.js"),
        () => import("node:process").then((p) => p.env["${name}"]),
        () => import("node:fs").then((fs) => fs.writeFileSync("${dir}/written", "x")),
        () => import("node:child_process").then((cp) => cp.execSync("touch ${dir}/spawned")),
        () => Deno.readTextFileSync("${dir}/secret.json"),
        () => new Worker("data:text/javascript,1", { type: "module" }),
      ];
      const out = [];
      for (const t of tries) {
        try { out.push({ got: JSON.stringify(await t()) ?? "undefined" }); } catch (e) { out.push({ refused: e.message }); }
      }
      return out;`;
    const outcome = await withHangGuard(sandbox.run(code, add, never), "the hostile run", 60_000);
    assert.equal(outcome.ok, true, outcome.error);
    const tries = outcome.value as { got?: string; refused?: string }[];
    assert.equal(tries.length, 9);
    for (const attempt of tries) assert.ok(attempt.refused !== undefined, JSON.stringify(attempt));
    assert.ok(!JSON.stringify(outcome).includes(secret));
    assert.equal(accepted, 0);
    assert.deepEqual([...Deno.readDirSync(dir)].map((entry) => entry.name), ["secret.json"]);

    const bomb = await withHangGuard(
      sandbox.run("const a = []; for (;;) a.push(new Array(1 << 18).fill(1));", add, never),
      "the memory bomb",
      60_000,
    );
    assert.equal(
      bomb.error,
      "The code ran out of memory (the sandbox's heap is capped at 64 MB), so its process ended",
    );

    const normal = await withHangGuard(
      sandbox.run("return await tools.add({ a: 1, b: 2 })", add, never),
      "the normal run",
      60_000,
    );
    assert.deepEqual(normal, {
      ok: true,
      value: { sum: 3 },
      console: "",
      consoleCut: false,
      calls: 1,
    });
  } finally {
    await sandbox.close();
    Deno.env.delete(name);
    listener.close();
    await accepting.catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("toolshed --help does not show the hidden __code-runner subcommand", async () => {
  const { stderr, stdout } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "--help"],
    env: { NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const help = new TextDecoder().decode(stderr) + new TextDecoder().decode(stdout);
  assert.match(help, /Usage/);
  assert.ok(!help.includes(CODE_RUNNER_COMMAND));
});

Deno.test("sandbox run from a URL works: the child gets the runner as text, which a child without permissions could not fetch", async () => {
  const repo = new URL("../", import.meta.url);
  const served = serveStatic((path) =>
    path.endsWith(".ts")
      ? { file: new URL(`.${path}`, repo), type: "application/typescript" }
      : undefined
  );
  try {
    const host = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--no-lock",
        `${served.origin}/tests/_code_sandbox_host.ts`,
        "return await tools.x({})",
      ],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = host.stdin.getWriter();
    await writer.write(new TextEncoder().encode(JSON.stringify(LIMITS)));
    await writer.close();
    const { code, stdout, stderr } = await withHangGuard(
      host.output(),
      "the host from a URL",
      60_000,
    );
    assert.equal(code, 0, new TextDecoder().decode(stderr));
    const { outcome, normal } = JSON.parse(new TextDecoder().decode(stdout));
    assert.deepEqual(outcome, { ok: true, value: {}, console: "", consoleCut: false, calls: 1 });
    assert.equal(normal.value, 2);
    assert.ok(served.requested.includes("/lib/code/sandbox_runner.ts"));
  } finally {
    await served.server.shutdown();
  }
});

const DENORT_BIN = Deno.env.get("DENORT_BIN");

Deno.test({
  name: `a compiled binary starts its sandbox's children as itself with ${CODE_RUNNER_COMMAND}${
    DENORT_BIN === undefined ? " (ignored: DENORT_BIN names no denort here)" : ""
  }`,
  ignore: DENORT_BIN === undefined,
  async fn() {
    const dir = await Deno.makeTempDir();
    try {
      // An entry that is main.ts for the hidden subcommand and runs one sandbox otherwise.
      const lib = new URL("../lib/code/sandbox.ts", import.meta.url).href;
      await Deno.writeTextFile(
        `${dir}/entry.ts`,
        `import { start } from ${JSON.stringify(new URL("../main.ts", import.meta.url).href)};
import { createSandbox } from ${JSON.stringify(lib)};
if (Deno.args[0] === ${JSON.stringify(CODE_RUNNER_COMMAND)}) await start();
const sandbox = createSandbox(${JSON.stringify(LIMITS)});
const add = (_n, args) => Promise.resolve({ sum: args.a + args.b });
const signal = new AbortController().signal;
const outcomes = [
  await sandbox.run("return await tools.add({ a: 1, b: 2 })", add, signal),
  await sandbox.run("return await fetch('file://${dir}/entry.ts').then((r) => r.text())", add, signal),
  await sandbox.run("return (await import('npm:left-pad@1.3.0')).default('x', 3)", add, signal),
];
await sandbox.close();
console.log(JSON.stringify(outcomes));
`,
      );
      const compiled = await new Deno.Command(Deno.execPath(), {
        args: [
          "compile",
          "-A",
          "--no-check",
          "--no-lock",
          "--output",
          `${dir}/bin`,
          `${dir}/entry.ts`,
        ],
        cwd: decodeURIComponent(new URL("../", import.meta.url).pathname),
        env: { DENORT_BIN: DENORT_BIN! },
      }).output();
      assert.equal(compiled.code, 0, new TextDecoder().decode(compiled.stderr));
      const ran = await new Deno.Command(`${dir}/bin`, { stdin: "null" }).output();
      const [normal, read, npm] = JSON.parse(new TextDecoder().decode(ran.stdout));
      assert.deepEqual(normal.value, { sum: 3 });
      assert.equal(read.ok, false);
      assert.match(read.error, /Requires read access/);
      // A compiled binary has no npm flag to turn off: its runtime must not fetch packages.
      assert.equal(npm.ok, false, JSON.stringify(npm));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
