// deno-lint-ignore-file no-console -- a benchmark prints its table for people
// The memory bench (deno task bench:memory): how much memory one request costs the server,
// for the worst request shapes we know, as a factor of the request's size.
//
//   deno run -A bench/memory.ts [--sizes 1,8,32] [--quick] [--shapes NAME,…] [--timeout S]
//                               [--depth N] [--server DIR]
//
// Each measurement is a fresh server process (so that peaks do not mix) serving the fixture
// tools in bench/tools_memory: one tiny call to see it ready, then ONE 2026-07-28 tools/call
// whose `items` argument has the given shape and fills a line of the given size. The answer
// must carry that request's id; the server's peak RSS (VmHWM) is read once it is in. The
// baseline is an idle server (start, one tiny call). The factor is
// (peak − idle) / line bytes. A server that dies before answering (V8 out of memory, under
// the heap cap below) or takes longer than the timeout is reported as such, with the
// highest VmHWM seen while polling it.
//
// Prints a table and writes bench/results/memory-latest.json. --quick runs 1 MiB only.
// --server measures the main.ts of another copy of toolshed (say, an export of the last
// commit, to compare before and after a change) with this copy's fixture tools.
import { parseArgs } from "node:util";
import { readLines } from "../tests/_server_process.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const TOOLS = `${ROOT}bench/tools_memory`;
const KIB = 1024;
const MIB = 1024 * KIB;
/** A runaway server dies at this heap size instead of eating the machine. */
const HEAP_CAP_MB = 4096;
/** Idle servers measured; the baseline is their median. */
const IDLE_RUNS = 3;
/** How often a server's VmHWM is read while it works, to have a figure if it dies. */
const POLL_MS = 50;
/** How long a fresh server may take to answer its first, tiny call. */
const READY_TIMEOUT_MS = 30_000;
/**
 * Deepest nesting in the deep shape (--depth); longer lines repeat nests of this depth.
 * V8's JSON.parse takes any depth (16 Mi levels tried), and so does the server today, so by
 * default one nest fills the whole line: a 32 MiB line is 16 Mi levels deep.
 */
const DEPTH_CAP = 16 * 1024 * 1024;
/** Most stderr kept per server, from its end (where a fatal error is). */
const STDERR_TAIL_CHARS = 4 * KIB;

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

type AnswerKind = "result" | "isError" | "rpc error" | "crash" | "timeout" | "wrong answer";

interface Shape {
  name: string;
  /** What `items` looks like, for the table. */
  looks(items: string): string;
  /**
   * True when `items` is an array of many items, each of which the strings tool rejects:
   * the shape is then also sent to it (the error flood). Not the deep shape, whose one
   * item is one error, nor distinct-objects, which floods with a third of the items that
   * numbers has in a line of the same size (and would add a minute to the run).
   */
  flood: boolean;
  /** The JSON text of `items`, at most `budget` bytes (all shapes are ASCII). */
  items(budget: number): string;
}

/** `open`, `unit` repeated with `separator` between, `close`: as many units as fit. */
function repeated(open: string, unit: string, separator: string, close: string, budget: number) {
  const count = Math.max(
    1,
    Math.floor(
      (budget - open.length - close.length + separator.length) /
        (unit.length + separator.length),
    ),
  );
  return open + `${unit}${separator}`.repeat(count - 1) + unit + close;
}

/** `open`, `unit(0)`, `unit(1)`, … with `separator` between, `close`: as many as fit. */
function numbered(
  open: string,
  unit: (i: number) => string,
  separator: string,
  close: string,
  budget: number,
): string {
  const parts: string[] = [];
  let length = open.length + close.length;
  for (let i = 0;; i++) {
    const part = unit(i);
    const added = part.length + (i === 0 ? 0 : separator.length);
    if (i > 0 && length + added > budget) break;
    parts.push(part);
    length += added;
  }
  return open + parts.join(separator) + close;
}

function nest(depth: number): string {
  return "[".repeat(depth) + "]".repeat(depth);
}

