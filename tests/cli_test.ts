// Command-line flags: parseCommand() on its own, then main.ts as a process for the exit codes.
import assert from "node:assert/strict";
import { commandsHelp } from "../lib/commands/table.ts";
import { type Command, parseCommand, usage as usageText } from "../lib/host/cli.ts";
import { TOKEN_ENV } from "../lib/settings/table.ts";
import { isLoopbackHost, MAX_FLAG_VALUE } from "../lib/settings/values.ts";
import { resolveSettings } from "../lib/settings/rules.ts";
import { serverFolders } from "../lib/discovery/server_dir.ts";
import { readLines, withHangGuard } from "./_server_process.ts";

/** The settings a server has when nothing is said. */
const DEFAULTS = resolveSettings({});

const REPO = new URL("../", import.meta.url);
const REPO_PATH = decodeURIComponent(REPO.pathname);

const NUMERIC_FLAGS = [
  ["--max-message-bytes", "maxMessageBytes"],
  ["--page-size", "pageSize"],
  ["--tool-timeout", "toolTimeoutMs"],
  ["--shutdown-grace", "shutdownGraceMs"],
  ["--max-output-bytes", "maxOutputBytes"],
  ["--max-concurrency", "maxConcurrency"],
  ["--max-programs", "maxPrograms"],
] as const;

function usageError(message: string): Command {
  return { kind: "usage-error", message };
}

/** The usage error for a numeric flag given `raw`. */
function badNumber(flag: string, raw: string): Command {
  return usageError(`Invalid value for ${flag}: "${raw}" is not an integer from 1 to 2147483647`);
}

const USAGE = usageText("");

Deno.test("MAX_FLAG_VALUE is setTimeout's limit, 2^31 - 1", () => {
  assert.strictEqual(MAX_FLAG_VALUE, 2 ** 31 - 1);
  assert.strictEqual(MAX_FLAG_VALUE, 2147483647);
});

Deno.test("parseCommand() gives no settings for no arguments; resolveSettings() applies the defaults once", () => {
  assert.deepStrictEqual(parseCommand([]), { kind: "serve", options: {} });
  assert.deepStrictEqual(resolveSettings({}), {
    maxResourceBytes: 8 * 1024 * 1024,
    maxMessageBytes: 4 * 1024 * 1024,
    pageSize: 100,
    toolTimeoutMs: 60_000,
    jobAfterMs: 25_000,
    jobWaitMs: 45_000,
    shutdownGraceMs: 5_000,
    maxConcurrency: 64,
    maxOutputBytes: 16 * 1024 * 1024,
    maxPrograms: 64,
    passEnv: [],
    allowOutsideSymlinks: false,
    allowedHosts: [],
    logFormat: "text",
    maxConnections: 1_000,
    idleTimeoutMs: 30_000,
    bodyTimeoutMs: 30_000,
    maxUnsentBytes: 64 * 1024 * 1024,
    maxSessions: 10_000,
    maxBodyBytes: 8 * 1024 * 1024,
    codeTimeoutMs: 30_000,
    codeHeapMb: 64,
    codeMaxCalls: 100,
    codePool: 2,
    codeResultChars: 40_000,
  });
  // --max-body-bytes defaults to twice --max-message-bytes; what is given stays.
  assert.strictEqual(resolveSettings({ maxMessageBytes: 10 }).maxBodyBytes, 20);
  assert.strictEqual(resolveSettings({ maxMessageBytes: 10, maxBodyBytes: 15 }).maxBodyBytes, 15);
  assert.strictEqual(resolveSettings({ pageSize: 7 }).pageSize, 7);
});

Deno.test("parseCommand() takes the tools directory as given", () => {
  assert.deepStrictEqual(parseCommand(["--tools", "my/tools"]), {
    kind: "serve",
    options: { tools: "my/tools" },
  });
  assert.deepStrictEqual(parseCommand(["--tools=../other/"]), {
    kind: "serve",
    options: { tools: "../other/" },
  });
});

