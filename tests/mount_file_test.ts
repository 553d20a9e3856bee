// Mount files (adr/0071 §1–2, lib/mounts/mount_file.ts): one server entry of a client's
// .mcp.json, copied as Claude Code, Cursor and VS Code document it, `${NAME}` expanded from the
// environment, secrets refused unless they come from it, and the "toolshed" block checked with
// the checkers local tools use. Pure: no process, no network.
import { deepStrictEqual, match, ok, strictEqual, throws } from "node:assert/strict";
import {
  correctionFor,
  type MountFile,
  parseMountFile,
  selected,
  servedName,
  unmatchedNames,
} from "../lib/mounts/mount_file.ts";
import { MAX_TIMER_MS } from "../lib/util/json.ts";
import { ENDPOINT_ROUTES } from "../lib/primitives/toolsets.ts";

const ENV: Record<string, string> = {
  API_KEY: "k-123",
  API_TOKEN: "t-456",
  CONTEXT7_API_KEY: "c7-789",
  GITHUB_TOKEN: "ghp_abc",
  HOST: "mcp.example.com",
  EMPTY: "",
  EXCHANGE_SECRET: "s3cret",
};
const env = (name: string) => Object.hasOwn(ENV, name) ? ENV[name] : undefined;

function mount(entry: unknown, stem = "github"): MountFile {
  return parseMountFile(JSON.stringify(entry), stem, `tools/${stem}.mcp.json`, env);
}

/** The message parseMountFile throws for `entry`, checked to match every pattern. */
function refusal(entry: unknown, ...patterns: RegExp[]): string {
  let message: string | undefined;
  try {
    mount(entry);
  } catch (error) {
    message = (error as Error).message;
  }
  ok(message !== undefined, `expected a refusal of ${JSON.stringify(entry)}`);
  for (const pattern of patterns) match(message, pattern);
  return message;
}

const STDIO = { command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] };

// ---- entries as the clients document them ----

Deno.test("parseMountFile() reads Claude Code's stdio entry with ${VAR:-default} in env", () => {
  // code.claude.com/docs/en/mcp: "env": {"DEBUG": "${DEBUG:-false}"}
  const file = mount({
    command: "node",
    args: ["./my-mcp-server.js"],
    env: { DEBUG: "${DEBUG:-false}" },
  });
  deepStrictEqual(file.transport, {
    kind: "stdio",
    command: "node",
    args: ["./my-mcp-server.js"],
    env: { DEBUG: "false" },
  });
  strictEqual(file.stem, "github");
  strictEqual(file.file, "tools/github.mcp.json");
});

Deno.test("parseMountFile() reads Claude Code's http entry with an X-API-Key header from the environment", () => {
  const file = mount({
    type: "http",
    url: "https://api.example.com/mcp",
    headers: { "X-API-Key": "${API_KEY}" },
  });
  deepStrictEqual(file.transport, {
    kind: "http",
    url: "https://api.example.com/mcp",
    headers: { "X-API-Key": "k-123" },
    shownUrl: "https://api.example.com/mcp",
  });
});

Deno.test('parseMountFile() reads `claude mcp serve`\'s entry with "type": "stdio" and an empty env', () => {
  const file = mount({ type: "stdio", command: "claude", args: ["mcp", "serve"], env: {} });
  deepStrictEqual(file.transport, {
    kind: "stdio",
    command: "claude",
    args: ["mcp", "serve"],
    env: {},
  });
});

Deno.test("parseMountFile() reads Cursor's entries: npx without env, url without type, ${env:NAME}", () => {
  // cursor.com/docs/mcp: a url without "type" is remote; Cursor writes ${env:NAME}
  deepStrictEqual(mount({ command: "npx", args: ["-y", "@playwright/mcp@latest"] }).transport, {
    kind: "stdio",
    command: "npx",
    args: ["-y", "@playwright/mcp@latest"],
    env: {},
  });
  const remote = mount({
    url: "https://mcp.context7.com/mcp",
    headers: { CONTEXT7_API_KEY: "${env:CONTEXT7_API_KEY}" },
  });
  deepStrictEqual(remote.transport, {
    kind: "http",
    url: "https://mcp.context7.com/mcp",
    headers: { CONTEXT7_API_KEY: "c7-789" },
    shownUrl: "https://mcp.context7.com/mcp",
  });
});