function makeShapes(depthCap: number): Shape[] {
  return [
    {
      name: "numbers",
      looks: () => "[0,0,…]",
      flood: true,
      items: (budget) => repeated("[", "0", ",", "]", budget),
    },
    {
      name: "arrays",
      looks: () => "[[],[],…]",
      flood: true,
      items: (budget) => repeated("[", "[]", ",", "]", budget),
    },
    {
      name: "objects",
      looks: () => "[{},{},…]",
      flood: true,
      items: (budget) => repeated("[", "{}", ",", "]", budget),
    },
    {
      // Each object has a key no other has, so each needs a hidden class (map) of its own.
      name: "distinct-objects",
      looks: () => '[{"k0":0},{"k1":0},…]',
      flood: false,
      items: (budget) => numbered("[", (i) => `{"k${i}":0}`, ",", "]", budget),
    },
    {
      name: "deep",
      looks: (items) => {
        const depth = items.indexOf("]") - 1;
        const nests = (items.length - 1) / (2 * depth + 1);
        return `[[[…]]] ${depth.toLocaleString("en-US")} deep${nests > 1 ? `, ×${nests}` : ""}`;
      },
      flood: false,
      items: (budget) => {
        const inner = budget - 2;
        if (inner < 2 * depthCap) return `[${nest(Math.max(0, Math.floor(inner / 2)))}]`;
        return repeated("[", nest(depthCap), ",", "]", budget);
      },
    },
    {
      name: "keys",
      looks: () => '{"k0":0,"k1":0,…}',
      flood: false,
      items: (budget) => numbered("{", (i) => `"k${i}":0`, ",", "}", budget),
    },
    {
      name: "string",
      looks: () => '"aaaa…"',
      flood: false,
      items: (budget) => `"${"a".repeat(Math.max(0, budget - 2))}"`,
    },
    {
      name: "escapes",
      looks: () => '"\\u00e9\\u00e9…"',
      flood: false,
      items: (budget) => repeated('"', "\\u00e9", "", '"', budget),
    },
  ];
}

/** The tool that takes any value, and the one that rejects every item of an array. */
const TOOL_ACCEPTS = { name: "accept", expected: "result" } as const;
const TOOL_REJECTS = { name: "strings", expected: "isError" } as const;

interface Case {
  shape: Shape;
  tool: typeof TOOL_ACCEPTS | typeof TOOL_REJECTS;
  sizeBytes: number;
}

interface Row {
  shape: string;
  looks: string;
  tool: string;
  sizeMiB: number;
  lineBytes: number;
  expected: string;
  answer: AnswerKind;
  /** The start of the answer's text, the RPC error's message, or why there is none. */
  detail: string;
  /** From the first byte written to the answer read (or the crash, or the timeout). */
  wallMs: number;
  /** VmHWM after the tiny first call, in this process. */
  readyRssMb: number;
  /** VmHWM when the answer came; for a crash or timeout, the highest seen while polling. */
  peakRssMb: number;
  /** (peak − idle baseline) / line bytes. */
  factor: number;
}

function request(id: number, tool: string, items: string): string {
  // `items` is generated JSON text; the rest goes through JSON.stringify. The marker is
  // replaced by the text so that a 32 MiB value is not parsed and stringified again.
  const marker = "__ITEMS__";
  const envelope = JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: tool, arguments: { items: marker }, _meta: META },
  });
  return envelope.replace(`"${marker}"`, () => items);
}

/**
 * The request line (without its newline) for a case, as close to its size as the shape
 * allows, and what its `items` look like.
 */
function caseLine(c: Case): { line: string; looks: string } {
  const overhead = request(2, c.tool.name, "").length;
  const items = c.shape.items(c.sizeBytes - overhead);
  const line = request(2, c.tool.name, items);
  if (line.length > c.sizeBytes) {
    throw new Error(
      `Shape "${c.shape.name}" made a line of ${line.length} bytes for ${c.sizeBytes}`,
    );
  }
  JSON.parse(line); // the bench's own check that every shape is well-formed JSON
  return { line, looks: c.shape.looks(items) };
}

interface Server {
  pid: number;
  /** The next stdout line; null at end of output. */
  nextLine(): Promise<string | null>;
  write(bytes: Uint8Array): Promise<void>;
  /** Resolves when the process has exited. */
  exited: Promise<Deno.CommandStatus>;
  /** The highest VmHWM seen so far, in KiB. */
  peakKib(): number;
  stderrTail(): string;
  stop(): Promise<void>;
}

function spawnServer(serverMain: string, maxMessageBytes: number): Server {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      `--v8-flags=--max-old-space-size=${HEAP_CAP_MB}`,
      serverMain,
      "--tools",
      TOOLS,
      "--max-message-bytes",
      String(maxMessageBytes),
    ],
    // In its own directory, so that it runs with its own deno.json and lock file.
    cwd: serverMain.slice(0, serverMain.lastIndexOf("/")),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = readLines(child.stdout);
  let stderr = "";
  const stderrDone = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      stderr = (stderr + decoder.decode(chunk, { stream: true })).slice(-STDERR_TAIL_CHARS);
    }
  })();
  let peak = 0;
  let running = true;
  const poll = () => {
    if (running) peak = Math.max(peak, vmHwmKib(child.pid));
  };
  const poller = setInterval(poll, POLL_MS);
  const exited = child.status.finally(() => {
    running = false;
    clearInterval(poller);
  });
  return {
    pid: child.pid,
    async nextLine() {
      const next = await lines.next();
      return next.done ? null : next.value;
    },
    write: (bytes) => writer.write(bytes),
    exited,
    peakKib() {
      poll();
      return peak;
    },
    stderrTail: () => stderr,
    async stop() {
      if (running) child.kill("SIGKILL");
      await exited;
      await writer.close().catch(() => {});
      await lines.return(undefined).catch(() => {});
      await stderrDone.catch(() => {});
    },
  };
}

