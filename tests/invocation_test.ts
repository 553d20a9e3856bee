// commandLine() (lib/commands/invocation.ts) names toolshed as the user runs it, from what a
// process shows: each way of running it is described by its facts, as the real process would
// show them (the environments are those measured under deno task and npx on Deno 2.9.6), and one
// real process started through `deno task` in a scratch clone checks the facts themselves.
import assert from "node:assert/strict";
import { commandLine, currentInvocation, type Invocation } from "../lib/commands/invocation.ts";

const CLONE = "/home/you/toolshed";

/** A run of main.ts from the clone with `deno run -A main.ts`, changed by `facts`. */
function invocation(
  facts: Partial<Omit<Invocation, "env">> & { env?: Record<string, string> } = {},
): Invocation {
  const env = { PATH: "/usr/local/bin:/usr/bin:/bin", ...facts.env };
  return {
    standalone: false,
    execPath: "/usr/bin/deno",
    mainModule: `file://${CLONE}/main.ts`,
    cwd: CLONE,
    denoVersion: "2.9.6",
    parentArgs: ["bash"],
    tasksBesideMain: ["start", "toolshed", "test"],
    ...facts,
    env: (name) => env[name as keyof typeof env],
  };
}

/** What `deno task` sets (INIT_CWD: where it was typed; the task runs in deno.json's folder). */
const DENO_TASK = { npm_config_user_agent: "deno/2.9.6 npm/? deno/2.9.6 linux x86_64" };
/** What npx sets, which `deno task` then leaves as it is. */
const NPX = {
  npm_lifecycle_event: "npx",
  npm_command: "exec",
  npm_config_user_agent: "npm/11.19.1 node/v20.20.2 linux x64 workspaces/false",
};

Deno.test("commandLine() names deno task toolshed in a clone run through its task", () => {
  const task = ["deno", "task", "--quiet", "toolshed", "new", "tool", "x"];
  assert.equal(
    commandLine(invocation({ parentArgs: task, env: { ...DENO_TASK, INIT_CWD: CLONE } })),
    "deno task toolshed",
  );
  // Typed in a folder of the clone (deno finds the clone's deno.json from there), or started
  // by the start task (the server's greeting): the command line is still the toolshed task.
  assert.equal(
    commandLine(invocation({
      parentArgs: ["/usr/bin/deno", "task", "start"],
      env: { ...DENO_TASK, INIT_CWD: `${CLONE}/my-server` },
    })),
    "deno task toolshed",
  );
  // Without /proc (macOS), what deno task sets in the environment says so.
  assert.equal(
    commandLine(invocation({ parentArgs: undefined, env: { ...DENO_TASK, INIT_CWD: CLONE } })),
    "deno task toolshed",
  );
});

Deno.test("commandLine() names the npx prefix when Deno came from npx", () => {
  const task = ["deno", "task", "toolshed", "new", "tool", "x"];
  assert.equal(
    commandLine(invocation({ parentArgs: task, env: { ...NPX, INIT_CWD: CLONE } })),
    "npx --yes deno@2.9.6 task toolshed",
  );
  assert.equal(
    commandLine(invocation({
      parentArgs: ["sh", "-c", "'deno' run -A main.ts new tool x"],
      env: { ...NPX, INIT_CWD: CLONE },
    })),
    "npx --yes deno@2.9.6 run -A main.ts",
  );
});

Deno.test("commandLine() names deno run with the main module where no task reaches it", () => {
  assert.equal(commandLine(invocation()), "deno run -A main.ts");
  assert.equal(
    commandLine(invocation({ cwd: "/home/you/elsewhere" })),
    "deno run -A /home/you/toolshed/main.ts",
  );
  assert.equal(
    commandLine(invocation({ mainModule: "file:///home/you/my%20clone/main.ts", cwd: "/" })),
    "deno run -A '/home/you/my clone/main.ts'",
  );
  assert.equal(
    commandLine(invocation({ mainModule: "https://example.com/toolshed/main.ts" })),
    "deno run -A https://example.com/toolshed/main.ts",
  );
  // A task of the user's own project that runs the clone's main.ts from outside the clone:
  // `deno task toolshed` typed there would not find the clone's deno.json.
  assert.equal(
    commandLine(invocation({
      parentArgs: ["deno", "task", "mcp", "new", "tool", "x"],
      cwd: "/home/you/project",
      env: { ...DENO_TASK, INIT_CWD: "/home/you/project" },
    })),
    "deno run -A /home/you/toolshed/main.ts",
  );
  // A deno.json without the toolshed task (a copy of main.ts elsewhere).
  assert.equal(
    commandLine(invocation({
      parentArgs: ["deno", "task", "start"],
      tasksBesideMain: ["start"],
      env: { ...DENO_TASK, INIT_CWD: CLONE },
    })),
    "deno run -A main.ts",
  );
  // Another program called deno task started it? Only deno's own task counts.
  assert.equal(
    commandLine(invocation({ parentArgs: ["make", "task"], env: { INIT_CWD: CLONE } })),
    "deno run -A main.ts",
  );
});

