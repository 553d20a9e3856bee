// toolshed check's report on each endpoint (lib/commands/check_endpoints.ts, adr/0073 step 3):
// `/mcp`, each toolset's `/mcp/<set>` and code mode's view of each, with the tools, bytes and
// estimated tokens of its tools/list, equal to what the real HTTP endpoint answers at that path
// (createServer's `fetch`, every page); a warning naming the endpoint and the host past a host's
// cap, pointing at the code view; what --read-only and --toolsets narrow; --json's `endpoint`.
import assert from "node:assert/strict";
import { command } from "../lib/commands/check.ts";
import type { HarnessConfig } from "./_in_process.ts";
import { composeForTest } from "./_in_process.ts";
import { STATELESS_META, withHangGuard } from "./_server_process.ts";
import { modernHeaders } from "./_http_server.ts";
import { withDir } from "./_scratch_dir.ts";
import { memoryIo } from "./_memory_io.ts";

/** A tool file; `readOnly` false leaves it destructive. */
function tool(readOnly = true): string {
  const hints = readOnly
    ? "{ readOnlyHint: true }"
    : "{ readOnlyHint: false, destructiveHint: true }";
  return 'export default { description: "Does one small thing", inputSchema: { type: "object" },\n' +
    `  annotations: ${hints}, handler: () => "" };\n`;
}

/**
 * A server directory with toolsets: one top-level tool, `big/` with 41 tools (with the top-level
 * one, two more than Cursor takes; the last two destructive), and `small/` with 2.
 */
function toolsetFiles(): Record<string, string> {
  const files: Record<string, string> = { "tools/top.ts": tool() };
  for (let index = 1; index <= 41; index++) {
    files[`tools/big/b${String(index).padStart(2, "0")}.ts`] = tool(index < 40);
  }
  files["tools/small/s1.ts"] = tool();
  files["tools/small/s2.ts"] = tool();
  return files;
}

/** Runs `toolshed check ARGS` in memory: its exit code and what it wrote. */
async function check(args: string[]) {
  const memory = memoryIo(Deno.cwd());
  const code = await command.run(args, memory.io);
  return { code, out: memory.out(), err: memory.err() };
}

interface Endpoint {
  path: string;
  toolset?: string;
  code: boolean;
  tools: number;
  bytes: number;
  tokens: number;
  fits: string[];
  exceeds: string[];
}

interface Found {
  severity: string;
  source: string;
  file?: string;
  message: string;
  rule?: string;
  clients?: string[];
  endpoint?: Endpoint;
}

/** The endpoints' findings of `check --json` for `dir` with `flags`. */
async function endpointsOf(dir: string, flags: string[] = []): Promise<Found[]> {
  const { code, out, err } = await check(["--dir", dir, "--no-types", "--json", ...flags]);
  assert.equal(err, "");
  assert.notEqual(code, 2, out);
  return JSON.parse(out).findings.filter((found: Found) => found.source === "endpoints");
}

/**
 * What the real HTTP endpoint answers tools/list at each path (`serve --http --code-mode`, with
 * `config`), every page, for a 2026-07-28 client that declares no extension: the tools' names and
 * the bytes of them as one list.
 */
async function served(dir: string, paths: readonly string[], config: HarnessConfig = {}) {
  const server = await composeForTest({ dir, http: true, codeMode: true, codePool: 0, ...config });
  try {
    const found = new Map<string, { names: string[]; bytes: number }>();
    for (const path of paths) {
      const tools: { name: string }[] = [];
      let cursor: string | undefined;
      for (let page = 1; page <= 100; page++) {
        const response = await withHangGuard(
          server.fetch(
            new Request(`http://127.0.0.1${path}`, {
              method: "POST",
              headers: modernHeaders("tools/list"),
              body: JSON.stringify({
                jsonrpc: "2.0",
                id: page,
                method: "tools/list",
                params: { ...(cursor === undefined ? {} : { cursor }), _meta: STATELESS_META },
              }),
            }),
          ),
          `tools/list at ${path}`,
        );
        assert.equal(response.status, 200, `${path}: ${await response.clone().text()}`);
        const { result } = await response.json();
        tools.push(...result.tools);
        cursor = result.nextCursor;
        if (cursor === undefined) break;
      }
      assert.equal(cursor, undefined, "more than 100 pages");
      const bytes = new TextEncoder().encode(JSON.stringify({ tools })).length;
      found.set(path, { names: tools.map((each) => each.name), bytes });
    }
    return found;
  } finally {
    await server.close();
  }
}