/** VmHWM of a live process in KiB; 0 when it cannot be read (the process is gone). */
function vmHwmKib(pid: number): number {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    return Number(status.match(/^VmHWM:\s+(\d+) kB$/m)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

interface Outcome {
  answer: AnswerKind;
  detail: string;
}

/**
 * Waits for the answer to request `id`: the first stdout line must be it. Settles on the
 * answer, the process's exit or the timeout, whichever comes first.
 */
async function awaitAnswer(server: Server, id: number, timeoutMs: number): Promise<Outcome> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<Outcome>((resolve) => {
    timer = setTimeout(
      () => resolve({ answer: "timeout", detail: `no answer within ${timeoutMs / 1000} s` }),
      timeoutMs,
    );
  });
  const answer = server.nextLine().then((line) =>
    line === null ? server.exited.then((status) => crash(server, status)) : classify(line, id)
  );
  const exit = server.exited.then((status) => crash(server, status));
  try {
    // An exit can race the last line of output: an answer that was written wins.
    return await Promise.race([answer, timeout, exit.then((c) => settleSoon(answer, c))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Gives an answer already on its way a moment to arrive before reporting the crash. */
function settleSoon(answer: Promise<Outcome>, crashed: Outcome): Promise<Outcome> {
  return Promise.race([answer, new Promise<Outcome>((r) => setTimeout(() => r(crashed), 200))]);
}

function crash(server: Server, status: Deno.CommandStatus): Outcome {
  const tail = server.stderrTail();
  const oom = /out of memory|heap limit|allocation failed/i.test(tail);
  const how = status.signal ? `signal ${status.signal}` : `exit code ${status.code}`;
  return {
    answer: "crash",
    detail: `${oom ? "V8 out of memory" : "exited"} (${how})${
      oom ? "" : `: ${tail.trim().split("\n").at(-1)?.slice(0, 160) ?? ""}`
    }`,
  };
}

function classify(line: string, id: number): Outcome {
  let message: { id?: unknown; result?: Record<string, unknown>; error?: { code?: unknown } };
  try {
    message = JSON.parse(line);
  } catch {
    return { answer: "wrong answer", detail: `not JSON: ${line.slice(0, 120)}` };
  }
  if (message.id !== id) {
    return { answer: "wrong answer", detail: `id ${JSON.stringify(message.id)}, not ${id}` };
  }
  if (message.error) {
    return { answer: "rpc error", detail: line.slice(0, 200) };
  }
  const result = message.result ?? {};
  const content = Array.isArray(result.content) ? result.content : [];
  const text = String((content[0] as { text?: unknown } | undefined)?.text ?? "");
  return {
    answer: result.isError === true ? "isError" : "result",
    detail: text.length > 160 ? `${text.slice(0, 120)}… ${text.slice(-40)}` : text,
  };
}

const encoder = new TextEncoder();

/** Starts a server and makes one tiny call; the server is then ready and warm. */
async function readyServer(serverMain: string, maxMessageBytes: number): Promise<Server> {
  const server = spawnServer(serverMain, maxMessageBytes);
  await server.write(encoder.encode(request(1, TOOL_ACCEPTS.name, "[]") + "\n"));
  const ready = await awaitAnswer(server, 1, READY_TIMEOUT_MS);
  if (ready.answer !== "result") {
    await server.stop();
    throw new Error(`The server did not answer its first call: ${ready.answer}, ${ready.detail}`);
  }
  return server;
}

async function measureIdle(serverMain: string, maxMessageBytes: number): Promise<number> {
  const server = await readyServer(serverMain, maxMessageBytes);
  try {
    return server.peakKib();
  } finally {
    await server.stop();
  }
}

async function measureCase(
  c: Case,
  serverMain: string,
  maxMessageBytes: number,
  idleKib: number,
  timeoutMs: number,
): Promise<Row> {
  const { line, looks } = caseLine(c);
  const bytes = encoder.encode(line + "\n");
  const lineBytes = bytes.length - 1;
  const server = await readyServer(serverMain, maxMessageBytes);
  try {
    const readyKib = server.peakKib();
    const started = performance.now();
    // A server that dies while reading leaves the write failing: the outcome says why.
    server.write(bytes).catch(() => {});
    const outcome = await awaitAnswer(server, 2, timeoutMs);
    const wallMs = performance.now() - started;
    const peakKib = server.peakKib();
    return {
      shape: c.shape.name,
      looks,
      tool: c.tool.name,
      sizeMiB: c.sizeBytes / MIB,
      lineBytes,
      expected: c.tool.expected,
      answer: outcome.answer,
      detail: outcome.detail,
      wallMs: Math.round(wallMs),
      readyRssMb: round(readyKib / KIB, 1),
      peakRssMb: round(peakKib / KIB, 1),
      factor: round((peakKib - idleKib) * KIB / lineBytes, 1),
    };
  } finally {
    await server.stop();
  }
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function parseSizes(raw: string): number[] {
  const sizes = raw.split(",").map((part) => Number(part.trim()));
  if (sizes.some((size) => !Number.isInteger(size) || size < 1 || size > 1024)) {
    throw new Error(`Invalid value for --sizes: "${raw}" is not a list of MiB from 1 to 1024`);
  }
  return sizes;
}

function pickShapes(all: Shape[], raw: string | undefined): Shape[] {
  if (raw === undefined) return all;
  const names = raw.split(",").map((name) => name.trim());
  const unknown = names.filter((name) => !all.some((shape) => shape.name === name));
  if (unknown.length > 0) {
    throw new Error(
      `Invalid value for --shapes: "${unknown.join(",")}" is not one of ${
        all.map((shape) => shape.name).join(", ")
      }`,
    );
  }
  return all.filter((shape) => names.includes(shape.name));
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      sizes: { type: "string", default: "1,8,32" },
      quick: { type: "boolean", default: false },
      shapes: { type: "string" },
      timeout: { type: "string", default: "120" },
      depth: { type: "string", default: String(DEPTH_CAP) },
      server: { type: "string", default: ROOT },
    },
  });
  const sizes = values.quick ? [1] : parseSizes(values.sizes);
  const timeoutMs = Number(values.timeout) * 1000;
  if (!(timeoutMs > 0)) throw new Error(`Invalid value for --timeout: "${values.timeout}"`);
  const depthCap = Number(values.depth);
  if (!Number.isInteger(depthCap) || depthCap < 1) {
    throw new Error(`Invalid value for --depth: "${values.depth}" is not a positive integer`);
  }
  const shapes = pickShapes(makeShapes(depthCap), values.shapes);
  const maxMessageBytes = Math.max(...sizes) * MIB;
  const serverDir = await Deno.realPath(values.server);
  const serverMain = `${serverDir}/main.ts`;

  const cases: Case[] = [];
  for (const size of sizes) {
    for (const shape of shapes) cases.push({ shape, tool: TOOL_ACCEPTS, sizeBytes: size * MIB });
    for (const shape of shapes.filter((s) => s.flood)) {
      cases.push({ shape, tool: TOOL_REJECTS, sizeBytes: size * MIB });
    }
  }

  const started = performance.now();
  progress(`Idle baseline: ${IDLE_RUNS} servers, one tiny call each…`);
  const idleRuns: number[] = [];
  for (let i = 0; i < IDLE_RUNS; i++) idleRuns.push(await measureIdle(serverMain, maxMessageBytes));
  const idleKib = median(idleRuns);
  progress(`Idle peak RSS: ${(idleKib / KIB).toFixed(1)} MB`);

  const rows: Row[] = [];
  for (const [i, c] of cases.entries()) {
    progress(
      `[${i + 1}/${cases.length}] ${c.shape.name} → ${c.tool.name}, ${c.sizeBytes / MIB} MiB…`,
    );
    const row = await measureCase(c, serverMain, maxMessageBytes, idleKib, timeoutMs);
    progress(
      `  ${row.answer}${row.answer === row.expected ? "" : " (unexpected)"}, ${row.wallMs} ms, ` +
        `${row.peakRssMb} MB, ×${row.factor}: ${row.detail.slice(0, 100)}`,
    );
    rows.push(row);
  }

  const report = {
    date: new Date().toISOString().slice(0, 10),
    machine: machine(),
    deno: Deno.version.deno,
    command: `deno run -A bench/memory.ts ${Deno.args.join(" ")}`.trim(),
    server: {
      dir: serverDir,
      commit: await commitOf(serverDir),
      maxMessageBytes,
      v8Flags: `--max-old-space-size=${HEAP_CAP_MB}`,
      tools: "bench/tools_memory",
    },
    timeoutMs,
    depthCap,
    idle: { peakRssMb: round(idleKib / KIB, 1), runsMb: idleRuns.map((k) => round(k / KIB, 1)) },
    totalSeconds: Math.round((performance.now() - started) / 1000),
    rows,
  };
  console.log(render(report.server, report.idle.peakRssMb, rows));
  const out = `${ROOT}bench/results/memory-latest.json`;
  await Deno.mkdir(`${ROOT}bench/results`, { recursive: true });
  await Deno.writeTextFile(out, JSON.stringify(report, null, 2) + "\n");
  progress(`Wrote ${out} (${report.totalSeconds} s)`);
}

function render(
  server: { dir: string; commit: string | null },
  idleMb: number,
  rows: Row[],
): string {
  const number = (value: number, digits = 0) =>
    value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const lines = [
    `Server: ${server.dir}/main.ts${server.commit ? ` at ${server.commit}` : ""}.`,
    `Idle server (start, one tiny call): ${number(idleMb, 1)} MB peak RSS. ` +
    `Factor = (peak − idle) / line bytes.`,
    "",
    "| shape | items | tool | MiB | line bytes | answer | wall ms | peak RSS MB | factor |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const row of rows) {
    const answer = row.answer === "result" ? row.answer : `${row.answer}: ${brief(row.detail)}`;
    const bound = row.answer === "crash" || row.answer === "timeout" ? "≥ " : "";
    lines.push(
      `| ${row.shape} | \`${row.looks}\` | ${row.tool} | ${row.sizeMiB} | ${
        number(row.lineBytes)
      } | ${answer} | ${number(row.wallMs)} | ${bound}${number(row.peakRssMb, 1)} | ${bound}${
        number(row.factor, 1)
      } |`,
    );
  }
  const worst = (kind: AnswerKind, what: string) => {
    const among = rows.filter((row) => row.answer === kind);
    if (among.length === 0) return;
    const top = among.reduce((a, b) => (b.factor > a.factor ? b : a));
    lines.push(
      `Worst factor ${what}: ×${number(top.factor, 1)} ` +
        `(${top.shape} → ${top.tool}, ${top.sizeMiB} MiB).`,
    );
  };
  lines.push("");
  worst("result", "among accepted arguments (result)");
  worst("isError", "among rejected arguments (isError)");
  const failed = rows.filter((row) => row.answer !== row.expected);
  if (failed.length > 0) {
    lines.push(
      `Not answered as expected: ${
        failed.map((row) => `${row.shape} → ${row.tool} at ${row.sizeMiB} MiB (${row.answer})`)
          .join("; ")
      }.`,
    );
  }
  return lines.join("\n");
}

/** An answer's text without the tool's prefix, short enough for a table cell. */
function brief(detail: string): string {
  const text = detail.replace(/^Invalid arguments for tool "[^"]+": /, "").replaceAll("|", "\\|");
  return text.length > 70 ? `${text.slice(0, 69)}…` : text;
}

/**
 * The commit a server directory is at, with "+changes" when its code differs from it; null
 * when it is not a git checkout. Read-only: optional locks are off, so git writes nothing.
 */
async function commitOf(dir: string): Promise<string | null> {
  const git = (...args: string[]) =>
    new Deno.Command("git", {
      args: ["-C", dir, ...args],
      env: { GIT_OPTIONAL_LOCKS: "0" },
      stdout: "piped",
      stderr: "null",
    }).output().catch(() => null);
  const head = await git("rev-parse", "HEAD");
  if (head === null || !head.success) return null;
  const commit = new TextDecoder().decode(head.stdout).trim();
  const changed = await git("diff", "--quiet", "HEAD", "--", "main.ts", "lib");
  const added = await git("ls-files", "--others", "--exclude-standard", "--", "main.ts", "lib");
  const dirty = changed?.code === 1 || (added?.stdout.length ?? 0) > 0;
  return dirty ? `${commit}+changes` : commit;
}

function machine(): string {
  const cpu = Deno.readTextFileSync("/proc/cpuinfo").match(/^model name\s*:\s*(.+)$/m)?.[1];
  const memKib = Number(
    Deno.readTextFileSync("/proc/meminfo").match(/^MemTotal:\s+(\d+) kB$/m)?.[1],
  );
  return `${navigator.hardwareConcurrency} cores (${cpu ?? "unknown CPU"}), ${
    (memKib / MIB).toFixed(0)
  } GiB, ${Deno.build.os}`;
}

function progress(message: string): void {
  console.error(message);
}

if (import.meta.main) await main();