for (const [flag, key] of NUMERIC_FLAGS) {
  Deno.test(`parseCommand() parses ${flag} into ${key}, leaving the others at their defaults`, () => {
    assert.deepStrictEqual(parseCommand([flag, "1234"]), {
      kind: "serve",
      options: { [key]: 1234 },
    });
    assert.deepStrictEqual(parseCommand([`${flag}=1`]), {
      kind: "serve",
      options: { [key]: 1 },
    });
  });

  Deno.test(`parseCommand() takes ${flag} up to 2147483647, with or without leading zeros`, () => {
    assert.deepStrictEqual(parseCommand([flag, "2147483647"]), {
      kind: "serve",
      options: { [key]: 2147483647 },
    });
    assert.deepStrictEqual(parseCommand([flag, "007"]), {
      kind: "serve",
      options: { [key]: 7 },
    });
  });

  Deno.test(`parseCommand() rejects a ${flag} that is not an integer from 1 to 2147483647`, () => {
    for (
      const raw of [
        "abc",
        "0",
        "00",
        "1.5",
        "",
        " 5",
        "1e3",
        "0x10",
        "2147483648",
        "3000000000",
        "9007199254740992",
      ]
    ) {
      assert.deepStrictEqual(parseCommand([`${flag}=${raw}`]), badNumber(flag, raw), raw);
    }
    assert.deepStrictEqual(parseCommand([flag, "abc"]), badNumber(flag, "abc"));
    assert.deepStrictEqual(parseCommand([`${flag}=-5`]), badNumber(flag, "-5"));
  });
}

Deno.test("parseCommand() parses every numeric flag together", () => {
  assert.deepStrictEqual(
    parseCommand([
      "--tools",
      "t",
      "--max-message-bytes",
      "2048",
      "--page-size",
      "7",
      "--tool-timeout",
      "250",
      "--shutdown-grace",
      "10",
      "--max-output-bytes",
      "4096",
      "--max-concurrency",
      "3",
      "--max-programs",
      "5",
    ]),
    {
      kind: "serve",
      options: {
        tools: "t",
        maxMessageBytes: 2048,
        pageSize: 7,
        toolTimeoutMs: 250,
        shutdownGraceMs: 10,
        maxConcurrency: 3,
        maxOutputBytes: 4096,
        maxPrograms: 5,
      },
    },
  );
});

Deno.test("parseCommand() collects every --pass-env and takes --allow-outside-symlinks", () => {
  assert.deepStrictEqual(
    parseCommand(["--pass-env", "GITHUB_TOKEN", "--pass-env=_X1", "--allow-outside-symlinks"]),
    {
      kind: "serve",
      options: {
        passEnv: ["GITHUB_TOKEN", "_X1"],
        allowOutsideSymlinks: true,
      },
    },
  );
});

Deno.test("parseCommand() rejects a --pass-env that is not an environment variable name", () => {
  for (const name of ["", "A-B", "1X", "A=B", "PATH "]) {
    assert.deepStrictEqual(
      parseCommand(["--pass-env", "HOME", `--pass-env=${name}`]),
      usageError(`Invalid value for --pass-env: "${name}" is not an environment variable name`),
      name,
    );
  }
  assert.deepStrictEqual(
    parseCommand(["--allow-outside-symlinks=yes"]),
    usageError('Option "--allow-outside-symlinks" does not take a value'),
  );
});

Deno.test("parseCommand() reports the first invalid numeric flag in flag order", () => {
  assert.deepStrictEqual(
    parseCommand(["--shutdown-grace", "x", "--page-size", "0"]),
    badNumber("--page-size", "0"),
  );
});

Deno.test("parseCommand() rejects a --tool-timeout beyond setTimeout's limit", () => {
  // A longer timer would fire at once, so every call would time out immediately.
  assert.deepStrictEqual(
    parseCommand(["--tool-timeout", "3000000000"]),
    usageError(
      'Invalid value for --tool-timeout: "3000000000" is not an integer from 1 to 2147483647',
    ),
  );
});

Deno.test("parseCommand() rejects an empty tools directory", () => {
  assert.deepStrictEqual(parseCommand(["--tools", ""]), usageError("--tools needs a directory"));
  assert.deepStrictEqual(parseCommand(["--tools="]), usageError("--tools needs a directory"));
  // Checked before the numeric flags.
  assert.deepStrictEqual(
    parseCommand(["--page-size", "0", "--tools", ""]),
    usageError("--tools needs a directory"),
  );
});