/** Each endpoint's figures against the real endpoint's answer at its path. */
function assertServed(
  figures: readonly Endpoint[],
  real: Map<string, { names: string[]; bytes: number }>,
) {
  assert.deepEqual(figures.map((each) => each.path), [...real.keys()]);
  for (const each of figures) {
    const { names, bytes } = real.get(each.path)!;
    assert.equal(each.tools, names.length, each.path);
    assert.equal(each.bytes, bytes, each.path);
    assert.equal(each.tokens, Math.ceil(bytes / 4), each.path);
  }
}

const PATHS = ["/mcp", "/mcp/code", "/mcp/big", "/mcp/big/code", "/mcp/small", "/mcp/small/code"];

Deno.test("check reports each endpoint's tools and bytes as its real tools/list answers them, code views too", async () => {
  await withDir(toolsetFiles(), async (dir) => {
    const found = await endpointsOf(dir);
    const figures = found.filter((each) => each.severity === "info").map((each) => each.endpoint!);
    const real = await served(dir, PATHS);
    assertServed(figures, real);
    // The catalogs: every tool, a set's with the top-level tool; each code view far fewer.
    assert.deepEqual(figures.map((each) => [each.path, each.toolset, each.code, each.tools]), [
      ["/mcp", undefined, false, 44],
      ["/mcp/code", undefined, true, real.get("/mcp/code")!.names.length],
      ["/mcp/big", "big", false, 42],
      ["/mcp/big/code", "big", true, real.get("/mcp/big/code")!.names.length],
      ["/mcp/small", "small", false, 3],
      ["/mcp/small/code", "small", true, real.get("/mcp/small/code")!.names.length],
    ]);
    for (const path of ["/mcp/code", "/mcp/big/code", "/mcp/small/code"]) {
      const names = real.get(path)!.names;
      for (const name of ["search_tools", "describe_tools", "run_code"]) {
        assert.ok(names.includes(name), `${path} lists no ${name}: ${names}`);
      }
    }
    assert.ok(real.get("/mcp/code")!.bytes < real.get("/mcp")!.bytes);
    // Which caps each fits: over Cursor's 40 past 40 tools, within every cap below.
    assert.deepEqual(figures.map((each) => [each.path, each.fits, each.exceeds]), [
      ["/mcp", ["VS Code", "OpenAI"], ["Cursor"]],
      ["/mcp/code", ["Cursor", "VS Code", "OpenAI"], []],
      ["/mcp/big", ["VS Code", "OpenAI"], ["Cursor"]],
      ["/mcp/big/code", ["Cursor", "VS Code", "OpenAI"], []],
      ["/mcp/small", ["Cursor", "VS Code", "OpenAI"], []],
      ["/mcp/small/code", ["Cursor", "VS Code", "OpenAI"], []],
    ]);
  });
});

