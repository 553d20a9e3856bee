// The hostile clients of issue 34 against a real `main.ts --http` with the defaults: what the
// memory test (tests/memory_worst_case_test.ts) and the bench (bench/hostile_memory.ts) drive.
// Each probe attacks one thing a bound must count: answers nobody reads, `initialize` bodies
// of the shape that costs a parser most, GET streams opened and closed, finished tasks. The
// server's peak RSS is its VmHWM; what it holds is the heap and buffers after a full collection.
import { ok, strictEqual } from "node:assert/strict";
import {
  type HttpServerProcess,
  readLines,
  spawnHttpServer,
  withHangGuard,
} from "./_server_process.ts";
import { initializeBody, modernBody, modernHeaders } from "./_http_server.ts";
import { statusBytes } from "./_processes.ts";

export const MIB = 1024 * 1024;
const LEGACY = "2025-11-25";
const TASKS = "io.modelcontextprotocol/tasks";
const STALLED_READER = new URL("./fixtures/bounds/stalled_reader.py", import.meta.url).pathname;
const encoder = new TextEncoder();

/** The memory probe: what the server's JavaScript holds after a full collection. */
const MEMORY_TOOL = new URL("./fixtures/bounds/tools/memory.ts", import.meta.url).pathname;

/** The server's files besides the memory probe and the 8 MiB resource: an echo, a big task. */
const FILES: Record<string, string> = {
  "tools/echo.ts": `export default {
  description: "Echoes its text",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  handler: ({ text }: { text: string }) => text,
};
`,
  "tools/slow_big.ts": `export default {
  description: "Waits a little, then returns a text of the given length (a task, if asked)",
  inputSchema: {
    type: "object",
    properties: { length: { type: "integer", minimum: 0, maximum: 67108864 } },
    required: ["length"],
  },
  task: "optional",
  handler: async ({ length }: { length: number }) => {
    // A turn first: the task is made once the handler's first turn is over, and a pause of the
    // server's (a collection) can stretch that turn past a wait begun in it; a wait begun after
    // it ends after the task exists.
    await new Promise((resolve) => setTimeout(resolve, 0));
    await new Promise((resolve) => setTimeout(resolve, 200));
    return "x".repeat(length);
  },
};
`,
};

/** The resource every unread-answers probe asks for: the default --max-resource-bytes, less 1 KiB. */
export const BIG_RESOURCE = "toolshed:///big.txt";
const BIG_RESOURCE_BYTES = 8 * MIB - 1024;

export interface HostileTarget extends HttpServerProcess {
  readonly port: number;
  /** Peak resident memory so far, in bytes (VmHWM). */
  peakRss(): number;
  /** Resident memory now, in bytes (VmRSS). */
  rss(): number;
  /** What its JavaScript holds after a full collection (heap in use and buffers), in bytes. */
  held(): Promise<number>;
  /** Stops the server and removes its folder. */
  close(): Promise<{ code: number; stderr: string[] }>;
}

