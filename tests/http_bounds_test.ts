// Hostile clients against a real `main.ts --http` process (adr/0021): bodies that lie about
// their length, connections that never speak, a descriptor limit within reach, bodies sent
// slowly, more request bytes than the budget, answers nobody reads, a Host Deno cannot parse.
// Each test checks that the server stays up, answers a plain call afterwards, and (where memory
// is the point) that its peak RSS (VmHWM) grew by less than a bound far below what the same
// attack cost before. Nothing here measures time: waits are events or bounded polls.
import { match, ok, strictEqual } from "node:assert/strict";
import {
  type HttpServerProcess,
  readLines,
  spawnHttpServer,
  withHangGuard,
} from "./_server_process.ts";
import { modernHeaders, readToEnd } from "./_http_server.ts";
import { statusBytes } from "./_processes.ts";

const TOOLS = new URL("./fixtures/bounds/tools", import.meta.url).pathname;
const MIB = 1024 * 1024;
const encoder = new TextEncoder();
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

interface Bounded extends HttpServerProcess {
  port: number;
  /** The server's peak resident memory so far, in bytes (VmHWM). */
  peakRss(): number;
}

/** `main.ts --http 127.0.0.1:0 --tools <bounds fixtures> <args>`, under `ulimit -n` if given. */
async function spawnBounded(args: string[], openFiles?: number): Promise<Bounded> {
  // --expose-gc for the memory tool (tests/fixtures/bounds/tools/memory.ts).
  const server = await spawnHttpServer(["--tools", TOOLS, ...args], {}, {
    openFiles,
    denoFlags: ["--v8-flags=--expose-gc"],
  });
  return {
    ...server,
    port: Number(new URL(server.url).port),
    peakRss: () => statusBytes(server.pid, "VmHWM"),
  };
}

function callBody(id: number, name: string, args: Record<string, unknown>): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: args, _meta: META },
  });
}

