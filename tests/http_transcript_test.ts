// HTTP transcripts are the contract of the Streamable HTTP transport, as tests/transcripts/ are
// of stdio: each file in tests/http_transcripts/ is one scenario against a fresh server, its
// requests written as HTTP writes them and the exact answers after each.
//
// A request is a run of `>` lines: `> METHOD PATH`, then its headers as `> name: value`, then,
// if it has a body, a `>` line alone and the body's lines (the body is those lines joined with
// "\n"). The headers are all that is sent but what HTTP/1.1 needs besides: Host (`{{host}}`)
// unless the file names one, Content-Length for a POST or a body, and Connection: close (one
// connection per request).
//
// Its answer is the `<` lines that follow: `< STATUS` (the code: the reason phrase is Deno's);
// then every response header, sorted by
// name, as `< name: value`, except the ones Deno writes for the wire and the clock (TRANSPORT_
// HEADERS below: a web-standard `Request → Response` handler has none of them); then, unless
// the body is empty, a `<` line alone and the body's lines, joined with "\n" as a request's
// are: a JSON body is one line; a body that ends with a newline ends with a `<` line alone, and
// an event stream, whose events each end with a blank line, with two. Every line is compared
// as text, exactly; one that differs is shown as indented JSON and diffed when it is JSON (an
// event's `data: ` line: the JSON after it), else quoted.
//
// `= open NAME` after an answer leaves its body open (an event stream that goes on): only the
// body lines written above it are read, whole lines, and the rest waits for `= rest NAME`,
// whose `<` lines are the rest of that body, read to its end. A body still open at the end of
// the file is closed by the client, unread, before the server shuts down.
//
// Placeholders, in answers and in the requests after them: `{{version}}` for the server's
// version (in `"name":"toolshed","version":"{{version}}"`); `{{host}}` for the server's
// `127.0.0.1:PORT`; `{{session}}`, `{{session2}}`, … for the Mcp-Session-Id values the server
// hands out, numbered in the order they first appear (the server's instance is `transcript`, so
// `transcript.<uuid>` is an id it could have made). `# flags: …` sets server options (FLAGS
// below). Other lines starting with `#`, and blank lines, are comments.
//
// The tools are tests/fixtures/tools/ (but for the three that must not run in a test process:
// NOT_IN_PROCESS) and tests/fixtures/http_tools/. The server runs in this process, over real
// HTTP on loopback (startServer(), the one function that knows how: pointing it at another
// way to answer a `Request` leaves the files as they are). Nothing waits for a time: an
// exchange waits for its answer, under the hang guard; event streams get no keep-alive comment
// (KEEP_ALIVE_MS).
//
// `deno test -A tests/http_transcript_test.ts -- --update` rewrites every answer from what the
// server sent instead, for a person to review with `git diff`. For a new exchange, write `< ?`
// under it; an answer left open reads as many body lines as the file has under its `<` line
// alone (write `< ?` lines for them).
import { fail } from "node:assert/strict";
import denoConfig from "../deno.json" with { type: "json" };
import type { Tool } from "../lib/primitives/tools.ts";
import { recorder } from "./_diagnostics.ts";
import { serveForTest } from "./_http_server.ts";
import { createServer } from "../lib/server/create_server.ts";
import { loadQuietly, NOT_IN_PROCESS } from "./_in_process.ts";
import { diffLines, lineMismatch } from "./_line_diff.ts";
import { FIXTURE_TOOLS, withHangGuard } from "./_server_process.ts";

const DIR = new URL("./http_transcripts/", import.meta.url);
const HTTP_TOOLS = new URL("./fixtures/http_tools", import.meta.url).pathname;
const UPDATE = Deno.args.includes("--update");

const VERSION_TEXT = `"name":"toolshed","version":"${denoConfig.version}"`;
const VERSION_PLACEHOLDER = '"name":"toolshed","version":"{{version}}"';

/**
 * Response headers not compared: framing and connection management (Deno writes them for
 * HTTP/1.1, a `Request → Response` handler does not) and the clock.
 */
