// The hardening oracle (issue 5): what must hold after any input, derived from the input
// alone. Each input line is framed and parsed here, independently of lib/, and tells how
// many responses it deserves; the server's output is then checked against the sum:
//
// (a) the server never stops because of what it reads: sentinel requests sent after the
//     input are still answered;
// (b) every request with a usable id (a string or a safe integer on a message that has a
//     `method`) gets exactly one response with that id, unless cancelled; notifications
//     and the client's own responses get none; any other line gets one error with id null
//     (or with its usable id);
// (c) every output line is one JSON-RPC 2.0 response object;
// (d) nothing the server read polluted a prototype (checked in-process).
//
// It also runs input through serve() in-process, with the real dispatcher and registry.
import { hostileTools } from "./_hostile_shapes.ts";
import { concatBytes as concat } from "../lib/util/bytes.ts";
import type { ToolSet } from "../lib/primitives/tools.ts";
import { loadQuietly, NOT_IN_PROCESS, serveTools } from "./_in_process.ts";
import { FIXTURE_TOOLS, withHangGuard } from "./_server_process.ts";
import { recorder } from "./_diagnostics.ts";

export { concat };

const encoder = new TextEncoder();
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

/** Answered `{"jsonrpc":"2.0","id":"sentinel","result":{}}` unless the run pinned 2026-07-28. */
export const SENTINEL_PING = '{"jsonrpc":"2.0","id":"sentinel","method":"ping"}';
/** `server/discover` is answered in any connection state (adr/0004): the era-free probe. */
export const SENTINEL_DISCOVER = JSON.stringify({
  jsonrpc: "2.0",
  id: "sentinel-discover",
  method: "server/discover",
  params: { _meta: { [PROTOCOL_VERSION]: "2026-07-28", [CLIENT_CAPABILITIES]: {} } },
});
/** Appended to every input: a newline ends any unterminated last line first. */
export const SENTINEL_BYTES = encoder.encode(`\n${SENTINEL_PING}\n${SENTINEL_DISCOVER}\n`);

/** One framed input line, or a line longer than the limit (answered once, then skipped). */
export type Frame = { kind: "line"; bytes: Uint8Array } | { kind: "oversize" };

/**
 * Splits input at "\n" as the documented framing does: a trailing "\r" is dropped, a
 * line whose bytes before its newline exceed `maxMessageBytes` is oversize, and a last
 * line without a newline still counts.
 */
export function framesOf(input: Uint8Array, maxMessageBytes: number): Frame[] {
  const frames: Frame[] = [];
  let start = 0;
  while (start < input.length) {
    let end = input.indexOf(0x0a, start);
    const next = end === -1 ? input.length : end + 1;
    if (end === -1) end = input.length;
    if (end - start > maxMessageBytes) frames.push({ kind: "oversize" });
    else {
      const stop = end > start && input[end - 1] === 0x0d ? end - 1 : end;
      frames.push({ kind: "line", bytes: input.subarray(start, stop) });
    }
    start = next;
  }
  return frames;
}