Deno.test("parseCommand() takes --dir, --tools, --resources and --prompts together, each non-empty", () => {
  assert.deepStrictEqual(
    parseCommand(["--dir", "srv", "--tools", "t", "--resources", "r", "--prompts", "p"]),
    {
      kind: "serve",
      options: { dir: "srv", tools: "t", resources: "r", prompts: "p" },
    },
  );
  for (const flag of ["--dir", "--tools", "--resources", "--prompts"]) {
    assert.deepStrictEqual(parseCommand([flag, ""]), usageError(`${flag} needs a directory`));
  }
});

Deno.test("serverFolders() serves DIR/<kind> for --dir DIR, each optional, a named folder instead of one", () => {
  for (const [dir, prefix] of [["srv", "srv/"], ["srv/", "srv/"], ["/", "/"]]) {
    assert.deepStrictEqual(serverFolders({ dir }), {
      tools: { location: `${prefix}tools`, required: false },
      resources: { location: `${prefix}resources`, required: false },
      prompts: { location: `${prefix}prompts`, required: false },
      skills: { location: `${prefix}skills`, required: false },
      middleware: { location: `${prefix}middleware`, required: false },
      ui: { location: `${prefix}ui`, required: false },
    });
  }
  assert.deepStrictEqual(serverFolders({ dir: "srv", prompts: "mine" }).prompts, {
    location: "mine",
    required: true,
  });
  assert.deepStrictEqual(serverFolders({}), {
    tools: { location: "tools", required: false },
    resources: { location: "resources", required: false },
    prompts: { location: "prompts", required: false },
    skills: { location: "skills", required: false },
    middleware: { location: "middleware", required: false },
    ui: { location: "ui", required: false },
  });
  // A folder named alone is all that is served: `--tools DIR` keeps its old meaning, and
  // runs no middleware.
  assert.deepStrictEqual(serverFolders({ tools: "t" }), {
    tools: { location: "t", required: true },
  });
  const base = new URL("file:///opt/toolshed/");
  assert.equal(
    String(serverFolders({}, base).resources?.location),
    "file:///opt/toolshed/resources/",
  );
});

Deno.test("parseCommand() takes the argument after a flag as its value, even a negative one", () => {
  assert.deepStrictEqual(
    parseCommand(["--page-size", "-5"]),
    usageError('Invalid value for --page-size: "-5" is not an integer from 1 to 2147483647'),
  );
});

Deno.test("parseCommand() rejects a flag without its value", () => {
  assert.deepStrictEqual(
    parseCommand(["--tool-timeout"]),
    usageError('Option "--tool-timeout" needs a value'),
  );
  assert.deepStrictEqual(
    parseCommand(["--tools"]),
    usageError('Option "--tools" needs a value'),
  );
});

/** What main.ts says after a usage error, instead of the whole usage. */
const HELP_HINT = "(toolshed --help lists every option)";

Deno.test("parseCommand() rejects an unknown flag", () => {
  assert.deepStrictEqual(parseCommand(["--bogus"]), usageError('Unknown option "--bogus"'));
  assert.deepStrictEqual(parseCommand(["-x"]), usageError('Unknown option "-x"'));
  // A typo of a real flag is not taken for it, but named.
  assert.deepStrictEqual(
    parseCommand(["--page-sise", "5"]),
    usageError('Unknown option "--page-sise"; did you mean --page-size?'),
  );
});

Deno.test("parseCommand() rejects inherited property names as unknown flags", () => {
  for (const name of ["constructor", "hasOwnProperty", "toString", "__proto__", "valueOf"]) {
    const unknown = usageError(`Unknown option "--${name}"`);
    assert.deepStrictEqual(parseCommand([`--${name}`]), unknown);
    assert.deepStrictEqual(parseCommand([`--${name}`, "x"]), unknown);
    assert.deepStrictEqual(parseCommand([`--${name}=1`]), unknown);
    assert.deepStrictEqual(parseCommand(["--page-size", "5", `--${name}`, "x"]), unknown);
  }
});

Deno.test("parseCommand() rejects positional arguments", () => {
  assert.deepStrictEqual(
    parseCommand(["tools"]),
    usageError('Unexpected argument "tools": toolshed takes no positional arguments'),
  );
  assert.deepStrictEqual(
    parseCommand(["--page-size", "5", "extra"]),
    usageError('Unexpected argument "extra": toolshed takes no positional arguments'),
  );
});