const TRANSPORT_HEADERS: ReadonlySet<string> = new Set([
  "connection",
  "content-length",
  "date",
  "keep-alive",
  "transfer-encoding",
]);

/** Far past any transcript: an event stream left open gets no `: keep-alive` comment. */
const KEEP_ALIVE_MS = 10 * 60 * 1000;

// ---------------------------------------------------------------------------------------
// The server: the one place that knows how a transcript reaches one.

/** What `# flags:` can set. */
interface Settings {
  bearerToken?: string;
  allowedHosts: string[];
  corsOrigins: string[];
  listChanged: boolean;
  maxMessageBytes?: number;
  maxSessions?: number;
}

/**
 * `# flags:` names, main.ts's where it has one. main.ts takes the token from
 * $TOOLSHED_HTTP_TOKEN, and sets listChanged with --watch (which also shortens the lists'
 * ttlMs; --list-changed does not).
 */
const FLAGS: Record<string, (settings: Settings, value: string) => void> = {
  "--bearer-token": (settings, value) => settings.bearerToken = value,
  "--allow-host": (settings, value) => settings.allowedHosts.push(value),
  "--cors-origin": (settings, value) => settings.corsOrigins.push(value),
  "--max-message-bytes": (settings, value) => settings.maxMessageBytes = count(value),
  "--max-sessions": (settings, value) => settings.maxSessions = count(value),
};
const SWITCHES: Record<string, (settings: Settings) => void> = {
  "--list-changed": (settings) => settings.listChanged = true,
};

/** A server started for one transcript. */
interface TranscriptServer {
  /** What a client names in Host: `127.0.0.1:PORT`. */
  readonly host: string;
  /** Answers one request as `fetch` does; the body may still be arriving. */
  fetch(request: Request): Promise<Response>;
  /** What the server reported (its stderr), shown when a transcript fails. */
  log(): string;
  /** Shuts it down and waits until it has closed. */
  close(): Promise<void>;
}

let tools: Promise<Tool[]> | undefined;

/** The fixture tools, loaded once for every transcript. */
function transcriptTools(): Promise<Tool[]> {
  tools ??= (async () => {
    const options = { diagnostics: recorder() };
    const fixtures = await loadQuietly(FIXTURE_TOOLS, options);
    const http = await loadQuietly(HTTP_TOOLS, options);
    return [
      ...fixtures.tools.filter((tool) => !NOT_IN_PROCESS.has(tool.name)),
      ...http.tools,
    ];
  })();
  return tools;
}

/**
 * How a transcript reaches the server: serveHttp() in this process on a free loopback port,
 * toolshed's own listener (tests/_http_server.ts); or the server createServer composes,
 * mounted with its `fetch` inside a `Deno.serve` of the test's own (embedding). Both are
 * reached over real HTTP/1.1 (loopbackFetch), and must answer alike.
 */
type Way = "listener" | "embedded";

/**
 * Starts the server a transcript runs against. Only this function knows how: a server that
 * answers web-standard `Request`s some other way would be one more branch here, and the files
 * would not change.
 */