/** What one input line deserves. */
export interface LineExpectation {
  /** Error responses with id null: at least `nullMin`, at most `nullMax`. */
  nullMin: number;
  nullMax: number;
  /** The id key (see `idKey`) of the one response this line deserves, if any. */
  id?: string;
  /** The id key a `notifications/cancelled` names: one response with it may be missing. */
  cancels?: string;
  /** True for a well-formed 2026-07-28 request that may pin the connection modern. */
  pinsModern?: boolean;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isUsableId(id: unknown): id is string | number {
  return typeof id === "string" || Number.isSafeInteger(id);
}

/** The key responses are counted under: 1 and "1" are different ids; -0 is sent as 0. */
export function idKey(id: string | number): string {
  return `${typeof id}:${String(id)}`;
}

/** Only JSON's own whitespace makes a line blank; other Unicode spaces may get an error. */
const JSON_BLANK = /^[ \t\r\n]*$/;

export function expectationOf(frame: Frame): LineExpectation {
  if (frame.kind === "oversize") return { nullMin: 1, nullMax: 1 };
  let text: string;
  try {
    text = strictUtf8.decode(frame.bytes); // a leading BOM is dropped, as decoders do
  } catch {
    return { nullMin: 1, nullMax: 1 };
  }
  if (JSON_BLANK.test(text)) return { nullMin: 0, nullMax: 0 };
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    // A line of only non-JSON spaces (U+00A0, U+3000…) may count as blank.
    return text.trim() === "" ? { nullMin: 0, nullMax: 1 } : { nullMin: 1, nullMax: 1 };
  }
  if (!isObject(message)) return { nullMin: 1, nullMax: 1 };
  const hasId = Object.hasOwn(message, "id");
  const hasMethod = Object.hasOwn(message, "method");
  const isClientResponse = message.jsonrpc === "2.0" && !hasMethod && hasId &&
    (Object.hasOwn(message, "result") || Object.hasOwn(message, "error"));
  if (isClientResponse) return { nullMin: 0, nullMax: 0 };
  if (hasId) {
    if (!isUsableId(message.id)) return { nullMin: 1, nullMax: 1 };
    return { nullMin: 0, nullMax: 0, id: idKey(message.id), pinsModern: pinsModern(message) };
  }
  if (message.jsonrpc === "2.0" && typeof message.method === "string") {
    // A notification. Only a cancellation that names a usable id can suppress an answer.
    const params = message.params;
    if (
      message.method === "notifications/cancelled" && isObject(params) &&
      isUsableId(params.requestId)
    ) {
      return { nullMin: 0, nullMax: 0, cancels: idKey(params.requestId) };
    }
    return { nullMin: 0, nullMax: 0 };
  }
  return { nullMin: 1, nullMax: 1 };
}

function pinsModern(message: Record<string, unknown>): boolean {
  const params = message.params;
  if (!isObject(params) || message.method === "server/discover") return false;
  const meta = params._meta;
  return isObject(meta) && meta[PROTOCOL_VERSION] === "2026-07-28" &&
    isObject(meta[CLIENT_CAPABILITIES]);
}

/** The expectations of a whole input, summed. */
export interface Expectations {
  nullMin: number;
  nullMax: number;
  /** Responses each id key deserves: requests with it, and cancellations naming it. */
  ids: Map<string, { requests: number; cancels: number }>;
  pinsModern: boolean;
}

export function expectationsOf(input: Uint8Array, maxMessageBytes: number): Expectations {
  const result: Expectations = { nullMin: 0, nullMax: 0, ids: new Map(), pinsModern: false };
  const countOf = (key: string) => {
    let count = result.ids.get(key);
    if (!count) result.ids.set(key, count = { requests: 0, cancels: 0 });
    return count;
  };
  for (const frame of framesOf(input, maxMessageBytes)) {
    const line = expectationOf(frame);
    result.nullMin += line.nullMin;
    result.nullMax += line.nullMax;
    if (line.id !== undefined) countOf(line.id).requests++;
    if (line.cancels !== undefined) countOf(line.cancels).cancels++;
    if (line.pinsModern) result.pinsModern = true;
  }
  return result;
}

/** Why one output line is not a JSON-RPC 2.0 response object, or undefined when it is. */
export function responseShapeProblem(response: unknown): string | undefined {
  if (!isObject(response)) return "not an object";
  for (const key of Object.keys(response)) {
    if (!["jsonrpc", "id", "result", "error"].includes(key)) return `unexpected key "${key}"`;
  }
  if (response.jsonrpc !== "2.0") return 'jsonrpc is not "2.0"';
  const id = response.id;
  if (!Object.hasOwn(response, "id")) return "no id";
  if (id !== null && typeof id !== "string" && !Number.isSafeInteger(id)) {
    return "id is not a string, a safe integer or null";
  }
  const hasResult = Object.hasOwn(response, "result");
  if (hasResult === Object.hasOwn(response, "error")) return "not exactly one of result and error";
  if (hasResult) return isObject(response.result) ? undefined : "result is not an object";
  const error = response.error;
  if (!isObject(error)) return "error is not an object";
  if (!Number.isInteger(error.code)) return "error.code is not an integer";
  if (typeof error.message !== "string") return "error.message is not a string";
  return undefined;
}

