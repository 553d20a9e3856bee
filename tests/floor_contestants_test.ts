// bench:floor's programs (bench/floor.ts, adr/0053) are only a floor if they do the job they
// stand for: the start-up floor answers as the bare loop does after loading what it says it
// loads, the HTTP floor answers the echo and outlives a client that resets its connection.
import assert from "node:assert/strict";
import { FLOOR_TARGETS, START_TARGETS, table } from "../bench/floor.ts";
import { type BurstRound, roundRatios, verdictOf } from "../bench/http/bursts.ts";
import { listThenEcho } from "./_server_process.ts";
import { echoBody, echoResult, HEADERS } from "../bench/http/request.ts";
import { start } from "../bench/http/server.ts";
import { cutCopy, CUTS, cutText } from "../bench/floor_cuts.ts";

const ROOT = new URL("../", import.meta.url).pathname;

/** A contestant of bench:floor started with `args`, once it says where it listens. */
async function startListening(args: string[]) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ...args],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  const stop = async () => {
    child.kill("SIGKILL");
    await child.status;
    await reader.cancel();
  };
  let seen = "";
  for (let i = 0; i < 100 && !seen.includes("listening on"); i++) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += value;
  }
  const url = seen.match(/listening on (http:\/\/\S+\/mcp)/)?.[1];
  if (url === undefined) {
    await stop();
    throw new Error(`${args.join(" ")} said no URL: ${seen}`);
  }
  return { url, seen, stop };
}

Deno.test("floor_loop.ts loads toolshed's code and the tool modules, then answers as the bare loop", async () => {
  const lines = listThenEcho("from the floor").map((line) => JSON.stringify(line) + "\n").join("");
  // A tool module that fails to import must end the run: the floor really imports them.
  const broken = await Deno.makeTempDir({ prefix: "toolshed_floor_test_" });
  try {
    await Deno.writeTextFile(`${broken}/bad.ts`, 'throw new Error("imported");\n');
    for (
      const [args, fails] of [[["--code", "--tools", `${ROOT}bench/tools`], false], [
        ["--tools", broken],
        true,
      ]] as const
    ) {
      const child = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", `${ROOT}bench/contestants/floor_loop.ts`, ...args],
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode(lines));
      await writer.close();
      const { code, stdout, stderr } = await child.output();
      if (fails) {
        assert.notEqual(code, 0);
        assert.match(new TextDecoder().decode(stderr), /imported/);
        continue;
      }
      assert.equal(code, 0, new TextDecoder().decode(stderr));
      const [list, call] = new TextDecoder().decode(stdout).trim().split("\n").map((line) =>
        JSON.parse(line)
      );
      assert.deepEqual(list.result.tools.map((tool: { name: string }) => tool.name), ["echo"]);
      assert.deepEqual(call, {
        jsonrpc: "2.0",
        id: 2,
        result: { resultType: "complete", content: [{ type: "text", text: "from the floor" }] },
      });
    }
  } finally {
    await Deno.remove(broken, { recursive: true });
  }
});

Deno.test("floor_http.ts answers the echo, and still does after a client resets its connection", async () => {
  const { url, stop } = await startListening([`${ROOT}bench/contestants/floor_http.ts`]);
  try {
    const echo = async (text: string) => {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", "mcp-method": "tools/call" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 7,
          method: "tools/call",
          params: { name: "echo", arguments: { text } },
        }),
      });
      return await response.json();
    };
    assert.equal((await echo("first")).result.content[0].text, "first");
    // Resets: two whole requests sent and the socket closed at once, as wrk leaves the
    // connections open at its end; the answers then meet a closed peer.
    const { port } = new URL(url);
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "echo", arguments: { text: "x" } },
    });
    const request = `POST /mcp HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n` +
      `content-length: ${body.length}\r\n\r\n${body}`;
    for (let i = 0; i < 20; i++) {
      const socket = await Deno.connect({ hostname: "127.0.0.1", port: Number(port) });
      await socket.write(new TextEncoder().encode(request + request));
      socket.close();
    }
    assert.equal((await echo("after")).result.content[0].text, "after");
  } finally {
    await stop();
  }
});