Deno.test("parseCommand() recognises -h and --help", () => {
  assert.deepStrictEqual(parseCommand(["-h"]), { kind: "help" });
  assert.deepStrictEqual(parseCommand(["--help"]), { kind: "help" });
  // Help wins over a bad value, but not over an unknown flag.
  assert.deepStrictEqual(parseCommand(["--page-size", "0", "--help"]), { kind: "help" });
  assert.deepStrictEqual(
    parseCommand(["--help", "--bogus"]),
    usageError('Unknown option "--bogus"'),
  );
  assert.deepStrictEqual(
    parseCommand(["--help=yes"]),
    usageError('Option "--help" does not take a value'),
  );
});

Deno.test("parseCommand() recognises -V and --version", () => {
  assert.deepStrictEqual(parseCommand(["-V"]), { kind: "version" });
  assert.deepStrictEqual(parseCommand(["--version"]), { kind: "version" });
  assert.deepStrictEqual(parseCommand(["--version", "--tool-timeout", "nope"]), {
    kind: "version",
  });
});

Deno.test("usage() lists every flag with the defaults", () => {
  assert.ok(USAGE.startsWith("Usage: toolshed [serve] [options]\n"));
  for (
    const flag of [
      "--tools DIR",
      "--max-message-bytes N",
      "--page-size N",
      "--tool-timeout MS",
      "--shutdown-grace MS",
      "--max-output-bytes N",
      "--max-concurrency N",
      "--max-programs N",
      "--pass-env NAME",
      "--allow-outside-symlinks",
      "-h, --help",
      "-V, --version",
    ]
  ) {
    assert.ok(USAGE.includes(flag), flag);
  }
  assert.ok(USAGE.includes(`(default: ${DEFAULTS.maxMessageBytes})`));
  assert.ok(USAGE.includes(`(default: ${DEFAULTS.pageSize})`));
  assert.ok(USAGE.includes(`(default: ${DEFAULTS.toolTimeoutMs})`));
  assert.ok(USAGE.includes(`(default: ${DEFAULTS.shutdownGraceMs})`));
  assert.ok(USAGE.includes(`(default: ${DEFAULTS.maxOutputBytes})`));
  assert.ok(USAGE.includes(`(default: ${DEFAULTS.maxConcurrency})`));
  assert.match(
    USAGE,
    /--max-programs N +Executable-tool programs alive at once[^-]*\(default: 64\)/,
  );
});

interface Output {
  code: number;
  stdout: string;
  stderr: string;
}

async function runMain(args: string[], env: Record<string, string> = {}): Promise<Output> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts", ...args],
    cwd: REPO_PATH,
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code, stdout: text.decode(stdout), stderr: text.decode(stderr) };
}