Deno.test("parseMountFile() refuses Cursor's documented example, a literal API_KEY, naming the key", () => {
  // cursor.com/docs/mcp: "env": {"API_KEY": "value"}
  const message = refusal(
    { command: "npx", args: ["-y", "mcp-server"], env: { API_KEY: "value" } },
    /env "API_KEY"/,
    /\$\{API_KEY\}/,
    /environment/,
  );
  ok(!message.includes('value"'), "the literal is not echoed");
});

Deno.test("parseMountFile() reads VS Code's entries: type stdio, and type http", () => {
  // code.visualstudio.com/docs/copilot/reference/mcp-configuration
  const memory = mount({
    type: "stdio",
    command: "npx",
    args: ["-y", "@modelcontextprotocol/server-memory"],
  });
  strictEqual(memory.transport.kind, "stdio");
  const github = mount({ type: "http", url: "https://api.githubcopilot.com/mcp/" });
  strictEqual(github.transport.kind, "http");
  strictEqual((github.transport as { url: string }).url, "https://api.githubcopilot.com/mcp/");
});

Deno.test("parseMountFile() accepts the other spellings of Streamable HTTP", () => {
  for (const type of ["streamable-http", "streamableHttp"]) {
    strictEqual(mount({ type, url: "https://example.com/mcp" }).transport.kind, "http");
  }
});

Deno.test("parseMountFile() refuses a whole client file, naming the entries to copy", () => {
  refusal(
    { mcpServers: { github: STDIO, slack: STDIO } },
    /"mcpServers"/,
    /"github", "slack"/,
    /copy the object under "github"/,
    /github\.mcp\.json/,
  );
  // VS Code's file, one entry and its inputs: refused the same way
  refusal(
    { inputs: [], servers: { memory: { type: "stdio", command: "npx" } } },
    /"servers"/,
    /"memory"/,
    /memory\.mcp\.json/,
  );
});

Deno.test("parseMountFile() refuses text that is not one JSON object", () => {
  throws(() => parseMountFile("// a comment\n{}", "a", "tools/a.mcp.json", env), /not JSON/);
  throws(() => parseMountFile("[]", "a", "tools/a.mcp.json", env), /one server entry/);
});

Deno.test('parseMountFile() refuses "type": "sse" saying the transport is gone and what to give', () => {
  // Claude Code's documented SSE entry
  refusal(
    {
      type: "sse",
      url: "https://api.example.com/mcp/sse",
      headers: { Authorization: "Bearer ${API_TOKEN}" },
    },
    /"sse"/,
    /2024/,
    /Streamable HTTP URL/,
  );
});

Deno.test("parseMountFile() refuses an unknown type, both command and url, and neither", () => {
  refusal({ type: "htp", url: "https://x.example/mcp" }, /type "htp"/, /did you mean "http"\?/);
  refusal({ type: "websocket", url: "wss://x.example/mcp" }, /type "websocket"/);
  refusal({ command: "npx", url: "https://x.example/mcp" }, /both "command" and "url"/);
  refusal({ args: ["x"] }, /needs "command".*or "url"/);
  refusal({ type: "http", command: "npx" }, /type "http" needs "url"/);
  refusal({ type: "stdio", url: "https://x.example/mcp" }, /type "stdio" needs "command"/);
});

Deno.test("parseMountFile() refuses an empty command and args that are not strings", () => {
  refusal({ command: "" }, /command must be a non-empty string/);
  refusal({ command: "npx", args: "-y server" }, /args must be a list of strings/);
  refusal({ command: "npx", args: ["-y", 3] }, /args must be a list of strings/);
  refusal({ command: "npx", env: { PORT: 8080 } }, /env "PORT" must be a string/);
  refusal({ command: "npx", env: ["A=1"] }, /env must be an object/);
  refusal({ command: "npx", cwd: 3 }, /cwd must be a non-empty string/);
});

// ---- client-only keys ----