Deno.test("floor_http.ts does one part alone when asked, and refuses a part it does not know", async () => {
  const unknown = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}bench/contestants/floor_http.ts`, "headers,cache"],
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.notEqual(unknown.code, 0);
  assert.match(new TextDecoder().decode(unknown.stderr), /no part "cache"/);
  for (const part of ["listener", "delivered", "headers", "body"]) {
    const { url, stop } = await startListening([
      `${ROOT}bench/contestants/floor_http.ts`,
      part,
    ]);
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 3,
          method: "tools/call",
          params: { name: "echo", arguments: { text: part } },
        }),
      });
      assert.equal((await response.json()).result.content[0].text, part);
    } finally {
      await stop();
    }
  }
});

Deno.test("bench:floor's table gives each figure with its ratio to the first row's", () => {
  assert.equal(
    table(["what", "ms", "MB"], [
      { label: "bare", figures: [20, 40] },
      { label: "more", figures: [30, 50] },
    ], [1, 0]),
    [
      "| what | ms | MB |",
      "|---|---|---|",
      "| bare | 20.0 (1.00×) | 40 (1.00×) |",
      "| more | 30.0 (1.50×) | 50 (1.25×) |",
    ].join("\n"),
  );
});

Deno.test("bench:floor's targets are issue 42's: toolshed ÷ the floor program of each round", () => {
  const [rps, p50] = FLOOR_TARGETS;
  const burst = (rps: number, p50Ms: number) => ({
    requests: rps,
    rps,
    p50Ms,
    p99Ms: p50Ms,
    cpuUsPerRequest: 1,
  });
  // Requests/s at 64 connections and p50 at 1 move apart, so each target shows which it reads.
  const rounds: BurstRound[] = [
    {
      floor: { 1: burst(900, 0.1), 64: burst(1000, 2) },
      toolshed: { 1: burst(1, 0.115), 64: burst(900, 1) },
    },
    {
      floor: { 1: burst(900, 0.1), 64: burst(2000, 2) },
      toolshed: { 1: burst(1, 0.116), 64: burst(1780, 9) },
    },
    {
      floor: { 1: burst(900, 0.1), 64: burst(1000, 2) },
      toolshed: { 1: burst(1, 0.100), 64: burst(950, 1) },
    },
  ];
  const ratios = (target: typeof rps) => roundRatios(rounds, "toolshed", "floor", target.of);
  assert.deepEqual(ratios(rps).map((x) => x.toFixed(3)), ["0.900", "0.890", "0.950"]);
  assert.deepEqual(ratios(p50).map((x) => x.toFixed(3)), ["1.150", "1.160", "1.000"]);
  // At the threshold a target holds; just past it, not.
  assert.deepEqual(
    [rps.meets(0.9), rps.meets(0.89), p50.meets(1.15), p50.meets(1.16)],
    [true, false, true, false],
  );
  const [byRps, byP50] = [verdictOf(rps, ratios(rps)), verdictOf(p50, ratios(p50))];
  assert.deepEqual([byRps.holds, byRps.met, byP50.holds, byP50.met], [true, 2, true, 2]);
});

Deno.test("bench:floor's start-up targets are issue 42's, for toolshed from source and as installed", () => {
  assert.deepEqual(
    START_TARGETS.map(({ key, of, wanted }) => `${key} ${of} ${wanted}`),
    ["toolshed ms ≤ 2×", "toolshed peak ≤ 1.3×", "installed ms ≤ 2×", "installed peak ≤ 1.3×"],
  );
  for (const target of START_TARGETS) {
    const limit = target.of === "ms" ? 2 : 1.3;
    assert.deepEqual([target.meets(limit), target.meets(limit + 0.01)], [true, false]);
  }
});

Deno.test("floor_in_toolshed.ts answers the echo as the floor program, beside toolshed's server when serving, and refuses a mode it does not know", async () => {
  const unknown = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}bench/contestants/floor_in_toolshed.ts`, "built"],
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.notEqual(unknown.code, 0);
  assert.match(
    new TextDecoder().decode(unknown.stderr),
    /give one of loaded, serving, not "built"/,
  );
  for (const mode of ["loaded", "serving"]) {
    const { url, seen, stop } = await startListening([
      `${ROOT}bench/contestants/floor_in_toolshed.ts`,
      mode,
    ]);
    try {
      const call = async (at: string, text: string) => {
        const response = await fetch(at, {
          method: "POST",
          headers: HEADERS,
          body: echoBody(5, text),
        });
        return await response.json();
      };
      assert.equal((await call(url, mode)).result.content[0].text, mode);
      const beside = seen.match(/toolshed beside it on (http:\/\/\S+\/mcp)/)?.[1];
      if (mode === "loaded") assert.equal(beside, undefined, seen);
      else {
        assert.ok(beside !== undefined, seen);
        // toolshed's own answer carries its serverInfo: a server of bench/tools is serving.
        const answer = await call(beside, "to toolshed");
        assert.equal(answer.result.content[0].text, "to toolshed", JSON.stringify(answer));
        assert.equal(answer.result._meta["io.modelcontextprotocol/serverInfo"].name, "toolshed");
      }
    } finally {
      await stop();
    }
  }
});