async function startServer(settings: Settings, way: Way): Promise<TranscriptServer> {
  const limits = {
    ...settings.maxMessageBytes === undefined ? {} : { maxMessageBytes: settings.maxMessageBytes },
    ...settings.maxSessions === undefined ? {} : { maxSessions: settings.maxSessions },
  };
  if (way === "embedded") {
    const diagnostics = recorder();
    const server = await createServer({
      primitives: { tools: await transcriptTools() },
      diagnostics,
      pageSize: 100,
      toolTimeoutMs: 10_000,
      maxConcurrency: 8,
      maxMessageBytes: limits.maxMessageBytes ?? 1 << 20,
      listChanged: settings.listChanged,
      instanceName: "transcript",
      http: {
        bearerToken: settings.bearerToken,
        allowedHosts: settings.allowedHosts,
        corsOrigins: settings.corsOrigins,
        maxSessions: limits.maxSessions,
        keepAliveMs: KEEP_ALIVE_MS,
      },
    });
    const app = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      (request) => server.fetch(request),
    );
    return {
      host: `127.0.0.1:${app.addr.port}`,
      fetch: (request) => loopbackFetch(app.addr.port, request),
      log: () => diagnostics.text(),
      async close() {
        await withHangGuard(server.close(), "the embedded server's drain");
        await withHangGuard(app.shutdown(), "the app's server closing");
      },
    };
  }
  const http = await serveForTest(
    await transcriptTools(),
    {
      bearerToken: settings.bearerToken,
      allowedHosts: settings.allowedHosts,
      corsOrigins: settings.corsOrigins,
      instanceName: "transcript",
      keepAliveMs: KEEP_ALIVE_MS,
      ...limits,
    },
    {},
    { listChanged: settings.listChanged },
  );
  return {
    host: `127.0.0.1:${http.port}`,
    fetch: (request) => loopbackFetch(http.port, request),
    log: () => http.diagnostics.text(),
    close: () => http.close(),
  };
}

// ---------------------------------------------------------------------------------------
// The files.

interface Exchange {
  /** A request, or `= rest NAME`: the rest of an answer left open. */
  kind: "request" | "rest";
  /** Where its first line is in the file (0-based). */
  at: number;
  /** Where its last line is (the request's body, or the `= rest` line). */
  lastAt: number;
  method: string;
  path: string;
  headers: [string, string][];
  /** Undefined: no body. */
  body?: string;
  /** The answer left open (`= open NAME`), or the one whose rest this is. */
  name?: string;
  /** The `<` lines after it, without their `< ` prefix, and where each is. */
  expect: string[];
  expectAt: number[];
}

interface Transcript {
  file: string;
  lines: string[];
  settings: Settings;
  exchanges: Exchange[];
}

function parse(file: string, text: string): Transcript {
  const lines = text.split("\n");
  const path = `tests/http_transcripts/${file}`;
  const settings: Settings = { allowedHosts: [], corsOrigins: [], listChanged: false };
  const exchanges: Exchange[] = [];
  const where = (at: number) => `${path}:${at + 1}`;
  /** The request being read: its lines until the first that is not `>`. */
  let request: { lines: string[]; at: number } | undefined;
  const endRequest = () => {
    if (request === undefined) return;
    exchanges.push(requestOf(request.lines, request.at, where));
    request = undefined;
  };
  const opened = new Set<string>();
  lines.forEach((line, at) => {
    if (line === ">" || line.startsWith("> ")) {
      if (request === undefined) request = { lines: [], at };
      request.lines.push(line.slice(2));
      return;
    }
    endRequest();
    const last = exchanges.at(-1);
    if (line === "<" || line.startsWith("< ")) {
      if (last === undefined) throw new Error(`${where(at)}: an answer comes before any request`);
      if (last.kind === "request" && last.name !== undefined) {
        throw new Error(`${where(at)}: an answer's lines come before its "= open ${last.name}"`);
      }
      last.expect.push(line.slice(2));
      last.expectAt.push(at);
    } else if (line.startsWith("= open ")) {
      const name = line.slice(7).trim();
      if (last?.kind !== "request" || last.name !== undefined || opened.has(name)) {
        throw new Error(`${where(at)}: "= open ${name}" must follow a request, once per name`);
      }
      last.name = name;
      opened.add(name);
    } else if (line.startsWith("= rest ")) {
      const name = line.slice(7).trim();
      if (!opened.delete(name)) {
        throw new Error(`${where(at)}: no answer named "${name}" is left open before this line`);
      }
      exchanges.push({
        kind: "rest",
        at,
        lastAt: at,
        method: "",
        path: "",
        headers: [],
        name,
        expect: [],
        expectAt: [],
      });
    } else if (line.startsWith("# flags:")) {
      setFlags(settings, line.slice(8).trim().split(/\s+/), where(at));
    } else if (line !== "" && !line.startsWith("#")) {
      throw new Error(`${where(at)}: unknown transcript line: ${line}`);
    }
  });
  endRequest();
  if (!UPDATE) {
    for (const exchange of exchanges) {
      if (exchange.kind === "request" && exchange.expect.length === 0) {
        throw new Error(`${where(exchange.lastAt)}: a request without its answer (write "< ?")`);
      }
    }
  }
  return { file: path, lines, settings, exchanges };
}