Deno.test("parseMountFile() ignores keys only a client's screen or approval step reads", () => {
  const file = mount({
    ...STDIO,
    disabled: false,
    autoApprove: ["echo"],
    alwaysAllow: ["echo"],
    description: "The everything server",
    icon: "🧪",
    dev: { watch: "src/**/*.ts" },
  });
  deepStrictEqual(file.transport, { kind: "stdio", ...STDIO, env: {} });
});

Deno.test("parseMountFile() refuses client settings toolshed would not honour, saying what instead", () => {
  refusal({ ...STDIO, disabled: true }, /"disabled": true/);
  refusal({ ...STDIO, envFile: "${workspaceFolder}/.env" }, /"envFile"/, /own environment/);
  refusal({ ...STDIO, timeout: 60 }, /"timeout"/, /timeoutMs/);
  refusal(
    { type: "http", url: "https://x.example/mcp", oauth: { clientId: "a" } },
    /"oauth"/,
    /toolshed.*auth/,
  );
  refusal(
    { type: "http", url: "https://x.example/mcp", headersHelper: "./h.sh" },
    /"headersHelper"/,
  );
  refusal({ ...STDIO, includeTools: ["a"] }, /"includeTools"/, /"include"/);
  refusal({ ...STDIO, excludeTools: ["a"] }, /"excludeTools"/, /"exclude"/);
  refusal({ ...STDIO, sandboxEnabled: true }, /"sandboxEnabled"/, /does not sandbox/);
});

Deno.test("parseMountFile() refuses an unknown key with did-you-mean, and a key of the other kind", () => {
  refusal({ ...STDIO, evn: { A: "1" } }, /"evn"/, /did you mean "env"\?/);
  refusal({ url: "https://x.example/mcp", header: {} }, /"header"/, /did you mean "headers"\?/);
  refusal({ url: "https://x.example/mcp", env: {} }, /"env" does not belong in a remote entry/);
  refusal({ ...STDIO, headers: {} }, /"headers" does not belong in a stdio entry/);
});

// ---- ${NAME} expansion ----

Deno.test("parseMountFile() expands ${NAME} in command, args, env, cwd, url and headers", () => {
  const stdio = mount({
    command: "${EMPTY:-npx}",
    args: ["--host=${HOST}", "${API_KEY}"],
    env: { TARGET: "https://${HOST}/v1" },
    cwd: "/srv/${HOST}",
  });
  deepStrictEqual(stdio.transport, {
    kind: "stdio",
    command: "npx",
    args: ["--host=mcp.example.com", "k-123"],
    env: { TARGET: "https://mcp.example.com/v1" },
    cwd: "/srv/mcp.example.com",
  });
  const http = mount({
    url: "https://${HOST}/mcp",
    headers: { Authorization: "Bearer ${GITHUB_TOKEN}", "X-Team": "${TEAM:-core}" },
  });
  deepStrictEqual(http.transport, {
    kind: "http",
    url: "https://mcp.example.com/mcp",
    headers: { Authorization: "Bearer ghp_abc", "X-Team": "core" },
    shownUrl: "https://mcp.example.com/mcp",
  });
});

Deno.test("parseMountFile() takes the default when the variable is unset or empty, the value otherwise", () => {
  const args = (arg: string) =>
    (mount({ command: "x", args: [arg] }).transport as { args: string[] }).args[0];
  strictEqual(args("${UNSET:-fallback}"), "fallback");
  strictEqual(args("${EMPTY:-fallback}"), "fallback");
  strictEqual(args("${HOST:-fallback}"), "mcp.example.com");
  strictEqual(args("${EMPTY}"), "");
  strictEqual(args("${UNSET:-}"), "");
});

Deno.test("parseMountFile() refuses a missing variable without a default, naming it and where", () => {
  refusal(
    { command: "x", env: { TOKEN: "${MISSING_TOKEN}" } },
    /env "TOKEN"/,
    /"MISSING_TOKEN"/,
    /not set/,
  );
  refusal({ command: "x", args: ["a", "${NOPE}"] }, /args\[1\]/, /"NOPE"/);
  refusal({ url: "https://${NO_HOST}/mcp" }, /url/, /"NO_HOST"/);
  refusal(
    { url: "https://x.example/mcp", headers: { "X-Org": "${NO_ORG}" } },
    /header "X-Org"/,
    /"NO_ORG"/,
  );
  refusal({ command: "${NO_BIN}" }, /command/, /"NO_BIN"/);
  refusal({ command: "x", cwd: "${NO_DIR}" }, /cwd/, /"NO_DIR"/);
});