function shown(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
  return text.length > 300 ? `${text.slice(0, 300)}… (${text.length} characters)` : text;
}

/**
 * Every way the output breaks invariants (a)–(c) for this input; empty when it holds.
 * `input` must already end with SENTINEL_BYTES.
 */
export function violationsOf(
  input: Uint8Array,
  output: Uint8Array,
  maxMessageBytes: number,
): string[] {
  const problems: string[] = [];
  const expected = expectationsOf(input, maxMessageBytes);

  let text: string;
  try {
    text = strictUtf8.decode(output);
  } catch {
    return ["the output is not valid UTF-8"];
  }
  if (text !== "" && !text.endsWith("\n")) problems.push("the output does not end with a newline");
  const lines = text === "" ? [] : text.replace(/\n$/, "").split("\n");
  const responses: Record<string, unknown>[] = [];
  for (const line of lines) {
    let response: unknown;
    try {
      response = JSON.parse(line);
    } catch {
      problems.push(`an output line is not JSON: ${shown(line)}`);
      continue;
    }
    const problem = responseShapeProblem(response);
    if (problem) {
      problems.push(`an output line is not a JSON-RPC response (${problem}): ${shown(line)}`);
    } else responses.push(response as Record<string, unknown>);
  }

  // A request whose id is still in flight is refused with id null (README "Same id twice"):
  // each repeat of an id may turn one answer with the id into one error with id null.
  let repeats = 0;
  for (const count of expected.ids.values()) repeats += Math.max(0, count.requests - 1);
  expected.nullMax += repeats;

  let nulls = 0;
  const got = new Map<string, Record<string, unknown>[]>();
  for (const response of responses) {
    if (response.id === null) {
      nulls++;
      continue;
    }
    const key = idKey(response.id as string | number);
    got.set(key, [...got.get(key) ?? [], response]);
  }
  if (nulls < expected.nullMin || nulls > expected.nullMax) {
    const range = expected.nullMin === expected.nullMax
      ? `${expected.nullMin}`
      : `${expected.nullMin} to ${expected.nullMax}`;
    problems.push(`${nulls} response(s) with id null, expected ${range}`);
  }
  for (const [key, count] of expected.ids) {
    const answers = got.get(key)?.length ?? 0;
    // Repeats of an id may each have been refused with id null instead of answered.
    const least = count.requests > 1
      ? Math.max(0, 1 - count.cancels)
      : Math.max(0, count.requests - count.cancels);
    if (answers < least || answers > count.requests) {
      problems.push(
        `${answers} response(s) with id ${key}, expected ${least}` +
          (least === count.requests ? "" : ` to ${count.requests}`) +
          ` (${count.requests} request(s), ${count.cancels} cancellation(s))`,
      );
    }
  }
  for (const [key, answers] of got) {
    if (!expected.ids.has(key)) {
      problems.push(`a response with id ${key} answers no request: ${shown(answers[0])}`);
    }
  }

  const ping = got.get(idKey("sentinel")) ?? [];
  const pingAnswered = ping.length === 1 && isObject(ping[0].result) &&
    Object.keys(ping[0].result).length === 0;
  // A connection pinned to 2026-07-28 answers a claim-less ping with -32602 (adr/0004).
  const pingRefusedAsModern = expected.pinsModern && ping.length === 1 &&
    isObject(ping[0].error) && ping[0].error.code === -32602;
  if (!pingAnswered && !pingRefusedAsModern) {
    problems.push(`the sentinel ping was not answered with {}: ${shown(ping)}`);
  }
  const discover = got.get(idKey("sentinel-discover")) ?? [];
  const discoverResult = discover.length === 1 ? discover[0].result : undefined;
  if (
    !isObject(discoverResult) || !Array.isArray(discoverResult.supportedVersions) ||
    !discoverResult.supportedVersions.includes("2026-07-28")
  ) {
    problems.push(`the sentinel server/discover was not answered: ${shown(discover)}`);
  }
  return problems;
}

