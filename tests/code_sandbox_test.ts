// The red team against code mode's sandbox (adr/0073 decision 2, issue 41): each case is the
// model's code trying one way out, run in real child processes, and after each a normal run in
// the same sandbox still works. The children are found in /proc (Linux) by their command line,
// which holds a mark of this file's own: `deno test --parallel` runs other files in this same
// process, whose sandboxes' children are this process's children too. No test asserts how long anything takes; every wait is
// bounded by a sandbox limit or a hang guard.
import assert from "node:assert/strict";
import {
  type CallTool,
  createSandbox,
  defaultRunner,
  type RunOutcome,
  type SandboxLimits,
} from "../lib/code/sandbox.ts";
import { parseChildLine } from "../lib/code/sandbox_lines.ts";
import { withHangGuard } from "./_server_process.ts";

const LIMITS: SandboxLimits = {
  heapMb: 64,
  timeoutMs: 30_000,
  maxCalls: 5,
  maxConsoleBytes: 64 * 1024,
  maxResultBytes: 64 * 1024,
  poolSize: 0,
};

/** This file's children: the runner as the server starts it, with a last argument that marks it. */
const MARK = `code_sandbox_test-${crypto.randomUUID()}`;
const MARKED = (() => {
  const runner = defaultRunner();
  return { runner: { ...runner, args: [...runner.args, MARK] } };
})();

/** The limits of a case whose subject is the wall clock: short, and still a normal run's due. */
const SHORT: SandboxLimits = { ...LIMITS, timeoutMs: 3_000, poolSize: 1 };

/** A catalog of one tool, `add`, that records its calls. */
function adder(): { callTool: CallTool; calls: { name: string; args: unknown }[] } {
  const calls: { name: string; args: unknown }[] = [];
  return {
    calls,
    callTool: (name, args) => {
      calls.push({ name, args });
      if (name !== "add") return Promise.reject(new Error(`Unknown tool "${name}"`));
      const { a, b } = args as { a: number; b: number };
      return Promise.resolve({ sum: a + b });
    },
  };
}

const never = new AbortController().signal;

/**
 * The live (not zombie) sandbox children of this process, by pid, each with whether it runs the
 * runner yet. A child is spawned through `setsid` and `prlimit`, each of which execs the next
 * program in the same process; while an exec is under way /proc/<pid>/cmdline reads empty or cut
 * short, so a look can miss a child that has just started. Once it runs the runner (its last
 * exec done), every look finds it until it ends.
 */