Deno.test("parseMountFile() keeps $$ { as a literal ${ and any other $ as itself", () => {
  const args =
    (mount({ command: "x", args: ["$${HOST}", "$HOST", "a$b", "cost: 5$"] }).transport as {
      args: string[];
    }).args;
  deepStrictEqual(args, ["${HOST}", "$HOST", "a$b", "cost: 5$"]);
});

Deno.test("parseMountFile() refuses malformed references, VS Code's inputs and editor variables", () => {
  refusal({ command: "x", args: ["${HOST"] }, /args\[0\]/, /without its closing/);
  refusal({ command: "x", args: ["${}"] }, /"\$\{\}"/, /not a variable/);
  refusal({ command: "x", args: ["${1ABC}"] }, /"\$\{1ABC\}"/, /not a variable/);
  refusal({ command: "x", args: ["${A:-${B}}"] }, /nests/);
  refusal(
    { command: "x", env: { API_KEY: "${input:api-key}" } },
    /"\$\{input:api-key\}"/,
    /prompt/,
  );
  refusal(
    { command: "x", args: ["${workspaceFolder}/server.js"] },
    /"\$\{workspaceFolder\}"/,
    /editor/,
  );
  refusal({ command: "x", args: ["${config:editor.tabSize}"] }, /"\$\{config:editor.tabSize\}"/);
});

// ---- secrets ----