function requestOf(
  lines: string[],
  at: number,
  where: (at: number) => string,
): Exchange {
  const start = /^([A-Z]+) (\/\S*)$/.exec(lines[0]);
  if (start === null) throw new Error(`${where(at)}: a request starts with "> METHOD /path"`);
  const blank = lines.indexOf("", 1);
  const headers = (blank === -1 ? lines.slice(1) : lines.slice(1, blank)).map((line, i) => {
    const colon = line.indexOf(": ");
    if (colon <= 0) throw new Error(`${where(at + 1 + i)}: a header is "> name: value"`);
    return [line.slice(0, colon), line.slice(colon + 2)] as [string, string];
  });
  return {
    kind: "request",
    at,
    lastAt: at + lines.length - 1,
    method: start[1],
    path: start[2],
    headers,
    body: blank === -1 ? undefined : lines.slice(blank + 1).join("\n"),
    expect: [],
    expectAt: [],
  };
}

function setFlags(settings: Settings, words: string[], where: string): void {
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (word in SWITCHES) SWITCHES[word](settings);
    else if (word in FLAGS && i + 1 < words.length) FLAGS[word](settings, words[++i]);
    else {
      const known = [
        ...Object.keys(FLAGS).map((flag) => `${flag} VALUE`),
        ...Object.keys(SWITCHES),
      ];
      throw new Error(`${where}: unknown flag "${word}" (known: ${known.join(", ")})`);
    }
  }
}

function count(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`Not a count: "${value}"`);
  return n;
}

// ---------------------------------------------------------------------------------------
// Running one.

/** A body left open by `= open NAME`, read line by line. */
interface OpenBody {
  /** The next whole line (without its "\n"); undefined at the end of the body. */
  line(): Promise<string | undefined>;
  /** The rest of the body, to its end. */
  rest(): Promise<string>;
  close(): Promise<void>;
}

/** What one file's run saw: the answer lines of each exchange, placeholders in. */
type Actual = string[][];

async function run(transcript: Transcript, way: Way): Promise<Actual> {
  const { file, exchanges } = transcript;
  const server = await startServer(transcript.settings, way);
  const open = new Map<string, OpenBody>();
  /** Session ids, in the order the server handed them out. */
  const sessions: string[] = [];
  const actual: Actual = [];
  try {
    for (const exchange of exchanges) {
      const what = exchange.kind === "request"
        ? `line ${exchange.at + 1} (${exchange.method} ${exchange.path})`
        : `line ${exchange.at + 1} (= rest ${exchange.name})`;
      const guarded = <T>(promise: Promise<T>) =>
        withHangGuard(promise, `${file}:${exchange.at + 1}`);
      let got: string[];
      if (exchange.kind === "rest") {
        const body = open.get(exchange.name!)!;
        open.delete(exchange.name!);
        const text = await guarded(body.rest());
        got = text === "" ? [] : text.split("\n");
      } else {
        const response = await guarded(
          server.fetch(requestFor(exchange, server.host, sessions, file)),
        );
        const sessionId = response.headers.get("mcp-session-id");
        if (sessionId !== null && !sessions.includes(sessionId)) sessions.push(sessionId);
        got = [
          String(response.status),
          ...[...response.headers]
            .filter(([name]) => !TRANSPORT_HEADERS.has(name))
            .map(([name, value]) => `${name}: ${value}`),
        ];
        if (exchange.name !== undefined) {
          const body = openBody(response);
          open.set(exchange.name, body);
          got.push("");
          // As many body lines as the file has (update mode reads a new answer's that way too).
          const blank = exchange.expect.indexOf("", 1);
          const wanted = blank === -1 ? 0 : exchange.expect.length - blank - 1;
          for (let i = 0; i < wanted; i++) {
            const line = await guarded(body.line());
            if (line === undefined) break;
            got.push(line);
          }
        } else {
          const text = await guarded(response.text());
          if (text !== "") got.push("", ...text.split("\n"));
        }
      }
      got = got.map((line) => withPlaceholders(line, server.host, sessions));
      actual.push(got);
      if (!UPDATE) compare(file, exchange, what, got);
    }
  } catch (error) {
    const log = server.log();
    if (error instanceof Error && log !== "") {
      error.message += `\n--- what the server reported ---\n${log}`;
    }
    throw error;
  } finally {
    for (const body of open.values()) await body.close();
    await server.close();
  }
  return actual;
}