Deno.test("main.ts exits 2 on a usage error, 1 on a bad tool, 0 for --version and --help; only stderr is written", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_cli_" });
  try {
    await Deno.writeTextFile(
      `${dir}/broken.ts`,
      'export default { description: "d", inputSchema: { type: "object" } };\n',
    );
    const { version } = JSON.parse(await Deno.readTextFile(new URL("deno.json", REPO)));
    assert.strictEqual(typeof version, "string");

    const [usage, emptyTools, badTool, versionRun, helpRun] = await Promise.all([
      runMain(["--page-size", "nope"]),
      runMain(["--tools", ""]),
      runMain(["--tools", dir]),
      runMain(["--version"]),
      runMain(["--help"]),
    ]);

    assert.strictEqual(usage.code, 2, usage.stderr);
    assert.strictEqual(usage.stdout, "");
    assert.strictEqual(
      usage.stderr,
      'toolshed: Invalid value for --page-size: "nope" is not an integer from 1 to 2147483647' +
        `\n${HELP_HINT}\n`,
    );

    assert.strictEqual(emptyTools.code, 2, emptyTools.stderr);
    assert.strictEqual(emptyTools.stdout, "");
    assert.strictEqual(emptyTools.stderr, `toolshed: --tools needs a directory\n${HELP_HINT}\n`);

    assert.strictEqual(badTool.code, 1, badTool.stderr);
    assert.strictEqual(badTool.stdout, "");
    assert.strictEqual(
      badTool.stderr,
      `toolshed: Cannot start: 1 problem(s) in the server directory\n` +
        `  Cannot load tool "${dir}/broken.ts": handler must be a function\n`,
    );

    assert.strictEqual(versionRun.code, 0, versionRun.stderr);
    assert.strictEqual(versionRun.stdout, "");
    assert.strictEqual(versionRun.stderr, `toolshed ${version}\n`);

    assert.strictEqual(helpRun.code, 0, helpRun.stderr);
    assert.strictEqual(helpRun.stdout, "");
    assert.strictEqual(helpRun.stderr, `${usageText(commandsHelp())}\n`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("parseCommand() reads --http as HOST:PORT, [IPV6]:PORT, :PORT or PORT", () => {
  const http = (value: string) => {
    const command = parseCommand(["--http", value, "--allow-unauthenticated"]);
    assert.strictEqual(command.kind, "serve", JSON.stringify(command));
    return (command as Extract<Command, { kind: "serve" }>).options.http;
  };
  assert.deepStrictEqual(http("127.0.0.1:8080"), { hostname: "127.0.0.1", port: 8080 });
  assert.deepStrictEqual(http("0.0.0.0:0"), { hostname: "0.0.0.0", port: 0 });
  assert.deepStrictEqual(http("LocalHost:65535"), { hostname: "localhost", port: 65535 });
  assert.deepStrictEqual(http("[::1]:3000"), { hostname: "::1", port: 3000 });
  assert.deepStrictEqual(http(":0"), { hostname: "127.0.0.1", port: 0 });
  assert.deepStrictEqual(http("8080"), { hostname: "127.0.0.1", port: 8080 });
  // Without --http, no key at all: stdio.
  assert.strictEqual("http" in (parseCommand([]) as { options: object }).options, false);
});

Deno.test("parseCommand() rejects an --http value that is not an address with a port", () => {
  for (
    const value of [
      "",
      "127.0.0.1",
      "localhost:",
      "::1:8080",
      "[::1]",
      "host:65536",
      "a/b:80",
      "x@y:80",
      ":-1",
    ]
  ) {
    assert.deepStrictEqual(
      parseCommand(["--http", value]),
      usageError(
        `Invalid value for --http: "${value}" is not HOST:PORT, [IPV6]:PORT, :PORT or PORT ` +
          "with a port from 0 to 65535",
      ),
      value,
    );
  }
});

Deno.test("parseCommand() takes --allow-host names with --http, in lower case", () => {
  assert.deepStrictEqual(
    parseCommand(["--http", ":0", "--allow-host", "MCP.Example.com", "--allow-host", "[::1]"]),
    {
      kind: "serve",
      options: {
        http: { hostname: "127.0.0.1", port: 0 },
        allowedHosts: ["mcp.example.com", "[::1]"],
      },
    },
  );
  assert.deepStrictEqual(
    parseCommand(["--allow-host", "example.com"]),
    usageError("--allow-host needs --http or --metrics"),
  );
  for (const name of ["example.com:80", "::1", "[::1]:80", "", "a/b"]) {
    assert.deepStrictEqual(
      parseCommand(["--http", ":0", "--allow-host", name]),
      usageError(
        `Invalid value for --allow-host: "${name}" is not a host name or an IP address ` +
          "(without a port)",
      ),
      name,
    );
  }
});

Deno.test("USAGE lists --http and --allow-host", () => {
  assert.ok(USAGE.includes("--http ADDRESS"));
  assert.ok(USAGE.includes("--allow-host NAME"));
});

Deno.test("parseCommand() takes --cors-origin origins with --http, as browsers write them", () => {
  assert.deepStrictEqual(
    parseCommand([
      "--http",
      ":0",
      "--cors-origin",
      "https://App.Example:443/",
      "--cors-origin",
      "http://localhost:5173",
      "--cors-origin",
      "https://app.example",
    ]),
    {
      kind: "serve",
      options: {
        http: { hostname: "127.0.0.1", port: 0 },
        corsOrigins: ["https://app.example", "http://localhost:5173"],
      },
    },
  );
  assert.deepStrictEqual(
    parseCommand(["--cors-origin", "https://app.example"]),
    usageError("--cors-origin needs --http"),
  );
  for (
    const value of [
      "app.example",
      "https://app.example/mcp",
      "https://app.example?x=1",
      "https://*.example",
      "null",
      "",
    ]
  ) {
    assert.deepStrictEqual(
      parseCommand(["--http", ":0", "--cors-origin", value]),
      usageError(
        `Invalid value for --cors-origin: "${value}" is not an origin, scheme://host[:port] ` +
          'with no path, or "*"',
      ),
      value,
    );
  }
});

Deno.test("parseCommand() takes --cors-origin * alone, and only with a token or --allow-unauthenticated", () => {
  assert.deepStrictEqual(
    parseCommand(["--http", ":0", "--cors-origin", "*", "--cors-origin", "https://app.example"]),
    usageError(
      'Invalid value for --cors-origin: "*" lets every origin, so list no other with it',
    ),
  );
  assert.deepStrictEqual(parseCommand(["--http", ":0", "--cors-origin", "*"]), {
    kind: "refused",
    message: 'Refusing --cors-origin "*" without a token: any web page the user opens could ' +
      "call this server's tools: set TOOLSHED_HTTP_TOKEN, list the origins that may call, or " +
      "pass --allow-unauthenticated if something in front of toolshed authenticates its clients",
  });
  const tokened = parseCommand(
    ["--http", ":0", "--cors-origin", "*"],
    (name) => name === TOKEN_ENV ? "t0ken" : undefined,
  );
  assert.strictEqual(tokened.kind, "serve");
  if (tokened.kind === "serve") assert.deepStrictEqual(tokened.options.corsOrigins, ["*"]);
  const unauthenticated = parseCommand([
    "--http",
    ":0",
    "--cors-origin",
    "*",
    "--allow-unauthenticated",
  ]);
  assert.strictEqual(unauthenticated.kind, "serve");
});

Deno.test("USAGE lists --cors-origin", () => {
  assert.ok(USAGE.includes("--cors-origin ORIGIN"));
});

Deno.test("main.ts --http --cors-origin answers a preflight of that origin, and refuses another's", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "main.ts",
      "--http",
      "127.0.0.1:0",
      "--cors-origin",
      "https://app.example",
      "--tools",
      "tests/fixtures/tools",
    ],
    cwd: REPO_PATH,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const lines = readLines(child.stderr);
  const seen: string[] = [];
  try {
    let url: string | undefined;
    for (let i = 0; i < 100 && url === undefined; i++) {
      const next = await withHangGuard(lines.next(), "the listening line");
      if (next.done) break;
      seen.push(next.value);
      url = next.value.match(/^toolshed: listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/)?.[1];
    }
    assert.ok(url, seen.join("\n"));
    const preflight = (origin: string) =>
      withHangGuard(
        fetch(url, {
          method: "OPTIONS",
          headers: { origin, "access-control-request-method": "POST" },
        }),
        "a preflight",
      );
    const allowed = await preflight("https://app.example");
    await allowed.body?.cancel();
    assert.strictEqual(allowed.status, 204);
    assert.strictEqual(
      allowed.headers.get("access-control-allow-origin"),
      "https://app.example",
    );
    const refused = await preflight("https://evil.example");
    await refused.body?.cancel();
    assert.strictEqual(refused.status, 403);
  } finally {
    child.kill("SIGTERM");
  }
  for await (const _ of lines) { /* drain */ }
  assert.strictEqual((await withHangGuard(child.status, "main.ts exiting")).code, 0);
});

Deno.test("main.ts exits 1 when it cannot listen on the --http address", async () => {
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const { port } = taken.addr as Deno.NetAddr;
    const run = await runMain(["--http", `127.0.0.1:${port}`, "--tools", "tests/fixtures/tools"]);
    assert.strictEqual(run.code, 1, run.stderr);
    assert.strictEqual(run.stdout, "");
    assert.match(
      run.stderr,
      new RegExp(`^toolshed: Cannot listen on "127.0.0.1" port ${port}: `, "m"),
    );
  } finally {
    taken.close();
  }
});