Deno.test("bench:floor-process prints, for each contestant against the floor program, both ratios with their spread", async () => {
  // This checkout given as the one to compare: one more row, its `--http` from its main.ts.
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      `${ROOT}bench/floor_process.ts`,
      "--rounds",
      "2",
      "--cuts",
      "--against",
      ROOT,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(stdout);
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  const rows = text.split("\n").filter((line) => /^\| (the floor|toolshed)[ ,']/.test(line));
  assert.deepEqual(
    rows.map((row) => row.split(" | ")[0].replace(/^\| toolshed at \S+/, "| toolshed")),
    [
      "| the floor program itself (itself)",
      "| the floor, toolshed's modules loaded (loaded)",
      "| the floor, toolshed's server built and serving idle (serving)",
      "| toolshed `--http` (toolshed)",
      ...CUTS.map(({ key, label }) => `| ${label} (${key})`),
      `| toolshed \`--http\` (${ROOT})`,
    ],
    text,
  );
  for (const row of rows) {
    // requests/s ÷ floor and CPU ÷ floor, each a median with min–max and IQR, then requests/s.
    assert.match(
      row,
      /\| \d+\.\d\d× \(\d+\.\d\d–\d+\.\d\d; IQR [^)]+\) \| \d+\.\d\d× \([^)]+\) \| \d+ \|$/,
    );
  }
});

Deno.test("bench:floor-process refuses a checkout to compare that has no main.ts, before any server starts", async () => {
  const empty = await Deno.makeTempDir({ prefix: "toolshed_floor_process_test_" });
  try {
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", `${ROOT}bench/floor_process.ts`, "--against", empty],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.notEqual(code, 0);
    assert.match(
      new TextDecoder().decode(stderr),
      /Cannot compare against ".*": it has no main\.ts/,
    );
    assert.doesNotMatch(new TextDecoder().decode(stdout), /\| the floor/);
  } finally {
    await Deno.remove(empty, { recursive: true });
  }
});

Deno.test("bench:floor-process's cuts answer the echo themselves, at their point of the path, where toolshed answers through its core", async () => {
  const copies = await Deno.makeTempDir({ prefix: "toolshed_floor_cuts_test_" });
  /** The `_meta` of the echo's result from `main`'s `--http` (start checks the answer first). */
  const metaOf = async (main: string) => {
    const server = await start({
      key: main,
      label: main,
      args: ["run", "-A", main, "--tools", `${ROOT}bench/tools`, "--http", "127.0.0.1:0"],
      result: echoResult,
    });
    try {
      const response = await fetch(server.url, {
        method: "POST",
        headers: HEADERS,
        body: echoBody(7, "cut"),
      });
      const { result } = await response.json();
      assert.deepEqual(result.content, [{ type: "text", text: "cut" }]);
      return result._meta;
    } finally {
      await server.close();
    }
  };
  try {
    // The core stamps its serverInfo on every result; an answer made at a cut has none.
    assert.equal(
      (await metaOf(`${ROOT}main.ts`))["io.modelcontextprotocol/serverInfo"].name,
      "toolshed",
    );
    for (const { key } of CUTS) {
      await cutCopy(key, `${copies}/${key}`);
      assert.equal(await metaOf(`${copies}/${key}/main.ts`), undefined, key);
    }
  } finally {
    await Deno.remove(copies, { recursive: true });
  }
});

Deno.test("a cut whose anchor is gone from the code, or is there twice, fails with its name", async () => {
  const [cut] = CUTS;
  assert.throws(() => cutText(cut, "no anchor here"), /the cut "route" no longer fits .*\(none\)/);
  assert.throws(
    () => cutText(cut, cut.anchor + cut.anchor),
    /the cut "route" no longer fits .*\(more\)/,
  );
  assert.equal(cutText(cut, `a\n${cut.anchor}b`), `a\n${cut.before}${cut.anchor}b${cut.appended}`);
  await assert.rejects(() => cutCopy("engine", "/nonexistent"), /no cut "engine"/);
});