/** The request an exchange describes, placeholders filled in. */
function requestFor(exchange: Exchange, host: string, sessions: string[], file: string): Request {
  const fill = (text: string) =>
    text.replaceAll("{{host}}", host).replaceAll("{{version}}", denoConfig.version).replaceAll(
      /\{\{session(\d*)\}\}/g,
      (placeholder, n) => {
        const id = sessions[n === "" ? 0 : Number(n) - 1];
        if (id === undefined) {
          throw new Error(
            `${file}:${exchange.at + 1}: ${placeholder} names no session the server handed out`,
          );
        }
        return id;
      },
    );
  const headers = new Headers(exchange.headers.map(([name, value]) => [name, fill(value)]));
  // Host is in the Request, as a server in process must see it too; and the URL is the one a
  // server builds from it, as Deno's does.
  if (!headers.has("host")) headers.set("host", host);
  const named = headers.get("host")!;
  const authority = URL.canParse(`http://${named}/`) ? named : host;
  return new Request(`http://${authority}${fill(exchange.path)}`, {
    method: exchange.method,
    headers,
    // Bytes, so that no Content-Type is added for the body.
    body: exchange.body === undefined ? undefined : new TextEncoder().encode(fill(exchange.body)),
  });
}

/** A line as the file writes it: what varies per run replaced by its placeholder. */
function withPlaceholders(line: string, host: string, sessions: string[]): string {
  let text = line.replaceAll(VERSION_TEXT, VERSION_PLACEHOLDER).replaceAll(host, "{{host}}");
  sessions.forEach((id, i) => {
    text = text.replaceAll(id, i === 0 ? "{{session}}" : `{{session${i + 1}}}`);
  });
  return text;
}

function openBody(response: Response): OpenBody {
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  let ended = reader === undefined;
  const more = async () => {
    const { value, done } = await reader!.read();
    if (done) ended = true;
    else buffered += value;
  };
  return {
    async line() {
      while (!buffered.includes("\n") && !ended) await more();
      const end = buffered.indexOf("\n");
      if (end === -1) return undefined;
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      return line;
    },
    async rest() {
      while (!ended) await more();
      return buffered;
    },
    async close() {
      if (!ended) await reader!.cancel();
    },
  };
}

/** Fails with every line of an answer that is not the expected one. */
function compare(file: string, exchange: Exchange, what: string, got: string[]): void {
  const { expect, expectAt } = exchange;
  /** The file line of expected line `i`: past the last, the last (or the exchange's own). */
  const lineOf = (i: number) => (expectAt[Math.min(i, expectAt.length - 1)] ?? exchange.lastAt) + 1;
  if (expect.length !== got.length) {
    const first = expect.findIndex((line, i) => line !== got[i]);
    fail(
      `${file}:${lineOf(first === -1 ? expect.length : first)}: the answer to ${what} has ` +
        `${got.length} lines where ${expect.length} were expected:\n` +
        diffLines(expect.map(shown), got.map(shown)),
    );
  }
  const problems: string[] = [];
  expect.forEach((line, i) => {
    if (line === got[i]) return;
    const json = bodyJson(line, got[i]);
    const mismatch = json === undefined
      ? `\n  expected: ${JSON.stringify(line)}\n  actual:   ${JSON.stringify(got[i])}`
      : ` ${lineMismatch(json[0], json[1])}`;
    problems.push(`${file}:${lineOf(i)}: the answer to ${what} differs:${mismatch}`);
  });
  if (problems.length > 0) fail(problems.join("\n\n"));
}