/** `main.ts --http 127.0.0.1:0 --dir <the hostile folder> <args>`: the defaults unless `args`. */
export async function spawnHostileTarget(args: string[] = []): Promise<HostileTarget> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed-hostile-" });
  await Deno.mkdir(`${dir}/tools`);
  await Deno.mkdir(`${dir}/resources`);
  for (const [path, text] of Object.entries(FILES)) {
    await Deno.writeTextFile(`${dir}/${path}`, text);
  }
  await Deno.copyFile(MEMORY_TOOL, `${dir}/tools/memory.ts`);
  await Deno.writeTextFile(`${dir}/resources/big.txt`, "r".repeat(BIG_RESOURCE_BYTES));
  let server: HttpServerProcess;
  try {
    // --expose-gc only adds gc() for the memory tool; the collector is the default one.
    server = await spawnHttpServer(["--dir", dir, ...args], {}, {
      denoFlags: ["--v8-flags=--expose-gc"],
    });
  } catch (error) {
    await Deno.remove(dir, { recursive: true });
    throw error;
  }
  const port = Number(new URL(server.url).port);
  return {
    ...server,
    port,
    peakRss: () => statusBytes(server.pid, "VmHWM"),
    rss: () => statusBytes(server.pid, "VmRSS"),
    async held() {
      const answer = await call(server.url, "memory", {});
      return Number(answer.result?.content?.[0].text);
    },
    async close() {
      try {
        return await server.stop();
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  };
}

/** The parts of a JSON-RPC answer the probes read. */
interface Answer {
  result?: { content?: { text: string }[]; taskId?: string; status?: string };
  error?: { code: number; message: string };
}

/** A 2026-07-28 `tools/call`, its answer. */
export async function call(
  url: string,
  name: string,
  args: Record<string, unknown>,
  capabilities: Record<string, unknown> = {},
): Promise<Answer> {
  const response = await withHangGuard(
    fetch(url, {
      method: "POST",
      headers: modernHeaders("tools/call", name),
      body: modernBody(1, "tools/call", { name, arguments: args }, capabilities),
    }),
    `a call of ${name}`,
  );
  strictEqual(response.status, 200, `the call of ${name}`);
  return await response.json();
}

/** A plain echo: the server still serves. */
export async function echoes(target: HostileTarget, text: string): Promise<void> {
  const answer = await call(target.url, "echo", { text });
  strictEqual(answer.result?.content?.[0].text, text);
}

/** What one probe left: connections still held open by the attacker, to let go. */
export interface Attack {
  /** What the probe did, in words, for the figures. */
  readonly did: string;
  release(): Promise<void>;
}

/**
 * `connections` clients each ask for the 8 MiB resource and read nothing (a 4 KiB receive
 * window), held until released; resolves once every answer is made (its first byte arrived, or
 * its connection was closed).
 */
export async function unreadAnswers(target: HostileTarget, connections = 60): Promise<Attack> {
  const folder = await Deno.makeTempDir({ prefix: "toolshed-unread-" });
  const body = modernBody(1, "resources/read", { uri: BIG_RESOURCE });
  const headers = Object.entries({
    ...modernHeaders("resources/read", BIG_RESOURCE),
    accept: "application/json",
    host: "127.0.0.1",
    "content-length": String(encoder.encode(body).length),
  }).map(([name, value]) => `${name}: ${value}\r\n`).join("");
  const request = `POST /mcp HTTP/1.1\r\n${headers}\r\n${body}`;
  const file = `${folder}/request.http`;
  await Deno.writeTextFile(file, request);
  const child = new Deno.Command("python3", {
    args: [STALLED_READER, "--wait", String(target.port), ...Array(connections).fill(file)],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const lines = readLines(child.stdout);
  strictEqual((await withHangGuard(lines.next(), "the stalled reader")).value, "sent");
  const answered = (await withHangGuard(lines.next(), "every unread answer made", 120_000)).value;
  ok(typeof answered === "string" && answered.startsWith("answered "), String(answered));
  return {
    did: `${connections} connections asked an 8 MiB resource and read nothing (${
      answered.slice("answered ".length)
    } got a first byte)`,
    async release() {
      await child.stdin.close();
      await child.status;
      await Deno.remove(folder, { recursive: true });
    },
  };
}

/** `{"experimental":{"x":[{},{},…]}}` of about `bytes` characters: a parser's worst per byte. */
function heavyCapabilities(bytes: number): unknown {
  return { experimental: { x: Array.from({ length: Math.floor(bytes / 3) }, () => ({})) } };
}

/**
 * `sessions` clients at once each open a 2025-era session with an `initialize` of about
 * `bytes` (the worst shape), retrying on 503 (the request budget is full); the session ids.
 */
export async function heavyInitializes(
  target: HostileTarget,
  sessions = 8,
  bytes = 4 * MIB - 128 * 1024,
): Promise<Attack & { ids: string[] }> {
  const body = initializeBody(LEGACY, heavyCapabilities(bytes - 200));
  const length = encoder.encode(body).length;
  const open = async (): Promise<string> => {
    for (let attempt = 0; attempt < 400; attempt++) {
      let response: Response;
      try {
        response = await withHangGuard(
          fetch(target.url, {
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json" },
            body,
          }),
          "an initialize",
          120_000,
        );
      } catch (error) {
        // Refused while it was still sending (503, then the connection closed): again.
        if (!(error instanceof TypeError)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 25));
        continue;
      }
      await response.body?.cancel();
      if (response.status === 200) return response.headers.get("mcp-session-id")!;
      strictEqual(response.status, 503, "only the request budget may refuse it");
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error("An initialize was refused 400 times");
  };
  const ids = await Promise.all(Array.from({ length: sessions }, open));
  return {
    ids,
    did: `${sessions} sessions opened at once by initialize bodies of ${
      (length / MIB).toFixed(2)
    } MiB each (${(sessions * length / MIB).toFixed(0)} MiB in all)`,
    release: () => Promise.resolve(),
  };
}

/** A 2025-era session with a small `initialize`: its id. */
export async function openSession(target: HostileTarget): Promise<string> {
  const response = await fetch(target.url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: initializeBody(LEGACY),
  });
  await response.body?.cancel();
  strictEqual(response.status, 200, "initialize");
  return response.headers.get("mcp-session-id")!;
}

/** One session's client opens its GET stream, waits for the priming event, closes; `cycles` times. */
export async function streamCycles(target: HostileTarget, cycles = 60_000): Promise<Attack> {
  const id = await openSession(target);
  const headers = {
    "mcp-session-id": id,
    "mcp-protocol-version": LEGACY,
    accept: "text/event-stream",
  };
  let conflicts = 0;
  for (let opened = 0; opened < cycles;) {
    const controller = new AbortController();
    const response = await withHangGuard(
      fetch(target.url, { headers, signal: controller.signal }),
      "a GET stream",
    );
    if (response.status === 409) {
      // The server has not yet heard that the last one closed: again in a moment.
      await response.body?.cancel();
      ok(++conflicts < cycles, "the server keeps answering 409");
      await new Promise((resolve) => setTimeout(resolve, 1));
      continue;
    }
    strictEqual(response.status, 200, "a GET stream");
    const reader = response.body!.getReader();
    await withHangGuard(reader.read(), "the priming event");
    controller.abort();
    await reader.closed.catch(() => {});
    opened++;
  }
  return {
    did: `one session opened and closed its GET stream ${cycles} times`,
    release: () => Promise.resolve(),
  };
}

/**
 * `count` task calls whose results are `bytes` long, `inFlight` at a time, each polled with
 * `tasks/get` until finished: the finished tasks the store keeps.
 */
export async function finishedTasks(
  target: HostileTarget,
  count = 150,
  bytes = 3_000_000,
  inFlight = 8,
): Promise<Attack> {
  const capabilities = { extensions: { [TASKS]: {} } };
  let next = 0;
  let completed = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const created = await call(target.url, "slow_big", { length: bytes }, capabilities);
      const taskId = created.result?.taskId;
      ok(typeof taskId === "string", `a task: ${JSON.stringify(created).slice(0, 200)}`);
      for (let poll = 0; poll < 500; poll++) {
        const response = await withHangGuard(
          fetch(target.url, {
            method: "POST",
            headers: modernHeaders("tasks/get", taskId),
            body: modernBody(2, "tasks/get", { taskId }, capabilities),
          }),
          "tasks/get",
        );
        const status = ((await response.json()) as Answer).result?.status;
        if (status === "completed") {
          completed++;
          break;
        }
        ok(status === "working", `task ${taskId}: ${status}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  strictEqual(completed, count, "every task finished");
  return {
    did: `${count} tasks finished with results of ${(bytes / 1e6).toFixed(0)} MB`,
    release: () => Promise.resolve(),
  };
}