function sandboxChildrenSeen(): { pid: number; runner: boolean }[] {
  const found: { pid: number; runner: boolean }[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] === "Z" || Number(fields[1]) !== Deno.pid) continue;
      const cmdline = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`);
      if (!cmdline.includes(MARK)) continue;
      found.push({
        pid: Number(entry.name),
        runner: cmdline.startsWith(`${MARKED.runner.program}\0`),
      });
    } catch {
      // It ended while we looked.
    }
  }
  return found;
}

/** The pids of this process's live sandbox children (see sandboxChildrenSeen). */
function sandboxChildren(): number[] {
  return sandboxChildrenSeen().map((child) => child.pid);
}

/** Whether exactly `count` sandbox children live and each runs the runner: then a look sees all. */
function runnersReady(count: number): boolean {
  const seen = sandboxChildrenSeen();
  return seen.length === count && seen.every((child) => child.runner);
}

/** Waits (bounded) until `check` holds, polling. */
async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`Never came true: ${what}`);
}

/** The case's run, then a normal one in the same sandbox, then close and no child left. */
async function hostile(
  limits: SandboxLimits,
  code: string,
  check: (outcome: RunOutcome) => void | Promise<void>,
): Promise<void> {
  const sandbox = createSandbox(limits, MARKED);
  try {
    const { callTool } = adder();
    const outcome = await withHangGuard(sandbox.run(code, callTool, never), "the hostile run");
    await check(outcome);
    const normal = await withHangGuard(
      sandbox.run("return await tools.add({ a: 1, b: 2 })", callTool, never),
      "the normal run after it",
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
  }
  assert.deepEqual(sandboxChildren(), []);
}

Deno.test("sandbox runs TypeScript with tools in scope, returning its value, console and calls", async () => {
  const { callTool, calls } = adder();
  const sandbox = createSandbox(LIMITS, MARKED);
  try {
    const outcome = await sandbox.run(
      `const n: number = 20;\nconsole.log("adding", { n });\nconst { sum } = await tools.add({ a: n, b: 22 }) as { sum: number };\nreturn { sum };`,
      callTool,
      never,
    );
    assert.deepEqual(outcome, {
      ok: true,
      value: { sum: 42 },
      console: "adding { n: 20 }\n",
      consoleCut: false,
      calls: 1,
    });
    assert.deepEqual(calls, [{ name: "add", args: { a: 20, b: 22 } }]);
  } finally {
    await sandbox.close();
  }
});

Deno.test("sandbox answers a syntax error naming its line", async () => {
  await hostile(LIMITS, "const a = 1;\nreturn a +;\n", (outcome) => {
    assert.equal(outcome.ok, false);
    assert.match(outcome.error!, /^The code does not parse: .* at line 2, column \d+$/);
  });
});

Deno.test("sandbox refuses the code a file read: Deno, a JSON import, fetch of file:", async () => {
  const dir = await Deno.makeTempDir();
  const secret = crypto.randomUUID();
  try {
    await Deno.writeTextFile(`${dir}/secret.json`, JSON.stringify({ secret }));
    await Deno.writeTextFile(`${dir}/secret.js`, `export const secret = "${secret}";`);
    const code = `
      const tries = [
        () => Deno.readTextFileSync("${dir}/secret.json"),
        () => import("file://${dir}/secret.json", { with: { type: "json" } }),
        () => import("file://${dir}/secret.js"),
        () => import("${dir}/secret.js"),
        () => fetch("file://${dir}/secret.json").then((r) => r.text()),
        () => import("node:fs").then((fs) => fs.readFileSync("${dir}/secret.json", "utf8")),
      ];
      const out = [];
      for (const t of tries) {
        try { out.push({ got: JSON.stringify(await t()) }); } catch (e) { out.push({ refused: String(e.message) }); }
      }
      return out;`;
    await hostile(LIMITS, code, (outcome) => {
      assert.equal(outcome.ok, true);
      const tries = outcome.value as { got?: string; refused?: string }[];
      assert.equal(tries.length, 6);
      for (const attempt of tries) {
        assert.ok(attempt.refused !== undefined, JSON.stringify(attempt));
      }
      assert.ok(!JSON.stringify(outcome).includes(secret));
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sandbox refuses the code a file write: Deno, node:fs, localStorage and caches", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const code = `
      const tries = [
        () => Deno.writeTextFileSync("${dir}/a", "x"),
        () => import("node:fs").then((fs) => fs.writeFileSync("${dir}/b", "x")),
        () => localStorage.setItem("kept", "across runs"),
        () => caches.open("kept"),
      ];
      const refused = [];
      for (const t of tries) {
        try { await t(); refused.push(false); } catch { refused.push(true); }
      }
      return refused;`;
    await hostile(LIMITS, code, (outcome) => {
      assert.deepEqual(outcome.value, [true, true, true, true]);
    });
    assert.deepEqual([...Deno.readDirSync(dir)], []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sandbox refuses the code the network: a loopback listener receives nothing", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  let accepted = 0;
  const accepting = (async () => {
    for await (const connection of listener) {
      accepted++;
      connection.close();
    }
  })();
  try {
    const code = `
      const url = "http://127.0.0.1:${port}/";
      const tries = [
        () => fetch(url),
        () => import(url + "x.js"),
        () => new Promise((resolve, reject) => {
          const socket = new WebSocket("ws://127.0.0.1:${port}/");
          socket.onopen = resolve;
          socket.onerror = () => reject(new Error("refused"));
        }),
        () => Deno.connect({ hostname: "127.0.0.1", port: ${port} }),
        () => import("npm:left-pad@1.3.0"),
      ];
      const refused = [];
      for (const t of tries) {
        try { await t(); refused.push(false); } catch (e) { refused.push(e.message); }
      }
      return refused;`;
    await hostile(LIMITS, code, (outcome) => {
      const refused = outcome.value as unknown[];
      assert.equal(refused.length, 5);
      for (const why of refused) assert.equal(typeof why, "string");
      // Not even an npm registry is asked: the child runs with --no-npm.
      assert.match(refused[4] as string, /--no-npm/);
    });
    assert.equal(accepted, 0);
  } finally {
    listener.close();
    await accepting.catch(() => {});
  }
});

Deno.test("sandbox hides the server's environment from the code", async () => {
  const name = `TOOLSHED_SANDBOX_SECRET_${crypto.randomUUID().replaceAll("-", "")}`;
  const secret = crypto.randomUUID();
  Deno.env.set(name, secret);
  try {
    const code = `
      const tries = [
        () => Deno.env.get("${name}"),
        () => Deno.env.toObject(),
        () => process.env["${name}"],
        () => import("node:process").then((p) => p.env["${name}"]),
      ];
      const out = [];
      for (const t of tries) {
        try { out.push(JSON.stringify(await t()) ?? "undefined"); } catch (e) { out.push("refused: " + e.message); }
      }
      return out;`;
    await hostile(LIMITS, code, (outcome) => {
      assert.equal(outcome.ok, true);
      assert.ok(!JSON.stringify(outcome).includes(secret));
    });
    // And the child's own environment, read from /proc while it runs: only what it needs.
    const sandbox = createSandbox(LIMITS, MARKED);
    try {
      const seen: string[][] = [];
      const outcome = await sandbox.run("return await tools.look({})", () => {
        for (const pid of sandboxChildren()) {
          seen.push(Deno.readTextFileSync(`/proc/${pid}/environ`).split("\0").filter(Boolean));
        }
        return Promise.resolve("looked");
      }, never);
      assert.equal(outcome.value, "looked");
      assert.equal(seen.length, 1);
      assert.ok(!seen[0].some((entry) => entry.includes(secret)));
      const names = seen[0].map((entry) => entry.slice(0, entry.indexOf("="))).sort();
      const expected = ["DENO_NO_PROMPT", "DENO_NO_UPDATE_CHECK", "DENO_V8_FLAGS", "NO_COLOR"];
      if (Deno.env.get("DENO_DIR") !== undefined) expected.unshift("DENO_DIR");
      assert.deepEqual(names, expected);
    } finally {
      await sandbox.close();
    }
  } finally {
    Deno.env.delete(name);
  }
});

Deno.test("sandbox refuses the code a subprocess and a signal to another process", async () => {
  const dir = await Deno.makeTempDir();
  const bystander = new Deno.Command("sleep", { args: ["60"], stdout: "null", stderr: "null" })
    .spawn();
  try {
    const code = `
      const tries = [
        () => new Deno.Command("touch", { args: ["${dir}/spawned"] }).outputSync(),
        () => import("node:child_process").then((cp) => cp.execSync("touch ${dir}/spawned")),
        () => Deno.kill(${bystander.pid}, "SIGKILL"),
        () => process.kill(${bystander.pid}, "SIGKILL"),
      ];
      const refused = [];
      for (const t of tries) {
        try { await t(); refused.push(false); } catch { refused.push(true); }
      }
      return refused;`;
    await hostile(LIMITS, code, (outcome) => {
      assert.deepEqual(outcome.value, [true, true, true, true]);
    });
    assert.deepEqual([...Deno.readDirSync(dir)], []);
    // The bystander still runs: a harmless signal reaches it.
    Deno.kill(bystander.pid, "SIGCONT");
  } finally {
    bystander.kill("SIGKILL");
    await bystander.status;
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sandbox: Deno.exit is out of the code's reach", async () => {
  await hostile(LIMITS, "Deno.exit(0)", (outcome) => {
    assert.deepEqual(outcome, {
      ok: false,
      error: "Deno is not defined",
      console: "",
      consoleCut: false,
      calls: 0,
    });
  });
});

Deno.test("sandbox: code that ends its own process (close()) ends its run with an error", async () => {
  await hostile(LIMITS, "close(); await new Promise(() => {});", (outcome) => {
    assert.equal(outcome.ok, false);
    assert.match(outcome.error!, /^The code's process ended before it answered \(exit code \d+\)$/);
  });
});

Deno.test("sandbox stops `while (true) {}` at the time limit and kills its child", async () => {
  await hostile(SHORT, "while (true) {}", (outcome) => {
    assert.equal(outcome.ok, false);
    assert.equal(outcome.error, "The code ran for more than 3000 ms, so it was stopped");
  });
});

Deno.test("sandbox stops an endless async loop at the time limit", async () => {
  await hostile(SHORT, "for (;;) await new Promise((r) => setTimeout(r, 0));", (outcome) => {
    assert.equal(outcome.ok, false);
    assert.equal(outcome.error, "The code ran for more than 3000 ms, so it was stopped");
  });
});

/** A run in a process of its own standing for the server (its memory is its own), as it saw it. */
async function inHost(code: string): Promise<{
  pid: number;
  pidAfter: number;
  rssBefore: number;
  rssAfter: number;
  outcome: RunOutcome;
  normal: RunOutcome;
}> {
  const host = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("./_code_sandbox_host.ts", import.meta.url).pathname, code],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const writer = host.stdin.getWriter();
  await writer.write(new TextEncoder().encode(JSON.stringify(LIMITS)));
  await writer.close();
  const { code: exit, stdout } = await withHangGuard(host.output(), "the host process", 60_000);
  assert.equal(exit, 0);
  return JSON.parse(new TextDecoder().decode(stdout));
}

/** Far below the heap cap and what each case asks for: none of it came to the server. */
const HOST_GROWTH_BYTES = 32 * 1024 * 1024;

Deno.test("sandbox: a memory bomb ends its child alone at the heap cap; the server goes on, its memory unchanged", async () => {
  // A MiB or more of heap at a time (2^18 elements), counted on the console: the count shows
  // where the cap stopped it.
  const heap = await inHost(
    "const kept = []; for (let i = 1; ; i++) { kept.push(new Array(1 << 18).fill(i)); console.log(i); }",
  );
  assert.equal(heap.outcome.ok, false);
  assert.equal(
    heap.outcome.error,
    "The code ran out of memory (the sandbox's heap is capped at 64 MB), so its process ended",
  );
  const counted = heap.outcome.console.trim().split("\n").map(Number);
  assert.ok(counted.length > 0 && counted.length < 2 * LIMITS.heapMb, `${counted.length} MiB`);
  // ArrayBuffers live outside the heap: RLIMIT_DATA (prlimit) refuses them past a bound.
  const buffers = await inHost(
    "const kept = []; for (let i = 0; i < 64; i++) kept.push(new Uint8Array(64 * 1024 * 1024).fill(1)); return kept.length;",
  );
  assert.equal(buffers.outcome.ok, false);
  assert.equal(buffers.outcome.error, "Array buffer allocation failed");
  for (const seen of [heap, buffers]) {
    assert.equal(seen.pidAfter, seen.pid);
    assert.ok(
      seen.rssAfter - seen.rssBefore < HOST_GROWTH_BYTES,
      `${seen.rssAfter - seen.rssBefore}`,
    );
    assert.deepEqual(seen.normal.value, 2);
  }
  // And in this process too, with a normal run after, as in every case.
  await hostile(LIMITS, "const a = []; for (;;) a.push(new Array(1 << 18).fill(1));", (outcome) => {
    assert.match(outcome.error!, /^The code ran out of memory/);
  });
});

Deno.test("sandbox keeps 10 MB of console output to its cap, with a marker, buffering none of the rest", async () => {
  const code =
    "const line = 'y'.repeat(999); for (let i = 0; i < 10_000; i++) console.log(line); return 'printed';";
  const seen = await inHost(code);
  assert.ok(
    seen.rssAfter - seen.rssBefore < HOST_GROWTH_BYTES,
    `${seen.rssAfter - seen.rssBefore}`,
  );
  await hostile(LIMITS, code, (outcome) => {
    assert.deepEqual(outcome, seen.outcome);
    assert.equal(outcome.ok, true);
    assert.equal(outcome.value, "printed");
    assert.equal(outcome.consoleCut, true);
    const [kept, marker] = outcome.console.split("\n[console output cut");
    assert.equal(new TextEncoder().encode(kept).length, LIMITS.maxConsoleBytes);
    assert.equal(marker, ` at ${LIMITS.maxConsoleBytes} bytes]\n`);
  });
});

Deno.test("sandbox refuses the inner call past maxCalls with an error the script catches", async () => {
  const { callTool, calls } = adder();
  const sandbox = createSandbox({ ...LIMITS, maxCalls: 3 }, MARKED);
  try {
    const outcome = await sandbox.run(
      `for (let i = 0; i < 4; i++) {
         try { await tools.add({ a: i, b: 0 }); } catch (e) { return e.message; }
       }
       return "all four went through";`,
      callTool,
      never,
    );
    assert.deepEqual(outcome, {
      ok: true,
      value:
        `Cannot call tool "add": this run has made its 3 inner call(s), the most one run may make`,
      console: "",
      consoleCut: false,
      calls: 3,
    });
    assert.equal(calls.length, 3);
  } finally {
    await sandbox.close();
  }
});

Deno.test("sandbox: a tool's refusal is an error the script catches", async () => {
  await hostile(
    LIMITS,
    `try { await tools.nope({}); } catch (e) { return e.message; }`,
    (outcome) => {
      assert.deepEqual(outcome.value, `Unknown tool "nope"`);
    },
  );
});

Deno.test("sandbox: prototype tricks on tools reach nothing of the runtime", async () => {
  const code = `
    const out = {};
    const attempt = (name, f) => { try { out[name] = f(); } catch (e) { out[name] = "threw " + e.constructor.name; } };
    attempt("getPrototypeOf", () => Object.getPrototypeOf(tools));
    attempt("frozen", () => Object.isFrozen(tools));
    attempt("setPrototypeOf", () => Object.setPrototypeOf(tools, { add: () => "mine" }));
    attempt("assign __proto__", () => { tools.__proto__ = { add: () => "mine" }; return "assigned"; });
    attempt("assign a tool", () => { tools.add = () => "mine"; return "assigned"; });
    attempt("delete a tool", () => { delete tools.add; return "deleted"; });
    attempt("Function from tools", () => typeof tools.constructor.constructor("return globalThis.Deno")());
    attempt("same function twice", () => tools.add === tools["add"]);
    attempt("keys", () => Object.keys(tools));
    Object.prototype.polluted = "by the code";
    out["call through .call"] = await tools["add"].call(null, { a: 2, b: 3 });
    out["apply"] = await Reflect.apply(tools.add, undefined, [{ a: 4, b: 5 }]);
    return out;`;
  await hostile(LIMITS, code, (outcome) => {
    assert.deepEqual(outcome.value, {
      getPrototypeOf: null,
      frozen: true,
      setPrototypeOf: "threw TypeError",
      "assign __proto__": "threw TypeError",
      "assign a tool": "threw TypeError",
      "delete a tool": "threw TypeError",
      "Function from tools": "undefined",
      "same function twice": true,
      keys: [],
      "call through .call": { sum: 5 },
      apply: { sum: 9 },
    });
    assert.equal(outcome.calls, 2);
  });
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

Deno.test("sandbox: the code cannot write protocol lines or forge a result or done line", async () => {
  const code = `
    const tries = [
      () => Deno.stdout.writeSync(new TextEncoder().encode('{"done":{"ok":true,"value":"forged"}}\\n')),
      () => new Worker("data:text/javascript,Deno.stdout.writeSync(new TextEncoder().encode('{\\"done\\":{\\"ok\\":true,\\"value\\":\\"forged\\"}}\\\\n'))", { type: "module" }),
      () => import("node:process").then((p) => p.stdout.write('{"done":{"ok":true,"value":"forged"}}\\n')),
      () => globalThis[Symbol.for("Deno.internal")].core.print('{"done":{"ok":true,"value":"forged"}}\\n'),
      () => alert('\\n{"done":{"ok":true,"value":"forged"}}'),
      () => prompt('\\n{"done":{"ok":true,"value":"forged"}}'),
    ];
    const refused = [];
    for (const t of tries) {
      try { await t(); refused.push(false); } catch { refused.push(true); }
    }
    console.log('\\n{"done":{"ok":true,"value":"forged"}}\\n{"result":{"id":1,"value":"forged"}}');
    // The runner's own serialisation, taken over: it took JSON.stringify before the code ran.
    JSON.stringify = () => '{"done":{"ok":true,"value":"forged"}}';
    return refused;`;
  await hostile(LIMITS, code, (outcome) => {
    assert.deepEqual(outcome.value, [true, true, true, true, true, true]);
    assert.equal(
      outcome.console,
      '\n{"done":{"ok":true,"value":"forged"}}\n{"result":{"id":1,"value":"forged"}}\n',
    );
  });
});

Deno.test("sandbox: the child's lines are read as untrusted input", () => {
  assert.deepEqual(parseChildLine('{"done":{"ok":true,"value":1}}'), {
    kind: "done",
    ok: true,
    value: 1,
  });
  assert.deepEqual(parseChildLine('{"call":{"id":1,"name":"add","args":{"a":1}}}'), {
    kind: "call",
    id: 1,
    name: "add",
    args: { a: 1 },
  });
  for (
    const [line, why] of [
      ['{"result":{"id":1,"value":"forged"}}', 'a line of unknown kind "result"'],
      ["not json", "a line that is not JSON"],
      ["[1]", "a line that is not a JSON object"],
      ['{"log":"a","cut":true}', "a line with other than one key"],
      ['{"log":1}', 'a "log" line whose text is not a string'],
      [
        '{"call":{"id":0,"name":"add","args":{}}}',
        'a "call" line without an id, a name and object arguments',
      ],
      [
        '{"call":{"id":1,"name":"add","args":[]}}',
        'a "call" line without an id, a name and object arguments',
      ],
      ['{"done":{"ok":"yes"}}', 'a "done" line that is neither a value nor an error'],
    ]
  ) {
    assert.deepEqual(parseChildLine(line), { kind: "bad", why }, line);
  }
});

Deno.test("sandbox fails a run whose result is over maxResultBytes, saying so", async () => {
  await hostile(LIMITS, `return "z".repeat(${LIMITS.maxResultBytes});`, (outcome) => {
    assert.deepEqual(outcome, {
      ok: false,
      error: `The code's result is ${
        LIMITS.maxResultBytes + 2
      } bytes of JSON, over the ${LIMITS.maxResultBytes} a run may return`,
      console: "",
      consoleCut: false,
      calls: 0,
    });
  });
});

Deno.test("sandbox returns a thrown error's message", async () => {
  await hostile(
    LIMITS,
    `console.log("before"); throw new Error("the reason it failed");`,
    (outcome) => {
      assert.deepEqual(outcome, {
        ok: false,
        error: "the reason it failed",
        console: "before\n",
        consoleCut: false,
        calls: 0,
      });
    },
  );
});

Deno.test("sandbox ends a run when the caller's signal aborts, and aborts the inner call", async () => {
  const sandbox = createSandbox(LIMITS, MARKED);
  try {
    const caller = new AbortController();
    let innerAborted: Promise<void> | undefined;
    const outcome = await withHangGuard(
      sandbox.run(
        "await tools.wait({}); return 'not reached';",
        (_name, _args, signal) => {
          innerAborted = new Promise((resolve) =>
            signal.addEventListener("abort", () => resolve())
          );
          caller.abort();
          return new Promise(() => {});
        },
        caller.signal,
      ),
      "the aborted run",
    );
    assert.deepEqual(outcome, {
      ok: false,
      error: "The run was cancelled",
      console: "",
      consoleCut: false,
      calls: 1,
    });
    await withHangGuard(innerAborted!, "the inner call's abort");
    assert.deepEqual(sandboxChildren(), []);
    const { callTool } = adder();
    assert.equal(
      (await sandbox.run("return await tools.add({ a: 1, b: 1 })", callTool, never)).ok,
      true,
    );
  } finally {
    await sandbox.close();
  }
});

Deno.test("sandbox's pool: children wait started, each is used once, and the pool is refilled", async () => {
  const sandbox = createSandbox({ ...LIMITS, poolSize: 2 }, MARKED);
  try {
    await eventually(() => runnersReady(2), "two children waiting");
    const waiting = sandboxChildren();
    const { callTool } = adder();
    const outcome = await sandbox.run("return await tools.add({ a: 2, b: 2 })", callTool, never);
    assert.deepEqual(outcome.value, { sum: 4 });
    // One of the two ran the code and is gone; a new one took its place.
    await eventually(() => runnersReady(2), "the pool refilled");
    const now = sandboxChildren();
    assert.equal(now.filter((pid) => waiting.includes(pid)).length, 1);
    assert.equal(now.filter((pid) => !waiting.includes(pid)).length, 1);
    // Three runs at once: two children from the pool, one started for the third.
    const together = await Promise.all(
      [1, 2, 3].map((n) =>
        sandbox.run(`return await tools.add({ a: ${n}, b: 10 })`, callTool, never)
      ),
    );
    assert.deepEqual(together.map((outcome) => outcome.value), [{ sum: 11 }, { sum: 12 }, {
      sum: 13,
    }]);
  } finally {
    await sandbox.close();
  }
  assert.deepEqual(sandboxChildren(), []);
});

Deno.test("sandbox's close() kills waiting and running children and ends the run", async () => {
  const sandbox = createSandbox({ ...LIMITS, poolSize: 2 }, MARKED);
  await eventually(() => runnersReady(2), "two children waiting");
  const { callTool } = adder();
  let started!: () => void;
  const running = new Promise<void>((resolve) => started = resolve);
  const run = sandbox.run(
    "await tools.started({}); await new Promise(() => {});",
    (name, args, signal) => {
      started();
      return callTool(name, args, signal).catch(() => ({}));
    },
    never,
  );
  await withHangGuard(running, "the run's first call");
  await withHangGuard(sandbox.close(), "close()");
  assert.deepEqual(sandboxChildren(), []);
  const outcome = await withHangGuard(run, "the run closed under it");
  assert.equal(outcome.ok, false);
  assert.equal(outcome.error, "The code sandbox was closed");
  assert.equal(
    (await sandbox.run("return 1", callTool, never)).error,
    "The code sandbox is closed",
  );
});

Deno.test("sandbox refuses limits that are not whole numbers in range, naming the limit", () => {
  assert.throws(
    () => createSandbox({ ...LIMITS, heapMb: 1.5 }),
    {
      message:
        `Cannot create the code sandbox: "heapMb" must be a whole number from 16 to ${Number.MAX_SAFE_INTEGER}, not "1.5"`,
    },
  );
  assert.throws(
    () => createSandbox({ ...LIMITS, timeoutMs: 0 }),
    {
      message:
        `Cannot create the code sandbox: "timeoutMs" must be a whole number from 1 to 2147483647, not "0"`,
    },
  );
  assert.throws(
    () => createSandbox({ ...LIMITS, timeoutMs: 2 ** 31 }),
    {
      message:
        `Cannot create the code sandbox: "timeoutMs" must be a whole number from 1 to 2147483647, not "2147483648"`,
    },
  );
  assert.deepEqual(sandboxChildren(), []);
});

Deno.test("sandbox shows an error nobody awaited on the console, and the run goes on", async () => {
  await hostile(
    LIMITS,
    `setTimeout(() => { throw new Error("late"); }, 0);
     Promise.reject(new Error("nobody waits"));
     await new Promise((resolve) => setTimeout(resolve, 20));
     return "went on";`,
    (outcome) => {
      assert.equal(outcome.value, "went on");
      assert.equal(
        outcome.console.split("\n").sort().join("\n"),
        "\nUncaught (in promise) nobody waits\nUncaught late",
      );
    },
  );
});