function head(name: string, length: number, extra = ""): string {
  return `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
    `accept: application/json\r\nmcp-protocol-version: 2026-07-28\r\nmcp-method: tools/call\r\n` +
    `mcp-name: ${name}\r\ncontent-length: ${length}\r\n${extra}\r\n`;
}

/** A tools/call over fetch; the text of its result. */
async function callOver(server: Bounded, name: string, args: Record<string, unknown>) {
  const response = await withHangGuard(
    fetch(server.url, {
      method: "POST",
      headers: modernHeaders("tools/call", name),
      body: callBody(1, name, args),
    }),
    `a call of ${name}`,
  );
  strictEqual(response.status, 200);
  const answer = await response.json();
  return answer.result.content[0].text as string;
}

/** A plain echo call: the server still serves. */
async function echoes(server: Bounded, text: string): Promise<void> {
  strictEqual(await callOver(server, "echo", { text }), text);
}

/**
 * An echo call that succeeds once the server has let go of connections just closed (a 503
 * meanwhile is the cap doing its work), within a bounded number of tries.
 */
async function servesAgain(server: Bounded, text: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const response = await withHangGuard(
      fetch(server.url, {
        method: "POST",
        headers: modernHeaders("tools/call", "echo"),
        body: callBody(1, "echo", { text }),
      }),
      "an echo call",
    );
    if (response.status === 200) {
      strictEqual((await response.json()).result.content[0].text, text);
      return;
    }
    strictEqual(response.status, 503, "only the connection cap may refuse it");
    await response.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("The server never served again after its connections were closed");
}

/** What the server's JavaScript holds after a full collection (heap in use and buffers). */
async function heldBytes(server: Bounded): Promise<number> {
  return Number(await callOver(server, "memory", {}));
}

async function connect(port: number): Promise<Deno.Conn> {
  return await Deno.connect({ hostname: "127.0.0.1", port });
}

interface Answer {
  /** 0 when nothing came. */
  status: number;
  text: string;
  /** The whole answer arrived (its length, or its last chunk); false: the connection ended first. */
  whole: boolean;
}

/** One HTTP answer read off a connection: until it is whole, or the connection ends. */
async function readAnswer(conn: Deno.Conn): Promise<Answer> {
  const decoder = new TextDecoder();
  const chunk = new Uint8Array(256 * 1024);
  let text = "";
  try {
    while (true) {
      const n = await conn.read(chunk);
      if (n === null) break;
      text += decoder.decode(chunk.subarray(0, n), { stream: true });
      const end = text.indexOf("\r\n\r\n");
      if (end === -1) continue;
      const headText = text.slice(0, end).toLowerCase();
      const body = text.slice(end + 4);
      const declared = headText.match(/content-length: (\d+)/)?.[1];
      if (declared !== undefined && body.length >= Number(declared)) break;
      if (headText.includes("transfer-encoding: chunked") && body.endsWith("0\r\n\r\n")) break;
    }
  } catch { /* reset */ }
  const end = text.indexOf("\r\n\r\n");
  const headText = end === -1 ? "" : text.slice(0, end).toLowerCase();
  const body = end === -1 ? "" : text.slice(end + 4);
  const declared = headText.match(/content-length: (\d+)/)?.[1];
  const whole = end !== -1 &&
    (declared !== undefined ? body.length >= Number(declared) : body.endsWith("0\r\n\r\n"));
  return { status: Number(text.slice(9, 12)) || 0, text, whole };
}

function closeAll(conns: Deno.Conn[]): void {
  for (const conn of conns) {
    try {
      conn.close();
    } catch { /* closed already */ }
  }
}

/** Polls `check` (a few hundred times at most, 50 ms apart): for what the server does later. */
async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`Never happened: ${what}`);
}

Deno.test("main.ts --http allocates nothing from a declared length: 300 bodies announcing 4 MiB and sending a byte cost under 64 MB", async () => {
  const server = await spawnBounded([]);
  const conns: Deno.Conn[] = [];
  try {
    await echoes(server, "before");
    const before = server.peakRss();
    for (let i = 0; i < 300; i++) {
      const conn = await connect(server.port);
      await conn.write(encoder.encode(head("echo", 4 * MIB) + "{"));
      conns.push(conn);
    }
    // Every connection has been read by the time a later request on a new one is answered
    // (one thread, connections served in the order they came).
    await echoes(server, "during");
    const grown = server.peakRss() - before;
    // Before adr/0021, 200 such connections took the server from 50 to 861 MB.
    ok(grown < 64 * MIB, `peak RSS grew by ${(grown / MIB).toFixed(0)} MiB`);
  } finally {
    closeAll(conns);
    await server.stop();
  }
});

Deno.test("main.ts --http refuses connections past --max-connections with 503 and closes silent and half-sent ones after --idle-timeout", async () => {
  const server = await spawnBounded(["--max-connections", "20", "--idle-timeout", "500"]);
  const held: Deno.Conn[] = [];
  const extra: Deno.Conn[] = [];
  try {
    for (let i = 0; i < 20; i++) {
      const conn = await connect(server.port);
      // Half of them send a request line and a header, never the end of the headers.
      if (i % 2 === 1) {
        await conn.write(encoder.encode("POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n"));
      }
      held.push(conn);
    }
    for (let i = 0; i < 3; i++) extra.push(await connect(server.port));
    for (const conn of extra) {
      const answer = await withHangGuard(readToEnd(conn), "a refused connection's answer");
      match(answer, /^HTTP\/1\.1 503 /);
      match(answer, /retry-after: 1/i);
    }
    // The idle deadline closes every held connection: each read ends.
    const ends = await withHangGuard(
      Promise.all(held.map((conn) => readToEnd(conn))),
      "idle closes",
    );
    strictEqual(ends.filter((text) => text === "").length, 20, ends.join("|"));
    await echoes(server, "after");
    ok(server.stderr().some((line) => line.includes("Refused a connection")), "said so");
  } finally {
    closeAll([...held, ...extra]);
    const { code } = await server.stop();
    strictEqual(code, 0);
  }
});

Deno.test("main.ts --http outlives its open-file limit: with ulimit -n 128, 400 connections do not end it", async () => {
  const server = await spawnBounded(["--idle-timeout", "60000"], 128);
  const conns: Deno.Conn[] = [];
  try {
    for (let i = 0; i < 400; i++) conns.push(await connect(server.port));
    // Past half the limit (64), connections are refused and closed at once.
    const refused = await withHangGuard(readToEnd(conns[399]), "the last connection's answer");
    match(refused, /^HTTP\/1\.1 503 /);
    ok(server.alive(), "the server is still running");
    closeAll(conns);
    conns.length = 0;
    ok(server.alive(), "the server is still running");
    // The server sees the closes as they reach it: until it has, a new connection may still be
    // one past the cap (503), so the first call is retried a bounded number of times.
    await servesAgain(server, "after");
  } finally {
    closeAll(conns);
    const { code } = await server.stop();
    strictEqual(code, 0);
  }
});

Deno.test("main.ts --http answers 408 to a large body that does not arrive within --body-timeout, closes on a small one, and goes on", async () => {
  const server = await spawnBounded(["--body-timeout", "300"]);
  const conns: Deno.Conn[] = [];
  try {
    const large = await connect(server.port);
    conns.push(large);
    await large.write(encoder.encode(head("echo", 2 * MIB) + '{"jsonrpc":'));
    const answer = await withHangGuard(readAnswer(large), "the 408");
    strictEqual(answer.status, 408);
    match(answer.text, /did not arrive within 300 ms/);
    // And the connection closes, the rest of that body unread.
    strictEqual(await withHangGuard(readToEnd(large), "the close"), "");
    // A body of at most 64 KiB sent too slowly: the connection closes, with no answer.
    const small = await connect(server.port);
    conns.push(small);
    await small.write(encoder.encode(head("echo", 100) + '{"jsonrpc":'));
    strictEqual(await withHangGuard(readToEnd(small), "the small body's close"), "");
    await echoes(server, "after");
  } finally {
    closeAll(conns);
    await server.stop();
  }
});

Deno.test("main.ts --http refuses request bytes past --max-body-bytes with 503 and serves the bodies it holds", async () => {
  const server = await spawnBounded([
    "--max-message-bytes",
    String(MIB),
    "--max-body-bytes",
    String(2 * MIB),
  ]);
  const conns: Deno.Conn[] = [];
  try {
    const bodies = [0, 1, 2].map((id) => {
      const text = "y".repeat(MIB - 300);
      const body = callBody(id, "echo", { text });
      return { id, body, text };
    });
    // Each sends its headers and all of its body but its last 100 bytes: 3 × ~1 MiB held.
    for (const { body } of bodies) {
      const conn = await connect(server.port);
      conns.push(conn);
      const bytes = encoder.encode(body);
      await conn.write(encoder.encode(head("echo", bytes.length)));
      await conn.write(bytes.subarray(0, bytes.length - 100));
    }
    // Then each sends the rest: at most two fit in 2 MiB; the third was refused on its way.
    const answers = await withHangGuard(
      Promise.all(conns.map(async (conn, i) => {
        const bytes = encoder.encode(bodies[i].body);
        try {
          await conn.write(bytes.subarray(bytes.length - 100));
        } catch { /* refused and closed already */ }
        return await readAnswer(conn);
      })),
      "the answers",
    );
    const statuses = answers.map((answer) => answer.status);
    ok(statuses.includes(503), statuses.join());
    ok(statuses.filter((status) => status === 200).length >= 1, statuses.join());
    const busy = answers.find((answer) => answer.status === 503)!;
    match(busy.text, /retry-after: 1/i);
    match(busy.text, /holds 2097152 bytes of requests already/);
    for (const [i, answer] of answers.entries()) {
      // Chunked, the text may be cut by chunk lines: every "y" of it came back.
      const ys = answer.text.split("y").length - 1;
      if (answer.status === 200) ok(answer.whole && ys >= bodies[i].text.length, `answer ${i}`);
    }
    await echoes(server, "after");
  } finally {
    closeAll(conns);
    await server.stop();
  }
});

const STALLED_READER = new URL("./fixtures/bounds/stalled_reader.py", import.meta.url).pathname;

/**
 * Sends each request on a connection of its own from a client whose receive buffer is 4 KiB
 * (so the kernel takes little of an answer; Deno's sockets cannot set SO_RCVBUF), and holds
 * them unread until `release` is called.
 */
async function askAndNeverRead(
  port: number,
  requests: string[],
): Promise<{ release(): Promise<void> }> {
  const folder = await Deno.makeTempDir();
  const files = await Promise.all(requests.map(async (request, i) => {
    const file = `${folder}/${i}.http`;
    await Deno.writeTextFile(file, request);
    return file;
  }));
  const child = new Deno.Command("python3", {
    args: [STALLED_READER, String(port), ...files],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const lines = readLines(child.stdout);
  strictEqual((await withHangGuard(lines.next(), "the stalled reader")).value, "sent");
  return {
    async release() {
      await child.stdin.close();
      await child.status;
      await Deno.remove(folder, { recursive: true });
    },
  };
}

/** The bound the next test runs with; a huge one shows the test fails unbounded. */
const UNSENT_DEFAULT_TEST = 16 * MIB;
const UNSENT_BOUND = Number(Deno.env.get("TOOLSHED_TEST_UNSENT") ?? UNSENT_DEFAULT_TEST);

Deno.test("main.ts --http drops the answers of readers that stall past --max-unsent-bytes, and says so", async () => {
  const server = await spawnBounded(["--max-unsent-bytes", String(UNSENT_BOUND)]);
  try {
    const before = await heldBytes(server);
    const requests = Array.from({ length: 16 }, (_, i) => {
      const body = callBody(i, "big", { length: 16 * MIB });
      return head("big", encoder.encode(body).length) + body;
    });
    const stalled = await askAndNeverRead(server.port, requests);
    try {
      // The answers are made one after the other, in the order their requests came; an echo
      // sent after them is answered after them.
      await echoes(server, "after");
      // What stays once garbage is collected: the bound, not the answers (16 × 16 MiB
      // unbounded). RSS cannot show it: the allocator keeps the pages it freed.
      const held = await heldBytes(server) - before;
      ok(held < 3 * UNSENT_DEFAULT_TEST, `${(held / MIB).toFixed(0)} MiB held`);
      await eventually(
        () => server.stderr().some((line) => line.includes("Dropped an answer of ")),
        "a dropped answer reported on stderr",
      );
    } finally {
      await stalled.release();
    }
  } finally {
    await server.stop();
  }
});

Deno.test("main.ts --http answers a Host header it cannot parse with 400 and writes nothing it said", async () => {
  const server = await spawnBounded(["--log-requests"]);
  try {
    const conn = await connect(server.port);
    await conn.write(
      encoder.encode("GET /mcp HTTP/1.1\r\nhost: marker-x7q:99999\r\nconnection: close\r\n\r\n"),
    );
    const answer = await withHangGuard(readToEnd(conn), "the 400");
    conn.close();
    match(answer, /^HTTP\/1\.1 400 /);
    match(answer, /the Host header is not a valid host/);
    await echoes(server, "after");
    const { stderr } = await server.stop();
    ok(!stderr.some((line) => line.includes("marker-x7q")), stderr.join("\n"));
  } finally {
    if (server.alive()) await server.stop();
  }
});
