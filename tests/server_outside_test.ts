// Your server outside toolshed (issue 36, adr/0068): in a directory outside the repository,
// `toolshed new server` and `toolshed new tool --dir NEW` make a server directory of its own,
// whose deno.json maps "@toolshed/toolshed" to this clone's mod.ts. From there, as its author
// would, with real processes: the tool's own test (`testServer`) runs under `deno task test`,
// `deno task check` runs `toolshed check`, and an app of one's own that imports `createServer`
// type-checks and answers a call. Deno writes the server's lock there; the repository (its
// deno.lock included) is the same before and after.
import assert from "node:assert/strict";
import { withHangGuard } from "./_server_process.ts";
import { serveStatic } from "./_static_server.ts";

const REPO = new URL("../", import.meta.url);
const MAIN = new URL("main.ts", REPO).pathname;
const text = new TextDecoder();

/** The repository's TypeScript and JSON, read-only, as a run from a URL fetches them. */
function serveRepository() {
  return serveStatic((path) =>
    /\.(ts|json)$/.test(path)
      ? {
        file: new URL(`.${path}`, REPO),
        type: path.endsWith(".ts") ? "application/typescript" : "application/json",
      }
      : undefined
  );
}

/** Runs deno with `args` in `cwd`; its exit code and output. */
async function deno(args: string[], cwd: string) {
  const { code, stdout, stderr } = await withHangGuard(
    new Deno.Command(Deno.execPath(), {
      args,
      cwd,
      env: { NO_COLOR: "1" },
      stdin: "null",
    }).output(),
    `deno ${args.join(" ")}`,
    // deno check and deno test type-check: tens of seconds on a loaded machine.
    120_000,
  );
  return { code, out: text.decode(stdout), err: text.decode(stderr) };
}

/** The repository as git shows it: `git status --porcelain`, and deno.lock's SHA-256. */
async function repositoryState(): Promise<string> {
  const git = await new Deno.Command("git", {
    args: ["status", "--porcelain", "--untracked-files=all"],
    cwd: REPO,
    stdin: "null",
  }).output();
  assert.ok(git.success, text.decode(git.stderr));
  const lock = await crypto.subtle.digest(
    "SHA-256",
    await Deno.readFile(new URL("deno.lock", REPO)),
  );
  return `${text.decode(git.stdout)}deno.lock ${
    btoa(String.fromCharCode(...new Uint8Array(lock)))
  }`;
}

/** A test of the author's own, as docs/authoring/testing.md shows one. */
const TOOL_TEST = `import assert from "node:assert/strict";
import { testServer } from "@toolshed/toolshed";

Deno.test("hello answers", async () => {
  const server = await testServer({ dir: new URL("../", import.meta.url) });
  assert.deepEqual(await server.call("hello", { text: "from a test" }), {
    content: [{ type: "text", text: "hello received: from a test" }],
  });
});
`;

/** An app of the author's own that embeds the server and answers one call through it. */
const APP = `import { createServer } from "@toolshed/toolshed";

const mcp = await createServer({ dir: new URL("./", import.meta.url) });
const response = await mcp.fetch(
  new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "hello",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "hello",
        arguments: { text: "from the app" },
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  }),
);
const answer: { result: { content: { text: string }[] } } = await response.json();
console.log(answer.result.content[0].text);
await mcp.close();
`;