// ---------------------------------------------------------------------------------------
// The bearer token, the refusal to serve beyond loopback without one, --log-requests.

/** An environment holding only the token. */
const withToken = (token: string) => (name: string) => name === TOKEN_ENV ? token : undefined;

Deno.test("parseCommand() takes the bearer token from TOOLSHED_HTTP_TOKEN with --http only", () => {
  assert.strictEqual(TOKEN_ENV, "TOOLSHED_HTTP_TOKEN");
  assert.deepStrictEqual(parseCommand(["--http", ":0"], withToken("s3cr3t-t0ken_~+/=")), {
    kind: "serve",
    options: {
      http: { hostname: "127.0.0.1", port: 0 },
      bearerToken: "s3cr3t-t0ken_~+/=",
    },
  });
  // stdio has no use for it, and never reads it.
  assert.deepStrictEqual(parseCommand([], withToken("x")), {
    kind: "serve",
    options: {},
  });
});

Deno.test("parseCommand() refuses an empty token, or one that cannot travel as a bearer token", () => {
  for (
    const [token, what] of [["", "empty"], ["two words", "not a bearer token"], [
      "é",
      "not a bearer token",
    ]]
  ) {
    assert.deepStrictEqual(parseCommand(["--http", ":0"], withToken(token)), {
      kind: "refused",
      message: `Cannot serve --http: TOOLSHED_HTTP_TOKEN is ${what}: use letters, digits and ` +
        '"-._~+/", optionally ending in "="',
    }, token);
  }
});