Deno.test("commandLine() names the npm package's bin: toolshed installed, npx -y toolshed through npx", () => {
  // The bin (build/npm/toolshed.cjs) is node running the package's bin file, and Deno's main
  // module is the package's bundle; the bin passes its environment on.
  const global = "/home/you/.npm-global/lib/node_modules/toolshed";
  const installed = invocation({
    execPath: `${global}/node_modules/deno/deno`,
    mainModule: `file://${global}/dist/bundle/toolshed.js`,
    cwd: "/home/you",
    parentArgs: ["node", "/home/you/.npm-global/bin/toolshed", "new", "tool", "x"],
    tasksBesideMain: undefined,
  });
  assert.equal(commandLine(installed), "toolshed");
  const npx = "/home/you/.npm/_npx/0123456789abcdef/node_modules/toolshed";
  assert.equal(
    commandLine(invocation({
      execPath: `${npx}/node_modules/deno/deno`,
      mainModule: `file://${npx}/dist/bundle/toolshed.js`,
      cwd: "/home/you",
      parentArgs: ["node", `${npx}/../.bin/toolshed`, "new", "tool", "x"],
      tasksBesideMain: undefined,
      env: NPX,
    })),
    "npx -y toolshed",
  );
  // The same bundle outside an installed package is run as any module is.
  assert.equal(
    commandLine(invocation({ mainModule: `file://${CLONE}/dist/bundle/toolshed.js` })),
    "deno run -A dist/bundle/toolshed.js",
  );
});

Deno.test("commandLine() names a compiled binary as the shell finds it", () => {
  const binary = { standalone: true, mainModule: "file:///tmp/deno-compile-toolshed/main.ts" };
  assert.equal(
    commandLine(invocation({ ...binary, execPath: `${CLONE}/dist/toolshed` })),
    "./dist/toolshed",
  );
  assert.equal(
    commandLine(invocation({ ...binary, execPath: "/usr/local/bin/toolshed" })),
    "toolshed",
  );
  assert.equal(
    commandLine(invocation({ ...binary, execPath: "/opt/tools/my toolshed", cwd: "/" })),
    "'/opt/tools/my toolshed'",
  );
});

Deno.test("currentInvocation() reads deno task's facts in a real task run", async () => {
  // A scratch clone: a deno.json with the toolshed task, and a main.ts printing what
  // currentInvocation() and commandLine() see.
  const clone = await Deno.makeTempDir({ prefix: "toolshed_invocation_" });
  try {
    const module = new URL("../lib/commands/invocation.ts", import.meta.url).href;
    await Deno.writeTextFile(
      `${clone}/deno.json`,
      JSON.stringify({ tasks: { toolshed: "deno run -A main.ts" } }),
    );
    await Deno.writeTextFile(
      `${clone}/main.ts`,
      `import { commandLine } from ${JSON.stringify(module)};\nconsole.log(commandLine());\n`,
    );
    await Deno.mkdir(`${clone}/sub`);
    // What an outer deno task or npx set (this test may run under either) is left out.
    const env = Object.fromEntries(
      Object.entries(Deno.env.toObject()).filter(([name]) =>
        !name.startsWith("npm_") && name !== "INIT_CWD"
      ),
    );
    const run = async (args: string[], cwd: string) => {
      const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
        args,
        cwd,
        env,
        clearEnv: true,
        stdin: "null",
      }).output();
      const text = new TextDecoder();
      assert.equal(code, 0, text.decode(stderr));
      return text.decode(stdout);
    };
    assert.equal(
      await run(["task", "--quiet", "toolshed"], `${clone}/sub`),
      "deno task toolshed\n",
    );
    assert.equal(await run(["run", "-A", "main.ts"], clone), "deno run -A main.ts\n");
  } finally {
    await Deno.remove(clone, { recursive: true });
  }
});

Deno.test("currentInvocation() reads nothing it was not granted: a process without permissions is named, and asked nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_invocation_" });
  try {
    const module = new URL("../lib/commands/invocation.ts", import.meta.url).href;
    await Deno.writeTextFile(
      `${dir}/main.ts`,
      `import { commandLine } from ${JSON.stringify(module)};\nconsole.log(commandLine());\n`,
    );
    // --no-prompt: a read of what was not granted would throw here (in a terminal, it would ask).
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-prompt", `${dir}/main.ts`],
      cwd: dir,
      stdin: "null",
    }).output();
    const text = new TextDecoder();
    assert.equal(code, 0, text.decode(stderr));
    // Without read permission the working directory is unknown: the path is shown whole.
    assert.equal(text.decode(stdout), `deno run -A ${dir}/main.ts\n`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("currentInvocation() describes this process", () => {
  const here = currentInvocation();
  assert.equal(here.standalone, false);
  assert.equal(here.execPath, Deno.execPath());
  assert.equal(here.cwd, Deno.cwd());
  assert.equal(here.denoVersion, Deno.version.deno);
});