/** Two lines that are JSON, or an event's `data: ` JSON: the JSON of each. */
function bodyJson(expected: string, actual: string): [string, string] | undefined {
  const json = (line: string) => {
    const text = line.startsWith("data: ") ? line.slice(6) : line;
    if (!text.startsWith("{") && !text.startsWith("[")) return undefined;
    try {
      JSON.parse(text);
      return text;
    } catch {
      return undefined;
    }
  };
  const [a, b] = [json(expected), json(actual)];
  return a === undefined || b === undefined ? undefined : [a, b];
}

/** A line as a diff shows it: `<` and the line. */
function shown(line: string): string {
  return line === "" ? "<" : `< ${line}`;
}

/** The file with each answer replaced by what the server sent. */
function rewritten(transcript: Transcript, actual: Actual): string {
  const dropped = new Set(transcript.exchanges.flatMap((exchange) => exchange.expectAt));
  const inserted = new Map<number, string[]>();
  transcript.exchanges.forEach((exchange, index) => {
    inserted.set(exchange.expectAt.at(-1) ?? exchange.lastAt, (actual[index] ?? []).map(shown));
  });
  return transcript.lines.flatMap((line, at) => [
    ...dropped.has(at) ? [] : [line],
    ...inserted.get(at) ?? [],
  ]).join("\n");
}

// ---------------------------------------------------------------------------------------
// A client of HTTP/1.1 over TCP: fetch adds headers of its own (Accept, Accept-Encoding,
// User-Agent …) and will not send others (Host), and a transcript sends exactly its own.

/**
 * Answers `request` from the server on 127.0.0.1:`port`, one connection per request: its
 * headers as they are, with what HTTP/1.1 framing needs besides (Content-Length, Connection).
 */
async function loopbackFetch(port: number, request: Request): Promise<Response> {
  const url = new URL(request.url);
  const body = request.body === null ? undefined : new Uint8Array(await request.arrayBuffer());
  const headers = new Headers(request.headers);
  if (!headers.has("host")) headers.set("host", url.host);
  if (body !== undefined || request.method === "POST") {
    headers.set("content-length", String(body?.length ?? 0));
  }
  headers.set("connection", "close");
  const head = `${request.method} ${url.pathname}${url.search} HTTP/1.1\r\n` +
    [...headers].map(([name, value]) => `${name}: ${value}\r\n`).join("") + "\r\n";
  const connection = await Deno.connect({ hostname: "127.0.0.1", port });
  const close = () => {
    try {
      connection.close();
    } catch {
      // closed already: reading to the end (or cancelling) closes it
    }
  };
  try {
    const bytes = concat(new TextEncoder().encode(head), body ?? new Uint8Array());
    for (let written = 0; written < bytes.length;) {
      written += await connection.write(bytes.subarray(written));
    }
    const input = bufferedInput(connection.readable);
    const statusLine = await input.line();
    const status = /^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? "")?.[1];
    if (status === undefined) throw new Error(`Not an HTTP/1.1 status line: ${statusLine}`);
    const answerHeaders = new Headers();
    for (let line = await input.line(); line !== ""; line = await input.line()) {
      if (line === undefined) throw new Error("The connection closed inside the headers");
      const colon = line.indexOf(":");
      answerHeaders.append(line.slice(0, colon), line.slice(colon + 1).trim());
    }
    const code = Number(status);
    if (request.method === "HEAD" || code === 204 || code === 304) {
      await input.cancel();
      close();
      return new Response(null, { status: code, headers: answerHeaders });
    }
    const length = answerHeaders.get("content-length");
    const chunked = answerHeaders.get("transfer-encoding")?.toLowerCase() === "chunked";
    let left = length === null ? Infinity : Number(length);
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        let chunk: Uint8Array | undefined;
        if (chunked) {
          const size = parseInt((await input.line()) ?? "", 16);
          if (Number.isNaN(size)) throw new Error("A chunk without its size");
          if (size > 0) {
            chunk = await input.take(size);
            await input.take(2);
          } else {
            while (await input.line()) {
              // the trailer, up to the blank line
            }
          }
        } else if (left > 0) {
          chunk = await input.some();
          if (chunk !== undefined) {
            chunk = chunk.subarray(0, Math.min(chunk.length, left));
            left -= chunk.length;
          } else if (left !== Infinity) throw new Error("The connection closed inside the body");
        }
        if (chunk === undefined) {
          controller.close();
          await input.cancel();
          close();
        } else controller.enqueue(chunk);
      },
      async cancel() {
        await input.cancel();
        close();
      },
    }, { highWaterMark: 0 });
    return new Response(stream, { status: code, headers: answerHeaders });
  } catch (error) {
    close();
    throw error;
  }
}