Deno.test("parseCommand() refuses a non-loopback --http address without a token unless --allow-unauthenticated", () => {
  for (const address of ["0.0.0.0:8080", "[::]:8080", "192.168.1.10:80", "example.com:80"]) {
    const command = parseCommand(["--http", address]);
    assert.strictEqual(command.kind, "refused", address);
    assert.match(
      (command as { message: string }).message,
      /^Refusing to serve --http on ".+", which is not a loopback address, without a token: set TOOLSHED_HTTP_TOKEN, or pass --allow-unauthenticated if something in front of toolshed authenticates its clients$/,
    );
    assert.strictEqual(parseCommand(["--http", address], withToken("t")).kind, "serve", address);
  }
  assert.deepStrictEqual(parseCommand(["--http", "0.0.0.0:8080", "--allow-unauthenticated"]), {
    kind: "serve",
    options: {
      http: { hostname: "0.0.0.0", port: 8080 },
      allowUnauthenticated: true,
    },
  });
  for (const address of ["127.0.0.1:0", "127.8.9.10:0", "localhost:0", "[::1]:0", ":0", "0"]) {
    assert.strictEqual(parseCommand(["--http", address]).kind, "serve", address);
  }
});

Deno.test("isLoopbackHost() knows localhost, 127.0.0.0/8 and ::1, and nothing else", () => {
  for (const host of ["localhost", "127.0.0.1", "127.255.0.1", "::1"]) {
    assert.strictEqual(isLoopbackHost(host), true, host);
  }
  for (const host of ["0.0.0.0", "::", "10.0.0.1", "128.0.0.1", "localhost.example.com", "::2"]) {
    assert.strictEqual(isLoopbackHost(host), false, host);
  }
});

Deno.test("parseCommand() takes --log-requests, and it and --allow-unauthenticated need --http", () => {
  assert.deepStrictEqual(parseCommand(["--http", ":0", "--log-requests"]), {
    kind: "serve",
    options: {
      http: { hostname: "127.0.0.1", port: 0 },
      logRequests: true,
    },
  });
  assert.deepStrictEqual(
    parseCommand(["--log-requests"]),
    usageError("--log-requests needs --http"),
  );
  assert.deepStrictEqual(
    parseCommand(["--allow-unauthenticated"]),
    usageError("--allow-unauthenticated needs --http"),
  );
});

Deno.test("USAGE lists --allow-unauthenticated, --log-requests and the token's variable", () => {
  assert.ok(USAGE.includes("--allow-unauthenticated"));
  assert.ok(USAGE.includes("--log-requests"));
  assert.ok(USAGE.includes("TOOLSHED_HTTP_TOKEN"));
});

Deno.test("main.ts exits 2 with one line when asked to serve 0.0.0.0 without a token", async () => {
  const run = await runMain(["--http", "0.0.0.0:0", "--tools", "tests/fixtures/tools"], {
    [TOKEN_ENV]: "",
  });
  assert.strictEqual(run.code, 2, run.stderr);
  assert.strictEqual(run.stdout, "");
  assert.strictEqual(
    run.stderr,
    "toolshed: Cannot serve --http: TOOLSHED_HTTP_TOKEN is empty: use letters, digits and " +
      '"-._~+/", optionally ending in "="\n',
  );
  const unset = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts", "--http", "0.0.0.0:0", "--tools", "tests/fixtures/tools"],
    cwd: REPO_PATH,
    // Whatever the test's own environment holds, the token is not set here.
    env: Object.fromEntries(
      ["NO_COLOR", "HOME", "PATH", "DENO_DIR", "XDG_CACHE_HOME"].flatMap((name) => {
        const value = name === "NO_COLOR" ? "1" : Deno.env.get(name);
        return value === undefined ? [] : [[name, value]];
      }),
    ),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.strictEqual(unset.code, 2);
  assert.strictEqual(
    new TextDecoder().decode(unset.stderr),
    'toolshed: Refusing to serve --http on "0.0.0.0", which is not a loopback address, without ' +
      "a token: set TOOLSHED_HTTP_TOKEN, or pass --allow-unauthenticated if something in front " +
      "of toolshed authenticates its clients\n",
  );
});

