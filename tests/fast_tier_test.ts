// The fast tier keeps its own rule (tests/fast_tier.ts, adr/0061): a test file that spawns a
// type-check (deno check, compile or bundle; toolshed check), a browser, redis-server, an
// authorization server or main.ts is on the slow list, unless it is one of the exceptions below,
// each with its reason. Reads each fast file as text, as layers_test.ts reads imports: the
// helpers that spawn are found by name (through an alias too), and the few spawns written out
// in place by the words they spawn. Takes milliseconds and spawns nothing.
import assert from "node:assert/strict";
import { SLOW_TESTS } from "./fast_tier.ts";

const ROOT = new URL("../", import.meta.url);

const TYPE_CHECK = "a type-check (deno check, compile or bundle)";
const BROWSER = "a browser";
const REDIS = "redis-server";
const AUTH = "an authorization server";
const MAIN = "main.ts";
const SERVER = "another server";
type Spawned =
  | typeof TYPE_CHECK
  | typeof BROWSER
  | typeof REDIS
  | typeof AUTH
  | typeof MAIN
  | typeof SERVER;

/** The tests' helpers that start a process (or a server), by exported name. */
const HELPERS: Record<string, Spawned> = {
  assertChecks: TYPE_CHECK, // tests/examples/_example.ts: toolshed check
  launchChromium: BROWSER, // tests/_chromium.ts
  startRedis: REDIS, // tests/_redis.ts, tests/scale/_harness.ts
  proxyRedis: REDIS, // tests/_redis.ts: in front of one
  startAuthServer: AUTH, // tests/_oidc.ts: oidc-provider
  startTokenIssuer: AUTH, // tests/_token_issuer.ts
  spawnServer: MAIN, // tests/_server_process.ts: main.ts over stdio
  spawnMain: MAIN,
  spawnHttpServer: MAIN,
  spawnHostileTarget: MAIN, // tests/_hostile.ts
  toolshed: MAIN, // tests/examples/_example.ts: a main.ts command
  startHaproxy: SERVER, // tests/scale/_harness.ts
};

/** What a file spawns where it writes the spawn out itself. */
const WRITTEN: [RegExp, Spawned][] = [
  [/\[\s*"(check|compile|bundle)"\s*[,\]]/, TYPE_CHECK],
  [/\bchromium\b/i, BROWSER],
  [/"redis-server"/, REDIS],
  [/\boidc-provider\b|\bissuer\.ts\b/, AUTH],
  [/\bnginx\b|\bhaproxy\b/, SERVER],
];

/**
 * Fast files that spawn one cheap process (or an in-process server) among in-process tests,
 * with what they may spawn and why they stay. A file that spawns more goes to SLOW_TESTS.
 */