Deno.test("parseMountFile() refuses a literal value for every secret-like env key, naming it", () => {
  for (
    const key of [
      "GITHUB_TOKEN",
      "API_KEY",
      "CLIENT_SECRET",
      "DB_PASSWORD",
      "SMTP_PASSWD",
      "BASIC_AUTH",
      "GOOGLE_CREDENTIALS",
      "SESSION_COOKIE",
      "session_id",
    ]
  ) {
    refusal({ command: "x", env: { [key]: "literal-value" } }, new RegExp(`env "${key}"`), /"\$\{/);
  }
});

Deno.test("parseMountFile() allows a secret-like key from ${VAR}, in part, or empty; other keys literal", () => {
  const file = mount({
    command: "x",
    env: {
      GITHUB_TOKEN: "${GITHUB_TOKEN}",
      API_KEY: "prefix-${API_KEY}",
      AUTH_MODE: "",
      LOG_LEVEL: "debug",
    },
  });
  deepStrictEqual((file.transport as { env: Record<string, string> }).env, {
    GITHUB_TOKEN: "ghp_abc",
    API_KEY: "prefix-k-123",
    AUTH_MODE: "",
    LOG_LEVEL: "debug",
  });
});

Deno.test("parseMountFile() refuses a non-empty default where a secret goes, naming the variable", () => {
  refusal(
    { command: "x", env: { API_KEY: "${UNSET_KEY:-sk-live-1}" } },
    /env "API_KEY"/,
    /"\$\{UNSET_KEY\}"/,
  );
  // …even when the variable is set: the default still sits in the directory
  refusal({ command: "x", env: { API_KEY: "${API_KEY:-sk-live-1}" } }, /env "API_KEY"/, /default/);
});

Deno.test("parseMountFile() refuses an Authorization header not built from ${…}", () => {
  refusal(
    { url: "https://x.example/mcp", headers: { Authorization: "Bearer ghp_literal" } },
    /header "Authorization"/,
    /\$\{AUTHORIZATION\}/,
  );
  refusal(
    { url: "https://x.example/mcp", headers: { authorization: "Basic dXNlcjpwYXNz" } },
    /header "authorization"/,
  );
  refusal({ url: "https://x.example/mcp", headers: { "X-Api-Key": "abc" } }, /header "X-Api-Key"/);
  refusal({ url: "https://x.example/mcp", headers: { Cookie: "sid=abc" } }, /header "Cookie"/);
});

Deno.test("parseMountFile() refuses --name=literal arguments named like a secret", () => {
  const message = refusal(
    { command: "x", args: ["--api-key=sk-123"] },
    /args\[0\]/,
    /"--api-key=…"/,
    /--api-key=\$\{NAME\}/,
  );
  ok(!message.includes("sk-123"), "the literal is not echoed");
  refusal({ command: "x", args: ["--token=${UNSET:-abc}"] }, /args\[0\]/, /default/);
  const file = mount({
    command: "x",
    args: ["--api-key=${API_KEY}", "--port=8080", "--key-count"],
  });
  deepStrictEqual((file.transport as { args: string[] }).args, [
    "--api-key=k-123",
    "--port=8080",
    "--key-count",
  ]);
});

Deno.test("parseMountFile() refuses a URL with userinfo, even from variables", () => {
  refusal({ url: "https://user:pass@x.example/mcp" }, /user name or password/, /headers/);
  refusal({ url: "https://${API_TOKEN}@x.example/mcp" }, /user name or password/);
});

Deno.test("parseMountFile() refuses a literal secret in the URL's query, and shows URLs without it", () => {
  refusal(
    { url: "https://x.example/mcp?api_key=abc123" },
    /query parameter "api_key"/,
    /api_key=\$\{NAME\}/,
  );
  refusal({ url: "https://x.example/mcp?region=eu&token=abc" }, /query parameter "token"/);
  refusal({ url: "https://x.example/mcp?access%5Ftoken=abc" }, /query parameter "access_token"/);
  const file = mount({ url: "https://x.example/mcp?region=eu&api_key=${API_KEY}" });
  const transport = file.transport as { url: string; shownUrl: string };
  strictEqual(transport.url, "https://x.example/mcp?region=eu&api_key=k-123");
  strictEqual(transport.shownUrl, "https://x.example/mcp");
});

Deno.test("parseMountFile() never echoes an expanded value in a refusal", () => {
  // the header's value holds a line break once expanded: the message names the header only
  const withBreak = (name: string) => name === "BROKEN" ? "abc\r\nX-Evil: 1" : env(name);
  let message = "";
  try {
    parseMountFile(
      JSON.stringify({ url: "https://x.example/mcp", headers: { "X-Org": "${BROKEN}" } }),
      "a",
      "tools/a.mcp.json",
      withBreak,
    );
  } catch (error) {
    message = (error as Error).message;
  }
  match(message, /header "X-Org" holds a line break/);
  ok(!message.includes("X-Evil"));
});

// ---- URLs ----

Deno.test("parseMountFile() allows plain http only to this machine, saying why elsewhere", () => {
  for (
    const url of [
      "http://localhost:3001/mcp",
      "http://127.0.0.1:3001/mcp",
      "http://[::1]:3001/mcp",
      "http://api.localhost/mcp",
    ]
  ) {
    strictEqual(mount({ url }).transport.kind, "http", url);
  }
  refusal(
    { url: "http://mcp.example.com/mcp" },
    /plain HTTP to "mcp.example.com"/,
    /use https/,
    /readable and changeable/,
  );
  refusal({ url: "http://10.0.0.5/mcp" }, /plain HTTP to "10.0.0.5"/);
});

Deno.test("parseMountFile() refuses a URL that is not one, and schemes but http and https", () => {
  refusal({ url: "not a url" }, /url "not a url" is not a URL/);
  refusal({ url: "wss://x.example/mcp" }, /scheme "wss"/);
  refusal({ url: "file:///tmp/mcp" }, /scheme "file"/);
});

Deno.test("parseMountFile() refuses headers the transport owns, bad names and two spellings of one", () => {
  for (
    const name of [
      "Mcp-Session-Id",
      "MCP-Protocol-Version",
      "Content-Type",
      "accept",
      "Host",
      "Mcp-Param-Region",
      "Mcp-Method",
    ]
  ) {
    refusal(
      { url: "https://x.example/mcp", headers: { [name]: "v" } },
      new RegExp(`header "${name}" is set by toolshed`),
    );
  }
  refusal(
    { url: "https://x.example/mcp", headers: { "X Team": "v" } },
    /"X Team", which is not a header name/,
  );
  refusal(
    { url: "https://x.example/mcp", headers: { "X-Team": "a", "x-team": "b" } },
    /both "X-Team" and "x-team"/,
  );
  refusal(
    { url: "https://x.example/mcp", headers: { "X-Team": 3 } },
    /header "X-Team" must be a string/,
  );
});

// ---- the stem ----

Deno.test("parseMountFile() refuses a stem that cannot be a toolset, a route, or toolshed's own", () => {
  throws(
    () => parseMountFile(JSON.stringify(STDIO), "git hub", "tools/git hub.mcp.json", env),
    /"git hub" cannot be a namespace/,
  );
  throws(() => parseMountFile(JSON.stringify(STDIO), "_private", "x", env), /"_private"/);
  const [route] = ENDPOINT_ROUTES.keys();
  throws(
    () => parseMountFile(JSON.stringify(STDIO), route, "x", env),
    new RegExp(`"${route}" is the route`),
  );
  throws(
    () => parseMountFile(JSON.stringify(STDIO), "toolshed", "x", env),
    /"toolshed" is toolshed's own/,
  );
});

// ---- the "toolshed" block ----

Deno.test("parseMountFile() fills the block's defaults when there is none", () => {
  deepStrictEqual(mount(STDIO).block, {
    include: undefined,
    exclude: [],
    rename: {},
    defaults: {},
    tools: {},
    auth: { kind: "none" },
    pins: true,
  });
});

Deno.test("parseMountFile() reads a full block: globs, rename, defaults, per-tool corrections", () => {
  const file = mount({
    ...STDIO,
    toolshed: {
      include: ["*_issue", "get_*", "echo"],
      exclude: ["delete_*"],
      rename: { create_issue: "new_issue" },
      scopes: ["repo:read"],
      rateLimit: "60/min",
      timeoutMs: 30_000,
      annotations: { openWorldHint: true },
      tools: {
        create_issue: {
          title: "New issue",
          description: "Opens an issue in a repository.",
          annotations: { readOnlyHint: false, destructiveHint: false },
          scopes: ["repo:write", "repo:write"],
          rateLimit: "5/min burst 2",
          task: "optional",
          jobAfterMs: 0,
          jobReuseMs: 60_000,
        },
      },
      pins: false,
    },
  });
  const { block } = file;
  deepStrictEqual(block.include, ["*_issue", "get_*", "echo"]);
  deepStrictEqual(block.exclude, ["delete_*"]);
  deepStrictEqual(block.rename, { create_issue: "new_issue" });
  deepStrictEqual(block.defaults, {
    annotations: { openWorldHint: true },
    scopes: ["repo:read"],
    rateLimit: "60/min",
    timeoutMs: 30_000,
  });
  deepStrictEqual(block.tools.create_issue.scopes, ["repo:write"]);
  strictEqual(block.pins, false);
  deepStrictEqual(correctionFor(block, "create_issue"), {
    title: "New issue",
    description: "Opens an issue in a repository.",
    annotations: { openWorldHint: true, readOnlyHint: false, destructiveHint: false },
    scopes: ["repo:write"],
    rateLimit: "5/min burst 2",
    timeoutMs: 30_000,
    task: "optional",
    jobAfterMs: 0,
    jobReuseMs: 60_000,
  });
  deepStrictEqual(correctionFor(block, "get_me"), block.defaults);
  strictEqual(servedName(file, "create_issue"), "github_new_issue");
  strictEqual(servedName(file, "get_me"), "github_get_me");
  ok(selected(block, "close_issue"));
  ok(selected(block, "get_me"));
  ok(selected(block, "echo"));
  ok(!selected(block, "echo2"), "a name without a wildcard is matched whole");
  ok(!selected(block, "delete_issue"), "exclude after include");
  ok(!selected(block, "list_repos"), "not included");
});

/** Whether `globs` as a block's include select `name` (an empty list selects nothing). */
const namesMatch = (globs: string[], name: string) =>
  selected({ ...mount(STDIO).block, include: globs }, name);

Deno.test("an include glob reads * as any run and ? as one character, everything else literally", () => {
  ok(namesMatch(["*"], ""));
  ok(namesMatch(["a?c"], "abc"));
  ok(!namesMatch(["a?c"], "ac"));
  ok(namesMatch(["a.b"], "a.b"));
  ok(!namesMatch(["a.b"], "axb"), "a dot is a dot");
  ok(namesMatch(["(x)+[y]"], "(x)+[y]"), "regular expression characters are literal");
  ok(namesMatch(["*/*"], "files/read"));
  ok(!namesMatch([], "a"));
});

Deno.test("parseMountFile() refuses unknown block keys with did-you-mean, and a shared title", () => {
  refusal(
    { ...STDIO, toolshed: { exlude: ["a"] } },
    /toolshed has "exlude"/,
    /did you mean "exclude"\?/,
  );
  refusal({ ...STDIO, toolshed: { ratelimit: "5/s" } }, /did you mean "rateLimit"\?/);
  refusal(
    { ...STDIO, toolshed: { tools: { a: { timeout: 5 } } } },
    /toolshed.tools "a" has "timeout"/,
    /did you mean "timeoutMs"\?/,
  );
  refusal({ ...STDIO, toolshed: { description: "x" } }, /every tool the same description/);
  refusal({ ...STDIO, toolshed: [] }, /"toolshed" must be an object/);
});

Deno.test("parseMountFile() checks each field with the checkers local tools use", () => {
  refusal({ ...STDIO, toolshed: { scopes: "repo" } }, /toolshed: scopes must be a list/);
  refusal({ ...STDIO, toolshed: { scopes: ["offline_access"] } }, /offline_access/);
  refusal(
    { ...STDIO, toolshed: { rateLimit: "6/fortnight" } },
    /toolshed: rateLimit "6\/fortnight" has the period "fortnight"/,
  );
  refusal({ ...STDIO, toolshed: { timeoutMs: 0 } }, /timeoutMs must be an integer from 1/);
  refusal(
    { ...STDIO, toolshed: { timeoutMs: MAX_TIMER_MS + 1 } },
    new RegExp(`to ${MAX_TIMER_MS}`),
  );
  refusal({ ...STDIO, toolshed: { jobAfterMs: -1 } }, /jobAfterMs must be an integer from 0/);
  refusal({ ...STDIO, toolshed: { task: "always" } }, /task must be "optional" or "required"/);
  refusal(
    { ...STDIO, toolshed: { annotations: { readOnlyHint: "yes" } } },
    /annotations are invalid/,
  );
  refusal(
    { ...STDIO, toolshed: { tools: { a: { description: "" } } } },
    /toolshed.tools "a": description must be a non-empty string/,
  );
  refusal(
    { ...STDIO, toolshed: { tools: { a: { title: 3 } } } },
    /toolshed.tools "a": title must be/,
  );
  refusal(
    { ...STDIO, toolshed: { tools: { a: "read-only" } } },
    /toolshed.tools "a" must be an object/,
  );
  refusal({ ...STDIO, toolshed: { pins: "no" } }, /toolshed.pins must be true/);
  refusal({ ...STDIO, toolshed: { include: "*" } }, /toolshed.include must be a list/);
  refusal({ ...STDIO, toolshed: { exclude: [""] } }, /toolshed.exclude must be a list/);
});

Deno.test("parseMountFile() refuses renames that make no valid name, globs, and two onto one", () => {
  refusal({ ...STDIO, toolshed: { rename: { a: "new name" } } }, /rename "a" gives "new name"/);
  refusal({ ...STDIO, toolshed: { rename: { a: "" } } }, /rename "a" must be a non-empty string/);
  refusal({ ...STDIO, toolshed: { rename: { a: "x".repeat(128) } } }, /at most 128/);
  refusal(
    { ...STDIO, toolshed: { rename: { "create_*": "new" } } },
    /rename "create_\*" is a glob/,
  );
  refusal(
    { ...STDIO, toolshed: { rename: { a: "same", b: "same" } } },
    /gives "same" to both "a" and "b"/,
  );
});

Deno.test("parseMountFile() refuses tools and rename keys that include/exclude leave out", () => {
  refusal(
    { ...STDIO, toolshed: { include: ["get_*"], tools: { create_issue: { scopes: ["a"] } } } },
    /toolshed.tools "create_issue"/,
    /leave out/,
  );
  refusal(
    { ...STDIO, toolshed: { exclude: ["create_*"], rename: { create_issue: "new_issue" } } },
    /toolshed.rename "create_issue"/,
    /leave out/,
  );
});

Deno.test("unmatchedNames() names the block's names the upstream does not have, with did-you-mean", () => {
  const { block } = mount({
    ...STDIO,
    toolshed: {
      include: ["ec*", "get_*", "add"],
      tools: { ech: { scopes: ["a"] } },
      rename: { add: "sum" },
    },
  });
  deepStrictEqual(unmatchedNames(block, ["echo", "add", "get_env"]), [
    'toolshed.tools names "ech", which the upstream does not have; did you mean "echo"?',
  ]);
  deepStrictEqual(unmatchedNames(block, ["echo"]), [
    'toolshed.include names "add", which the upstream does not have',
    'toolshed.tools names "ech", which the upstream does not have; did you mean "echo"?',
    'toolshed.rename names "add", which the upstream does not have',
  ]);
});

// ---- auth ----

const EXCHANGE = {
  audience: "https://upstream.example",
  resource: "https://upstream.example/mcp",
  scopes: ["issues:read"],
  clientId: "toolshed",
  clientSecret: "${EXCHANGE_SECRET}",
};

Deno.test("parseMountFile() reads auth none and exchange, the secret from the environment", () => {
  strictEqual(mount({ ...STDIO, toolshed: { auth: "none" } }).block.auth.kind, "none");
  const file = mount({
    type: "http",
    url: "https://upstream.example/mcp",
    toolshed: { auth: { exchange: EXCHANGE } },
  });
  deepStrictEqual(file.block.auth, {
    kind: "exchange",
    audience: "https://upstream.example",
    resource: "https://upstream.example/mcp",
    scopes: ["issues:read"],
    clientId: "toolshed",
    clientSecret: "s3cret",
  });
  const bare = mount({
    url: "https://upstream.example/mcp",
    toolshed: {
      auth: {
        exchange: { audience: "upstream", clientId: "ts", clientSecret: "${EXCHANGE_SECRET}" },
      },
    },
  });
  deepStrictEqual(bare.block.auth, {
    kind: "exchange",
    audience: "upstream",
    resource: undefined,
    scopes: [],
    clientId: "ts",
    clientSecret: "s3cret",
  });
});

Deno.test("parseMountFile() refuses a bad auth block, naming the field", () => {
  const remote = { url: "https://upstream.example/mcp" };
  refusal({ ...remote, toolshed: { auth: "bearer" } }, /toolshed.auth must be "none" or/);
  refusal(
    { ...remote, toolshed: { auth: { exchange: { ...EXCHANGE, clientSecret: "hunter2" } } } },
    /clientSecret has a literal value/,
  );
  refusal(
    { ...remote, toolshed: { auth: { exchange: { ...EXCHANGE, audiense: "x" } } } },
    /"audiense"/,
    /did you mean "audience"\?/,
  );
  refusal(
    { ...remote, toolshed: { auth: { exchange: { ...EXCHANGE, audience: undefined } } } },
    /exchange.audience must be/,
  );
  refusal(
    { ...remote, toolshed: { auth: { exchange: { ...EXCHANGE, resource: "upstream#x" } } } },
    /resource "upstream#x" must be an absolute URI/,
  );
  refusal(
    { ...remote, toolshed: { auth: { exchange: { ...EXCHANGE, scopes: "a b" } } } },
    /toolshed.auth.exchange: scopes must be a list/,
  );
  refusal(
    { ...STDIO, toolshed: { auth: { exchange: EXCHANGE } } },
    /needs a remote upstream/,
    /one process for every caller/,
  );
  refusal(
    {
      ...remote,
      headers: { Authorization: "Bearer ${API_TOKEN}" },
      toolshed: { auth: { exchange: EXCHANGE } },
    },
    /headers has "Authorization" and toolshed.auth is "exchange"/,
  );
});