/** The own keys of the built-in prototypes, to compare before and after a run. */
export interface PrototypeSnapshot {
  keys: Map<string, string[]>;
}

const PROTOTYPES: Record<string, object> = {
  Object: Object.prototype,
  Array: Array.prototype,
  Function: Function.prototype,
  String: String.prototype,
  Number: Number.prototype,
  Map: Map.prototype,
  Promise: Promise.prototype,
};

function ownKeysOf(target: object): string[] {
  return Reflect.ownKeys(target).map(String).sort();
}

export function prototypeSnapshot(): PrototypeSnapshot {
  return {
    keys: new Map(Object.entries(PROTOTYPES).map(([name, proto]) => [name, ownKeysOf(proto)])),
  };
}

/** Invariant (d): no key added to a built-in prototype, and `{}` still inherits from it. */
export function pollutionViolations(before: PrototypeSnapshot): string[] {
  const problems: string[] = [];
  const probe: Record<string, unknown> = {};
  if (probe.polluted !== undefined) problems.push("({}).polluted is defined");
  if (Object.getPrototypeOf(probe) !== Object.prototype) {
    problems.push("Object.getPrototypeOf({}) is not Object.prototype");
  }
  for (const [name, proto] of Object.entries(PROTOTYPES)) {
    const was = new Set(before.keys.get(name));
    const added = ownKeysOf(proto).filter((key) => !was.has(key));
    if (added.length > 0) problems.push(`${name}.prototype has new keys: ${added.join(", ")}`);
  }
  return problems;
}

/** The fixture tools, loaded as the server loads them, minus those unsafe in a test process. */
export async function fixtureRegistry(): Promise<ToolSet> {
  const loaded = await loadQuietly(FIXTURE_TOOLS, { diagnostics: recorder() });
  const tools = [
    ...loaded.tools.filter((tool) => !NOT_IN_PROCESS.has(tool.name)),
    ...hostileTools(),
  ].sort((a, b) => a.name < b.name ? -1 : 1);
  return { tools, byName: new Map(tools.map((tool) => [tool.name, tool])) };
}

export interface InProcessOptions {
  maxMessageBytes: number;
  /** How many bytes each read returns at most (varied by the fuzzer to stress framing). */
  chunkBytes?: () => number;
  shutdownGraceMs?: number;
}

/** Bytes of waiting requests past which the server stops reading (more than main.ts's 1 MiB). */
const WAITING_BOUND_BYTES = 16 * 1024 * 1024;

/**
 * Runs `input` (which must end with SENTINEL_BYTES) through serve() with the real
 * dispatcher, then ends input; resolves with everything written once the server is done.
 */
export async function runInProcess(
  registry: ToolSet,
  input: Uint8Array,
  options: InProcessOptions,
): Promise<Uint8Array> {
  let offset = 0;
  const chunkBytes = options.chunkBytes ?? (() => 64 * 1024);
  const parts: Uint8Array[] = [];
  const server = await serveTools(registry, {
    input: {
      read(buffer) {
        if (offset >= input.length) return Promise.resolve(null);
        const count = Math.min(buffer.length, chunkBytes(), input.length - offset);
        buffer.set(input.subarray(offset, offset + count));
        offset += count;
        return Promise.resolve(count);
      },
    },
    output: {
      write(bytes) {
        parts.push(bytes.slice());
        return Promise.resolve(bytes.length);
      },
    },
  }, {
    pageSize: 3,
    toolTimeoutMs: 10_000,
    maxMessageBytes: options.maxMessageBytes,
    shutdownGraceMs: options.shutdownGraceMs ?? 50,
    maxConcurrency: 64,
    waitingBoundBytes: WAITING_BOUND_BYTES,
  });
  await withHangGuard(server.done, "the end of input");
  return concat(parts);
}

export function withSentinels(input: Uint8Array): Uint8Array {
  return concat([input, SENTINEL_BYTES]);
}