const EXCEPTIONS: Record<string, { spawns: Spawned[]; reason: string }> = {
  "tests/author_loop_test.ts": {
    spawns: [MAIN],
    reason:
      "testServer() in process; one main.ts serving an author's directory outside the repository",
  },
  "tests/call_command_test.ts": {
    spawns: [MAIN],
    reason: "in process with a recording Io; main.ts once for stdout, stderr and exit codes",
  },
  "tests/caller_identity_test.ts": {
    spawns: [MAIN, AUTH],
    reason: "one main.ts --http against the hand-made issuer in this process",
  },
  "tests/cli_test.ts": {
    spawns: [MAIN],
    reason: "parseCommand() in process; main.ts only for the exit codes",
  },
  "tests/config_command_test.ts": {
    spawns: [MAIN],
    reason: "in process; main.ts once for what the printed configuration runs, under a lock file",
  },
  "tests/corpus_test.ts": {
    spawns: [MAIN],
    reason: "the corpus in process; one main.ts for the stdio framing of the same inputs",
  },
  "tests/create_server_test.ts": {
    spawns: [REDIS],
    reason: "one redis-server (milliseconds) for the options that need it; the server in process",
  },
  "tests/dpop_test.ts": {
    spawns: [AUTH],
    reason: "oidc-provider in this process on loopback, not a process",
  },
  "tests/examples/apps_test.ts": {
    spawns: [MAIN],
    reason: "one main.ts --http for the SDK client, as the example's README runs it",
  },
  "tests/examples/asking_test.ts": {
    spawns: [MAIN],
    reason: "in process; one main.ts over stdio as the README runs it",
  },
  "tests/examples/hello_test.ts": {
    spawns: [MAIN],
    reason: "the README's toolshed list, call and config commands, short main.ts runs",
  },
  "tests/examples/tasks_test.ts": {
    spawns: [MAIN],
    reason: "one main.ts over stdio, as the README runs it",
  },
  "tests/examples/toolsets_test.ts": {
    spawns: [MAIN],
    reason: "the README's toolshed list commands, short main.ts runs",
  },
  "tests/feature_pairs_test.ts": {
    spawns: [MAIN],
    reason: "in process but for main.ts --http where a pair meets over HTTP",
  },
  "tests/hostile_requests_test.ts": {
    spawns: [MAIN],
    reason: "one main.ts over stdio, the subject of the hostile shapes",
  },
  "tests/http_auth_test.ts": {
    spawns: [MAIN],
    reason:
      "in process over loopback; one main.ts --http for the token from the environment and the request log",
  },
  "tests/http_test.ts": {
    spawns: [MAIN],
    reason:
      "in process over loopback; one main.ts --http for its URL line and its drain on SIGTERM",
  },
  "tests/invocation_test.ts": {
    spawns: [MAIN],
    reason:
      "commandLine() from facts; a two-line stand-in main.ts (not toolshed's) shows the real facts",
  },
  "tests/list_command_test.ts": {
    spawns: [MAIN],
    reason: "in process with a recording Io; main.ts once for stdout, stderr and exit code",
  },
  "tests/log_format_test.ts": {
    spawns: [MAIN],
    reason: "what main.ts writes on stderr is the subject; short runs",
  },
  "tests/metrics_test.ts": {
    spawns: [MAIN, REDIS],
    reason: "in process but for one main.ts --metrics and one redis-server for the shared counters",
  },
  "tests/oauth_executable_test.ts": {
    spawns: [MAIN, AUTH],
    reason: "one main.ts with --auth-issuer, oidc-provider in this process",
  },
  "tests/oauth_http_test.ts": {
    spawns: [AUTH],
    reason: "oidc-provider in this process on loopback, not a process",
  },
  "tests/oauth_sdk_test.ts": {
    spawns: [MAIN, AUTH],
    reason: "one main.ts --http, oidc-provider in this process",
  },
  "tests/operations_test.ts": {
    spawns: [MAIN],
    reason: "one main.ts --http whose metrics and log lines are the subject",
  },
  "tests/readme_test.ts": {
    spawns: [MAIN],
    reason: "the README's commands as a reader runs them; short runs",
  },
  "tests/reload_test.ts": {
    spawns: [MAIN],
    reason: "--watch in a real main.ts is the subject",
  },
  "tests/server_card_test.ts": {
    spawns: [MAIN],
    reason: "one main.ts --http serving examples/hello to plain fetch",
  },
  "tests/server_meta_test.ts": {
    spawns: [MAIN],
    reason: "rules in process; one main.ts over stdio for serverInfo",
  },
  "tests/task_store_test.ts": {
    spawns: [REDIS],
    reason: "one redis-server (milliseconds) for the Redis store; the store in process",
  },
  "tests/telemetry_test.ts": {
    spawns: [MAIN],
    reason: "Deno's OpenTelemetry is on only in a process started with OTEL_DENO",
  },
  "tests/token_verifier_test.ts": {
    spawns: [AUTH],
    reason: "oidc-provider in this process on loopback, not a process",
  },
  "tests/toolsets_interop_test.ts": {
    spawns: [MAIN],
    reason: "one main.ts --http for the SDK client's paths and header",
  },
  "tests/toolsets_test.ts": {
    spawns: [MAIN],
    reason: "in process but for one main.ts refusing to start (it exits at once)",
  },
  "tests/transcript_test.ts": {
    spawns: [MAIN],
    reason: "the transcripts are the contract of main.ts over stdio; one process per transcript",
  },
};