Deno.test("check warns on an endpoint over Cursor's cap, naming the endpoint and Cursor and pointing at its code view; none for a code view", async () => {
  await withDir(toolsetFiles(), async (dir) => {
    const found = await endpointsOf(dir);
    const warnings = found.filter((each) => each.severity === "warning");
    assert.deepEqual(
      warnings.map((each) => [each.endpoint!.path, each.rule, each.clients, each.file]),
      [
        ["/mcp", "cursor-tool-count", ["Cursor"], undefined],
        ["/mcp/big", "cursor-tool-count", ["Cursor"], undefined],
      ],
    );
    const code = found.find((each) => each.endpoint!.path === "/mcp/big/code")!.endpoint!;
    assert.equal(
      warnings[1].message,
      "/mcp/big serves 42 tools: Cursor sends only the first 40 of all its servers' tools to its " +
        "agent and drops the rest without a word; /mcp/big/code, its code view (--code-mode), " +
        `serves ${code.tools}, which Cursor takes`,
    );
    // They are warnings: --strict fails on them, and the text report says them under Endpoints.
    assert.equal((await check(["--dir", dir, "--no-types", "--strict"])).code, 1);
    const { code: exit, out } = await check(["--dir", dir, "--no-types"]);
    assert.equal(exit, 0, out);
    const lines = out.split("\n");
    const heading = lines.indexOf(
      "Endpoints (tools/list as a 2026-07-28 client that declares no extension receives it; " +
        "tokens estimated as UTF-8 bytes / 4)",
    );
    assert.ok(heading >= 0, out);
    const mcp = found[0].endpoint!;
    assert.equal(
      lines[heading + 1],
      `  info: /mcp (and stdio) serves 44 tools: tools/list carries ` +
        `${mcp.bytes.toLocaleString("en-US")} bytes, about ${mcp.tokens.toLocaleString("en-US")} ` +
        "tokens; over Cursor's cap (40), within VS Code's cap (128) and OpenAI's (128)",
    );
    assert.equal(lines[heading + 2], `  warning: ${warnings[0].message}`);
    assert.match(
      lines[heading + 3],
      /^ {2}info: \/mcp\/code \(code mode's view of \/mcp, served with --code-mode, on stdio too\) serves \d+ tools: tools\/list carries [\d,]+ bytes, about [\d,]+ tokens, [\d.]+% of \/mcp's [\d,]+ bytes; within every host's cap on tools \(Cursor 40, VS Code 128, OpenAI 128\)$/,
    );
    assert.match(out, /\n0 errors, 2 warnings in 44 tools, 0 resources, 0 prompts\n$/);
  });
});

Deno.test("check warns once for each host's cap an endpoint is over, past every cap too, with figures over every page", async () => {
  // 129 tools: over Cursor's 40, VS Code's 128 and OpenAI's 128; two pages of tools/list.
  const files: Record<string, string> = {};
  for (let index = 1; index <= 129; index++) files[`tools/t${index}.ts`] = tool();
  await withDir(files, async (dir) => {
    const found = await endpointsOf(dir);
    const real = await served(dir, ["/mcp", "/mcp/code"]);
    assertServed(
      found.filter((each) => each.severity === "info").map((each) => each.endpoint!),
      real,
    );
    assert.deepEqual(found.map((each) => [each.severity, each.endpoint!.path, each.rule]), [
      ["info", "/mcp", undefined],
      ["warning", "/mcp", "cursor-tool-count"],
      ["warning", "/mcp", "vscode-tool-count"],
      ["warning", "/mcp", "openai-tool-count"],
      ["info", "/mcp/code", undefined],
    ]);
    assert.deepEqual(found[0].endpoint!.exceeds, ["Cursor", "VS Code", "OpenAI"]);
    assert.match(
      found[0].message,
      /; over every host's cap on tools \(Cursor 40, VS Code 128, OpenAI 128\)$/,
    );
    assert.match(
      found[2].message,
      /^\/mcp serves 129 tools: VS Code refuses a chat request with more than 128 \("You may not include more than 128 tools in your request"\) until the user deselects some; \/mcp\/code, its code view \(--code-mode\), serves \d+, which VS Code takes$/,
    );
  });
});

Deno.test("check --read-only and --toolsets report the endpoints that serve would serve with them", async () => {
  await withDir(toolsetFiles(), async (dir) => {
    // --read-only: big/ loses its two destructive tools and fits Cursor's cap.
    const readOnly = await endpointsOf(dir, ["--read-only"]);
    const figures = readOnly.filter((each) => each.severity === "info").map((each) =>
      each.endpoint!
    );
    assertServed(figures, await served(dir, PATHS, { readOnly: true }));
    assert.deepEqual(figures.map((each) => each.tools).filter((_, index) => index % 2 === 0), [
      42,
      40,
      3,
    ]);
    assert.deepEqual(
      readOnly.filter((each) => each.severity === "warning").map((each) => each.endpoint!.path),
      ["/mcp"],
    );
    // --toolsets small: /mcp is the top-level tool and small/'s; big/ has no endpoint.
    const small = await endpointsOf(dir, ["--toolsets", "small"]);
    const paths = ["/mcp", "/mcp/code", "/mcp/small", "/mcp/small/code"];
    assertServed(
      small.map((each) => each.endpoint!),
      await served(dir, paths, { toolsets: ["small"] }),
    );
    assert.equal(small[0].endpoint!.tools, 3);
    // A set the directory does not hold is the command line's mistake, as serve says.
    const unknown = await check(["--dir", dir, "--no-types", "--toolsets", "nope"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /No toolset "nope": this server has "big", "small"/);
  });
});

Deno.test("check --code-destructive reports the code views that serve --code-mode --code-destructive serves", async () => {
  // Nine tools code may call, and a destructive one that opts in: callable only with the flag,
  // which the code view's search_tools counts ("among the 9" or "among the 10").
  const files: Record<string, string> = {};
  for (let index = 1; index <= 9; index++) files[`tools/r${index}.ts`] = tool();
  files["tools/wipe.ts"] =
    'export default { description: "Wipes", inputSchema: { type: "object" },\n' +
    '  annotations: { destructiveHint: true }, code: true, handler: () => "" };\n';
  await withDir(files, async (dir) => {
    const code = async (flags: string[]) =>
      (await endpointsOf(dir, flags)).find((each) => each.endpoint!.path === "/mcp/code")!
        .endpoint!;
    const [plain, destructive] = [await code([]), await code(["--code-destructive"])];
    assertServed([plain], await served(dir, ["/mcp/code"]));
    assertServed([destructive], await served(dir, ["/mcp/code"], { codeDestructive: true }));
    assert.equal(destructive.bytes, plain.bytes + 1);
  });
});

Deno.test("check warns when the directory's middleware refuses the tools/list it measures with, and goes on", async () => {
  const refuse = "export default (next: (call: { method: string }) => unknown) =>\n" +
    "  (call: { method: string }) => {\n" +
    '    if (call.method === "tools/list") throw new Error("lists are closed");\n' +
    "    return next(call);\n" +
    "  };\n";
  await withDir({ "tools/one.ts": tool(), "middleware/10_refuse.ts": refuse }, async (dir) => {
    const { code, out } = await check(["--dir", dir, "--no-types", "--json"]);
    assert.equal(code, 0, out);
    // Said once, as the endpoints' warning (not as a load problem of its own).
    const found = JSON.parse(out).findings;
    assert.deepEqual(found.map((each: Found) => each.source), ["endpoints"], out);
    assert.equal(found[0].severity, "warning");
    assert.match(found[0].message, /^Cannot list the tools of "\/mcp" to measure them: /);
  });
});

Deno.test("check --json gives each endpoint's figures in its finding's endpoint field", async () => {
  await withDir({ "tools/one.ts": tool() }, async (dir) => {
    const { code, out } = await check(["--dir", dir, "--no-types", "--json"]);
    assert.equal(code, 0, out);
    const json = JSON.parse(out);
    const found = json.findings.filter((each: Found) => each.source === "endpoints");
    const real = await served(dir, ["/mcp", "/mcp/code"]);
    assert.deepEqual(found, [
      {
        severity: "info",
        source: "endpoints",
        message: found[0].message,
        endpoint: {
          path: "/mcp",
          code: false,
          tools: 1,
          bytes: real.get("/mcp")!.bytes,
          tokens: Math.ceil(real.get("/mcp")!.bytes / 4),
          fits: ["Cursor", "VS Code", "OpenAI"],
          exceeds: [],
        },
      },
      {
        severity: "info",
        source: "endpoints",
        message: found[1].message,
        endpoint: {
          path: "/mcp/code",
          code: true,
          tools: real.get("/mcp/code")!.names.length,
          bytes: real.get("/mcp/code")!.bytes,
          tokens: Math.ceil(real.get("/mcp/code")!.bytes / 4),
          fits: ["Cursor", "VS Code", "OpenAI"],
          exceeds: [],
        },
      },
    ]);
    // Figures are no warnings.
    assert.equal(json.warnings, 0);
    // A directory without tools, or one that does not load, has no endpoints to report.
    await withDir({ "resources/note.md": "A note\n" }, async (bare) => {
      assert.deepEqual(await endpointsOf(bare), []);
    });
    await Deno.writeTextFile(`${dir}/tools/bad.ts`, 'export default { descripton: "x" };');
    assert.deepEqual(await endpointsOf(dir), []);
  });
});