Deno.test("new server outside the repository: its own deno.json and lock; a test, check and an embedding app run from it; the repository is untouched", async () => {
  const before = await repositoryState();
  const home = await Deno.makeTempDir({ prefix: "toolshed_outside_" });
  try {
    const made = await deno([
      "run",
      "-A",
      MAIN,
      "new",
      "server",
      "io.github.test/srv",
      "--dir",
      "srv",
    ], home);
    assert.equal(made.code, 0, made.err);
    assert.match(made.out, /^Created srv\/deno\.json /m);
    const srv = `${home}/srv`;
    const config = JSON.parse(await Deno.readTextFile(`${srv}/deno.json`));
    assert.equal(config.imports["@toolshed/toolshed"], new URL("mod.ts", REPO).href);
    const tool = await deno(["run", "-A", MAIN, "new", "tool", "hello", "--dir", "srv"], home);
    assert.equal(tool.code, 0, tool.err);
    // The directory existed: its deno.json is not written again.
    assert.doesNotMatch(tool.out, /deno\.json/);

    await Deno.mkdir(`${srv}/tests`);
    await Deno.writeTextFile(`${srv}/tests/hello_test.ts`, TOOL_TEST);
    const test = await deno(["task", "test"], srv);
    assert.equal(test.code, 0, `${test.out}${test.err}`);
    assert.match(test.out, /hello answers \.\.\. ok/);

    const check = await deno(["task", "check"], srv);
    assert.equal(check.code, 0, `${check.out}${check.err}`);
    assert.match(check.out, /0 errors, \d+ warnings? in 1 tool/);

    await Deno.writeTextFile(`${srv}/app.ts`, APP);
    const typed = await deno(["check", "app.ts"], srv);
    assert.equal(typed.code, 0, typed.err);
    const app = await deno(["run", "-A", "app.ts"], srv);
    assert.equal(app.code, 0, app.err);
    assert.equal(app.out, "hello received: from the app\n");

    // The lock Deno wrote is the server's own, and records toolshed's packages.
    assert.match(await Deno.readTextFile(`${srv}/deno.lock`), /"npm:jose@/);

    // The five-minute path: `new tool NAME --dir DIR` into a directory it creates.
    const fresh = await deno(["run", "-A", MAIN, "new", "tool", "hi", "--dir", "fresh"], home);
    assert.equal(fresh.code, 0, fresh.err);
    assert.match(fresh.out, /^Created fresh\/deno\.json /m);
    const freshCheck = await deno(["check", "tools/hi.ts"], `${home}/fresh`);
    assert.equal(freshCheck.code, 0, freshCheck.err);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
  assert.equal(await repositoryState(), before);
});

Deno.test("new server from a URL run: deno.json maps @toolshed/toolshed to the mod.ts at that URL, and a test imports it from there", async () => {
  const before = await repositoryState();
  const { origin, server } = serveRepository();
  const home = await Deno.makeTempDir({ prefix: "toolshed_outside_url_" });
  try {
    const made = await deno(
      [
        "run",
        "-A",
        `--reload=${origin}`,
        `${origin}/main.ts`,
        "new",
        "server",
        "io.github.test/web",
        "--dir",
        "web",
      ],
      home,
    );
    assert.equal(made.code, 0, made.err);
    const web = `${home}/web`;
    const config = JSON.parse(await Deno.readTextFile(`${web}/deno.json`));
    assert.equal(config.imports["@toolshed/toolshed"], `${origin}/mod.ts`);
    assert.equal(config.tasks.check, `deno run -A ${origin}/main.ts check`);
    // The hint names the run as the person typed it: through npx when npx started this Deno (as
    // .ci/run's `npx --yes deno@… task test` does: its environment reaches the child).
    assert.match(
      made.out,
      new RegExp(
        `check it with: (deno|npx --yes deno@[0-9.]+) run -A ${origin}/main\\.ts check --dir web\n`,
      ),
    );
    const tool = await deno([
      "run",
      "-A",
      `${origin}/main.ts`,
      "new",
      "tool",
      "hello",
      "--dir",
      "web",
    ], home);
    assert.equal(tool.code, 0, tool.err);
    await Deno.mkdir(`${web}/tests`);
    await Deno.writeTextFile(`${web}/tests/hello_test.ts`, TOOL_TEST);
    const test = await deno(["task", "test"], web);
    assert.equal(test.code, 0, `${test.out}${test.err}`);
    assert.match(test.out, /hello answers \.\.\. ok/);
    // The lock is the server's, and holds the hashes of the modules fetched from the URL.
    const lock = JSON.parse(await Deno.readTextFile(`${web}/deno.lock`));
    assert.ok(`${origin}/mod.ts` in (lock.remote ?? {}), JSON.stringify(Object.keys(lock)));
  } finally {
    await server.shutdown();
    await Deno.remove(home, { recursive: true });
  }
  assert.equal(await repositoryState(), before);
});