Deno.test("parseCommand() reads the requestState keys of a rotation from the environment, and refuses short or orphaned ones", () => {
  const current = "c".repeat(32);
  const old = "o".repeat(40);
  const env = (values: Record<string, string>) => (name: string) => values[name];
  const options = (values: Record<string, string>) => {
    const command = parseCommand([], env(values));
    assert.equal(command.kind, "serve", JSON.stringify(command));
    return (command as { options: { stateKeys?: string[] } }).options;
  };
  // The current key first, then the previous ones: ServerConfig.stateKeys.
  assert.deepEqual(options({ TOOLSHED_STATE_KEY: current }).stateKeys, [current]);
  assert.deepEqual(
    options({
      TOOLSHED_STATE_KEY: current,
      TOOLSHED_STATE_KEY_PREVIOUS: ` ${old}, ${"p".repeat(32)},`,
    })
      .stateKeys,
    [current, old, "p".repeat(32)],
  );
  const refusal = (values: Record<string, string>) => {
    const command = parseCommand([], env(values));
    assert.equal(command.kind, "refused", JSON.stringify(command));
    return (command as { message: string }).message;
  };
  assert.match(refusal({ TOOLSHED_STATE_KEY: "short" }), /must be at least 32 characters/);
  assert.match(
    refusal({ TOOLSHED_STATE_KEY_PREVIOUS: old }),
    /TOOLSHED_STATE_KEY_PREVIOUS is set but TOOLSHED_STATE_KEY is not/,
  );
  assert.match(
    refusal({ TOOLSHED_STATE_KEY: current, TOOLSHED_STATE_KEY_PREVIOUS: `${old},short` }),
    /key 2 of TOOLSHED_STATE_KEY_PREVIOUS has fewer than 32 characters/,
  );
});

Deno.test("parseCommand() takes --redis as a redis:// or rediss:// URL only", () => {
  const command = parseCommand(["--redis", "redis://127.0.0.1:6379"]);
  assert.equal(command.kind, "serve");
  assert.equal(
    (command as { options: { redis?: string } }).options.redis,
    "redis://127.0.0.1:6379",
  );
  assert.deepEqual(parseCommand(["--redis", "127.0.0.1:6379"]), {
    kind: "usage-error",
    message: 'Invalid value for --redis: "127.0.0.1:6379" is not a redis:// or rediss:// URL',
  });
});

Deno.test("parseCommand() takes --instance with --http only, as 1 to 63 letters, digits, - or _", () => {
  const command = parseCommand(["--http", "8080", "--instance", "eu-1"]);
  assert.equal(command.kind, "serve");
  assert.equal((command as { options: { instanceName?: string } }).options.instanceName, "eu-1");
  assert.deepEqual(parseCommand(["--instance", "eu-1"]), {
    kind: "usage-error",
    message: "--instance needs --http",
  });
  assert.equal(parseCommand(["--http", "8080", "--instance", "eu.1"]).kind, "usage-error");
  // A Kubernetes Deployment's pod names (a DNS label: at most 63) fit.
  const pod = "toolshed-5d8f7c9b6-x7k2p".padEnd(63, "q");
  assert.equal(parseCommand(["--http", "8080", "--instance", pod]).kind, "serve");
  assert.deepEqual(parseCommand(["--http", "8080", "--instance", `${pod}q`]), {
    kind: "usage-error",
    message: `Invalid value for --instance: "${pod}q" is not 1 to 63 letters, digits, "-" or "_"`,
  });
});

Deno.test("parseCommand() reads the introspection client only with --auth-issuer", () => {
  const env = (name: string) => name === "TOOLSHED_INTROSPECTION_CLIENT_ID" ? "client" : undefined;
  assert.equal(parseCommand(["--http", "8080"], env).kind, "serve");
  assert.equal(
    parseCommand(["--http", "8080", "--auth-issuer", "https://issuer.example"], env).kind,
    "usage-error",
  );
});