/** A byte stream read as HTTP/1.1 reads it: lines (to CRLF), exact lengths, whatever came. */
function bufferedInput(readable: ReadableStream<Uint8Array>) {
  const reader = readable.getReader();
  let buffer: Uint8Array = new Uint8Array();
  let ended = false;
  const fill = async (): Promise<boolean> => {
    if (ended) return false;
    const { value, done } = await reader.read();
    if (done) ended = true;
    else buffer = concat(buffer, value);
    return !done;
  };
  return {
    /** The next line without its CRLF; undefined at the end. */
    async line(): Promise<string | undefined> {
      for (;;) {
        const end = crlfIn(buffer);
        if (end !== -1) {
          const line = new TextDecoder().decode(buffer.subarray(0, end));
          buffer = buffer.subarray(end + 2);
          return line;
        }
        if (!await fill()) return undefined;
      }
    },
    /** Exactly `n` bytes. */
    async take(n: number): Promise<Uint8Array> {
      while (buffer.length < n) {
        if (!await fill()) throw new Error("The connection closed inside a chunk");
      }
      const taken = buffer.slice(0, n);
      buffer = buffer.subarray(n);
      return taken;
    },
    /** Whatever is buffered, or the next bytes; undefined at the end. */
    async some(): Promise<Uint8Array | undefined> {
      if (buffer.length === 0 && !await fill()) return undefined;
      const taken = buffer;
      buffer = new Uint8Array();
      return taken;
    },
    async cancel(): Promise<void> {
      if (!ended) {
        ended = true;
        await reader.cancel().catch(() => {});
      }
    },
  };
}

function crlfIn(bytes: Uint8Array): number {
  for (let i = 0; i + 1 < bytes.length; i++) {
    if (bytes[i] === 0x0d && bytes[i + 1] === 0x0a) return i;
  }
  return -1;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}

// ---------------------------------------------------------------------------------------
// One test per file.

const files = [...Deno.readDirSync(DIR)].map((entry) => entry.name).filter((name) =>
  name.endsWith(".txt")
).sort();

for (const file of files) {
  Deno.test(`http transcript ${file.replace(/\.txt$/, "")}`, async () => {
    const transcript = parse(file, await Deno.readTextFile(new URL(file, DIR)));
    const actual = await run(transcript, "listener");
    if (!UPDATE) return;
    const text = rewritten(transcript, actual);
    if (text !== transcript.lines.join("\n")) {
      await Deno.writeTextFile(new URL(file, DIR), text);
      // deno-lint-ignore no-console -- says which files update mode changed
      console.log(`updated tests/http_transcripts/${file}`);
    }
  });
}

// The same files through createServer's fetch, mounted in a Deno.serve of the test's own: an
// embedded server answers exactly as toolshed's own listener does (update mode writes from the
// listener's answers only).
for (const file of files) {
  Deno.test(`http transcript ${file.replace(/\.txt$/, "")}, embedded in Deno.serve`, async () => {
    if (UPDATE) return;
    await run(parse(file, await Deno.readTextFile(new URL(file, DIR))), "embedded");
  });
}