/** The code of a file without its comments (a word in a comment spawns nothing). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

/** What a file's text spawns, each with the helper or the words that spawn it. */
export function spawnsOf(text: string): Map<Spawned, string> {
  const source = code(text);
  const found = new Map<Spawned, string>();
  const local = new Map<string, string>(Object.keys(HELPERS).map((name) => [name, name]));
  for (const [, names] of source.matchAll(/import\s*(?:type\s*)?\{([^}]*)\}\s*from/g)) {
    for (const [, name, alias] of names.matchAll(/(\w+)\s+as\s+(\w+)/g)) {
      if (name in HELPERS) local.set(alias, name);
    }
  }
  for (const [name, helper] of local) {
    if (new RegExp(`\\b${name}\\s*\\(`).test(source) && !found.has(HELPERS[helper])) {
      found.set(HELPERS[helper], `through ${helper}()`);
    }
  }
  for (const [pattern, spawned] of WRITTEN) {
    const match = source.match(pattern);
    if (match && !found.has(spawned)) found.set(spawned, `with ${JSON.stringify(match[0])}`);
  }
  if (
    !found.has(MAIN) && /new Deno\.Command\(/.test(source) && /\bmain\.ts\b|\bMAIN\b/.test(source)
  ) {
    found.set(MAIN, "with Deno.Command and main.ts");
  }
  return found;
}

/** The test files `deno test` finds (under tests/ and examples/), from the root. */
async function testFiles(folder: string, found: string[] = []): Promise<string[]> {
  for await (const entry of Deno.readDir(new URL(folder, ROOT))) {
    const path = `${folder}${entry.name}`;
    if (entry.isDirectory) await testFiles(`${path}/`, found);
    else if (/_test\.(ts|tsx|js|mjs)$/.test(entry.name)) found.push(path);
  }
  return found;
}

async function fastFiles(): Promise<string[]> {
  const all = [...await testFiles("tests/"), ...await testFiles("examples/")];
  // This file names every spawn in its own checks.
  return all.filter((file) => !SLOW_TESTS.includes(file) && file !== "tests/fast_tier_test.ts")
    .sort();
}

Deno.test("no fast test file spawns a type-check, a browser, redis-server, an authorization server or main.ts unless it is an exception", async () => {
  const broken: string[] = [];
  for (const file of await fastFiles()) {
    const allowed = EXCEPTIONS[file]?.spawns ?? [];
    for (const [spawned, how] of spawnsOf(await Deno.readTextFile(new URL(file, ROOT)))) {
      if (!allowed.includes(spawned)) {
        broken.push(
          `"${file}" spawns ${spawned} ${how}: list it in SLOW_TESTS (tests/fast_tier.ts)`,
        );
      }
    }
  }
  assert.deepEqual(broken, []);
});

Deno.test("each exception is a fast file that still spawns what it is let spawn, and never a type-check or a browser", async () => {
  const fast = await fastFiles();
  const stale: string[] = [];
  for (const [file, { spawns }] of Object.entries(EXCEPTIONS)) {
    if (!fast.includes(file)) {
      stale.push(`"${file}" is not a fast test file`);
      continue;
    }
    const found = spawnsOf(await Deno.readTextFile(new URL(file, ROOT)));
    for (const spawned of spawns) {
      if (spawned === TYPE_CHECK || spawned === BROWSER) {
        stale.push(`"${file}" may not spawn ${spawned} in the fast tier`);
      } else if (!found.has(spawned)) stale.push(`"${file}" no longer spawns ${spawned}`);
    }
  }
  assert.deepEqual(stale, []);
});

Deno.test("spawnsOf finds spawns through the helpers, an alias and words written out, not in comments", () => {
  const found = (text: string) => Object.fromEntries(spawnsOf(text));
  assert.deepEqual(
    found(
      `import { spawnHttpServer as start } from "./_server_process.ts";\nawait start([]);`,
    ),
    { [MAIN]: "through spawnHttpServer()" },
  );
  assert.deepEqual(found(`const redis = await startRedis();`), { [REDIS]: "through startRedis()" });
  assert.deepEqual(found(`await startAuthServer({});`), { [AUTH]: "through startAuthServer()" });
  assert.deepEqual(found(`const browser = await launchChromium();`), {
    [BROWSER]: "through launchChromium()",
  });
  assert.deepEqual(
    found(`new Deno.Command(Deno.execPath(), { args: ["check", "app.ts"] });`),
    { [TYPE_CHECK]: 'with "[\\"check\\","' },
  );
  assert.deepEqual(
    found(`new Deno.Command(Deno.execPath(), { args: ["run", "-A", MAIN] });`),
    { [MAIN]: "with Deno.Command and main.ts" },
  );
  assert.deepEqual(found(`// spawnHttpServer() and redis-server, as the comment says`), {});
  assert.deepEqual(found(`import { spawnHttpServer } from "./_server_process.ts";`), {});
});
