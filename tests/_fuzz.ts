// The message generator shared by tests/fuzz_test.ts (in the suite) and tests/fuzz_long.ts
// (the long run): valid requests of every method in both protocol eras, the same mutated
// (byte flips, truncation, duplicated or removed keys, wrong types, random Unicode, deep
// nesting, huge numbers), random bytes, notifications (cancellations of random ids
// included), client responses and prototype keys. Everything comes from a seeded PRNG, so
// a seed and a run number reproduce a run's input byte for byte.
import { hostileToolName, SHAPES } from "./_hostile_shapes.ts";
import type { ToolSet } from "../lib/primitives/tools.ts";
import {
  concat,
  pollutionViolations,
  prototypeSnapshot,
  runInProcess,
  violationsOf,
  withSentinels,
} from "./_invariants.ts";

export type Random = () => number;

/** mulberry32: small, fast, and good enough to pick test cases. */
export function mulberry32(seed: number): Random {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed of run `run` of a fuzz session: runs are independent and each reproducible. */
export function runSeed(seed: number, run: number): number {
  return Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(run + 1, 0xc2b2ae35);
}

/** Messages per run: each run is one fresh connection (its own era pin). */
export const MESSAGES_PER_RUN = 500;
/** Line limit of fuzz runs: low enough that generated long lines sometimes pass it. */
export const FUZZ_MAX_MESSAGE_BYTES = 64 * 1024;

const PV = "io.modelcontextprotocol/protocolVersion";
const CC = "io.modelcontextprotocol/clientCapabilities";
const CI = "io.modelcontextprotocol/clientInfo";
const LL = "io.modelcontextprotocol/logLevel";

const encoder = new TextEncoder();

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

function int(random: Random, below: number): number {
  return Math.floor(random() * below);
}

function pick<T>(random: Random, items: readonly T[]): T {
  return items[int(random, items.length)];
}

function chance(random: Random, p: number): boolean {
  return random() < p;
}

/** A random string: ASCII mostly, with controls, astral, lone surrogates, U+2028, BOMs. */
export function randomString(random: Random, maxLength = 24): string {
  const length = int(random, maxLength + 1);
  let text = "";
  for (let i = 0; i < length; i++) {
    const kind = int(random, 10);
    if (kind < 5) text += String.fromCharCode(0x20 + int(random, 0x5f));
    else if (kind === 5) text += String.fromCharCode(int(random, 0x20));
    else if (kind === 6) text += String.fromCodePoint(0x10000 + int(random, 0x100000));
    else if (kind === 7) text += String.fromCharCode(0xd800 + int(random, 0x800)); // lone surrogate
    else if (kind === 8) {
      text += pick(random, ["\u2028", "\u2029", "\uFEFF", "\uFFFD", "\u0000", '"', "\\"]);
    } else text += String.fromCharCode(0x80 + int(random, 0xff00));
  }
  return text;
}

/** A random JSON value, nested at most `depth` levels. */
export function randomJson(random: Random, depth = 3): Json {
  const kind = int(random, depth > 0 ? 9 : 6);
  switch (kind) {
    case 0:
      return null;
    case 1:
      return chance(random, 0.5);
    case 2:
      return int(random, 1000) - 500;
    case 3:
      return pick(random, [1.5, -0, 2 ** 53, -(2 ** 53), 1e308, 5e-324, 0.1]);
    case 4:
    case 5:
      return randomString(random);
    case 6:
    case 7: {
      const object: JsonObject = {};
      const keys = int(random, 4);
      for (let i = 0; i < keys; i++) {
        setOwn(
          object,
          pick(random, [randomString(random, 8), "__proto__", "constructor", "a"]),
          randomJson(random, depth - 1),
        );
      }
      return object;
    }
    default:
      return Array.from({ length: int(random, 4) }, () => randomJson(random, depth - 1));
  }
}

/** Sets an own key, even `__proto__` (which plain assignment would turn into a prototype). */
function setOwn(object: JsonObject, key: string, value: Json): void {
  Object.defineProperty(object, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

type Mode = "modern" | "legacy" | "mixed";

const TOOLS = ["echo", "numbers", "boom", "liar", "slow", "stubborn", "nope"] as const;
const LEGACY_METHODS = ["initialize", "ping", "tools/list", "tools/call", "server/discover"];
const OTHER_METHODS = ["logging/setLevel", "resources/list", "completion/complete", "x/y", ""];
const VERSIONS = [
  "2026-07-28",
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
  "1999-01-01",
];
const TOOL_NAMES = ["boom", "echo", "liar", "numbers", "slow", "stubborn"];

/** Generates the messages of one run; each is a line, except random bytes (raw). */
export function generateRun(random: Random, count: number): Uint8Array {
  const mode: Mode = pick(random, ["modern", "legacy", "mixed"] as const);
  const issued: Json[] = [];
  const lingering: Json[] = []; // ids of calls that run until cancelled or timed out
  // Calls that never finish on their own hold one of the 64 running slots each until
  // cancelled or the run ends: keep well below the cap, so nothing queues behind them.
  let holders = 0;
  let counter = 0;
  const parts: Uint8Array[] = [];

  function nextId(): Json {
    counter++;
    const kind = int(random, 10);
    if (kind < 5) return counter;
    if (kind < 9) return `f${counter}`;
    return `${randomString(random, 6)}#${counter}`; // unique, whatever the random part is
  }

  function meta(): JsonObject {
    const envelope: JsonObject = {
      [PV]: chance(random, 0.9) ? "2026-07-28" : pick(random, VERSIONS),
      [CC]: chance(random, 0.9) ? {} : { sampling: {}, roots: { listChanged: true } },
    };
    if (chance(random, 0.2)) envelope[CI] = { name: randomString(random, 8), version: "1.0" };
    if (chance(random, 0.1)) envelope[LL] = pick(random, ["debug", "info", "error"]);
    if (chance(random, 0.1)) envelope.progressToken = pick(random, [1, "p"]);
    return envelope;
  }

  function argumentsFor(tool: string): Json {
    const hostile = SHAPES.findIndex((_, index) => hostileToolName(index) === tool);
    if (hostile !== -1) return SHAPES[hostile].hostile(16 + int(random, 16 * 1024)) as Json;
    switch (tool) {
      case "echo":
        return { text: randomString(random, 40) };
      case "numbers":
        return chance(random, 0.7) ? { n: int(random, 11) } : {};
      default:
        return {};
    }
  }

  function validRequest(): JsonObject {
    const modern = mode === "modern"
      ? chance(random, 0.95)
      : mode === "legacy"
      ? chance(random, 0.05)
      : chance(random, 0.5);
    const method = chance(random, 0.08)
      ? pick(random, OTHER_METHODS)
      : pick(random, LEGACY_METHODS);
    const params: JsonObject = {};
    if (method === "initialize") {
      params.protocolVersion = pick(random, VERSIONS);
      params.capabilities = {};
      params.clientInfo = { name: "fuzz", version: "1.0.0" };
    } else if (method === "tools/list" && chance(random, 0.3)) {
      params.cursor = chance(random, 0.7)
        ? btoa(`after:${pick(random, TOOL_NAMES)}`) // a cursor as pages write it (paging_test.ts)
        : randomString(random, 8);
    } else if (method === "tools/call") {
      // Now and then a hostile argument (issue 8): bounded work, one answer, like any call.
      let tool: string = chance(random, 0.01)
        ? hostileToolName(int(random, SHAPES.length))
        : pick(random, TOOLS);
      if ((tool === "slow" || tool === "stubborn") && holders >= 16) tool = "echo";
      if (tool === "slow" || tool === "stubborn") holders++;
      params.name = tool;
      params.arguments = argumentsFor(tool);
    }
    if (modern || method === "server/discover" && chance(random, 0.9)) params._meta = meta();
    else if (chance(random, 0.05)) params._meta = { progressToken: 7 }; // legacy _meta
    const id = nextId();
    issued.push(id);
    if (params.name === "slow" || params.name === "stubborn") lingering.push(id);
    const message: JsonObject = { jsonrpc: "2.0", id, method };
    if (Object.keys(params).length > 0 || chance(random, 0.5)) message.params = params;
    return message;
  }

  function notification(): JsonObject {
    const kind = int(random, 10);
    if (kind < 6) {
      const target = lingering.length > 0 && chance(random, 0.7)
        ? lingering.splice(int(random, lingering.length), 1)[0]
        : issued.length > 0 && chance(random, 0.8)
        ? pick(random, issued)
        : randomJson(random, 1);
      const params: JsonObject = { requestId: target };
      if (chance(random, 0.3)) params.reason = randomJson(random, 1);
      return { jsonrpc: "2.0", method: "notifications/cancelled", params };
    }
    if (kind < 8) return { jsonrpc: "2.0", method: "notifications/initialized" };
    return {
      jsonrpc: "2.0",
      method: pick(random, ["notifications/progress", "x", ""]),
      params: randomJson(random, 2),
    };
  }

  function clientResponse(): JsonObject {
    const id = chance(random, 0.7) ? nextId() : randomJson(random, 0);
    return chance(random, 0.5) ? { jsonrpc: "2.0", id, result: randomJson(random, 2) } : {
      jsonrpc: "2.0",
      id,
      error: { code: int(random, 100000) - 50000, message: randomString(random) },
    };
  }

  /** Changes the parsed message: removed keys, wrong types, prototype keys, nesting. */
  function mutateValue(message: JsonObject): Json {
    const kind = int(random, 8);
    const target = pickObject(message);
    const keys = Object.keys(target);
    switch (kind) {
      case 0:
        if (keys.length > 0) delete target[pick(random, keys)];
        return message;
      case 1:
      case 2:
        if (keys.length > 0) target[pick(random, keys)] = randomJson(random, 2);
        return message;
      case 3:
        setOwn(target, pick(random, ["__proto__", "constructor", "prototype"]), {
          polluted: true,
          prototype: { polluted: true },
        });
        return message;
      case 4:
        return [message]; // a batch
      case 5:
        // JSON.stringify recurses: deeper nesting is written as text in special().
        if (keys.length > 0) target[pick(random, keys)] = deep(int(random, 2_000));
        return message;
      case 6:
        setOwn(target, randomString(random, 6), randomJson(random, 2));
        return message;
      default:
        return pick(random, [null, 1, "x", true, []]);
    }
  }

  function pickObject(message: JsonObject): JsonObject {
    let target = message;
    for (let i = 0; i < 3; i++) {
      const nested = Object.values(target).filter((value): value is JsonObject =>
        typeof value === "object" && value !== null && !Array.isArray(value)
      );
      if (nested.length === 0 || chance(random, 0.4)) break;
      target = pick(random, nested);
    }
    return target;
  }

  function deep(depth: number): Json {
    let value: Json = 1;
    for (let i = 0; i < depth; i++) value = chance(random, 0.5) ? [value] : { a: value };
    return value;
  }

  /** Changes the serialized message: bytes, spans, tokens and duplicated keys. */
  function mutateText(text: string): Uint8Array {
    const kind = int(random, 9);
    switch (kind) {
      case 0: {
        const bytes = encoder.encode(text);
        for (let flips = 1 + int(random, 3); flips > 0; flips--) {
          bytes[int(random, bytes.length)] ^= 1 << int(random, 8);
        }
        return bytes;
      }
      case 1:
        return encoder.encode(text.slice(0, int(random, text.length)));
      case 2: {
        const at = int(random, text.length);
        const bytes = encoder.encode(text);
        return concat([
          bytes.subarray(0, at),
          randomBytes(1 + int(random, 4), false),
          bytes.subarray(at),
        ]);
      }
      case 3: {
        const from = int(random, text.length);
        return encoder.encode(text.slice(0, from) + text.slice(from + int(random, 20)));
      }
      case 4: {
        const from = int(random, text.length);
        const span = text.slice(from, from + int(random, 30));
        return encoder.encode(text.slice(0, from) + span + span + text.slice(from + span.length));
      }
      case 5: {
        // A duplicated key: JSON.parse keeps the last, so the first one is invisible.
        const key = pick(random, ['"id"', '"method"', '"jsonrpc"', '"params"']);
        return encoder.encode(`{${key}:${JSON.stringify(randomJson(random, 1))},${text.slice(1)}`);
      }
      case 6:
        return encoder.encode(
          text.replace(/-?\d+(\.\d+)?([eE][+-]?\d+)?/, () =>
            pick(random, [
              "1e400",
              "-1e400",
              "12345678901234567890",
              "1.5",
              "-0",
              "9".repeat(400),
              "1e-400",
            ])),
        );
      case 7:
        return encoder.encode(
          text.replace(
            /"[^"\\]*"/g,
            (token) => chance(random, 0.15) ? JSON.stringify(randomString(random)) : token,
          ),
        );
      default:
        return encoder.encode(
          text.replace('"2.0"', pick(random, ['"1.0"', "2", "null", '"2.0 "'])),
        );
    }
  }

  function randomBytes(length: number, allowNewline: boolean): Uint8Array {
    const bytes = Uint8Array.from({ length }, () => int(random, 256));
    if (!allowNewline) { for (let i = 0; i < length; i++) if (bytes[i] === 0x0a) bytes[i] = 0x20; }
    return bytes;
  }

  function special(): Uint8Array {
    const id = nextId();
    issued.push(id);
    const idText = JSON.stringify(id);
    switch (int(random, 6)) {
      case 0: { // deep nesting; 100,000 levels is over the fuzz line limit
        const depth = pick(random, [1_000, 30_000, 100_000]);
        const method = pick(random, ["ping", "tools/call", "tools/list", "initialize"]);
        return encoder.encode(
          `{"jsonrpc":"2.0","id":${idText},"method":"${method}","params":{"name":"numbers","arguments":{"x":${
            "[".repeat(depth)
          }${"]".repeat(depth)}}}}`,
        );
      }
      case 1: // a long string, over the fuzz line limit or just under it
        return encoder.encode(JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: {
            name: "echo",
            arguments: { text: "x".repeat(pick(random, [1000, 60_000, 70_000])) },
          },
        }));
      case 2: // huge and odd numbers
        return encoder.encode(
          `{"jsonrpc":"2.0","id":${idText},"method":"tools/call","params":{"name":"numbers","arguments":{"n":${
            pick(random, [
              "1e400",
              "-1e400",
              "1e-400",
              "123456789012345678901234567890",
              "3.0",
              "-0",
            ])
          }}}}`,
        );
      case 3: // prototype keys written as JSON text
        return encoder.encode(
          `{"jsonrpc":"2.0","id":${idText},"method":"tools/call","params":{"name":"echo","arguments":{"__proto__":{"polluted":true},"text":"p"},"__proto__":{"name":"boom"},"_meta":{"__proto__":{"${PV}":"2026-07-28"}}}}`,
        );
      case 4: // the id of a request that is running, reused
        return encoder.encode(JSON.stringify({
          jsonrpc: "2.0",
          id: lingering.length > 0 ? pick(random, lingering) : id,
          method: "ping",
        }));
      default: // a UTF-8 BOM in front of a request
        return encoder.encode(`\uFEFF{"jsonrpc":"2.0","id":${idText},"method":"ping"}`);
    }
  }

  for (let i = 0; i < count; i++) {
    const kind = random();
    let line: Uint8Array;
    if (kind < 0.4) line = encoder.encode(JSON.stringify(validRequest()));
    else if (kind < 0.52) line = encoder.encode(JSON.stringify(mutateValue(validRequest())));
    else if (kind < 0.65) line = mutateText(JSON.stringify(validRequest()));
    else if (kind < 0.75) line = encoder.encode(JSON.stringify(notification()));
    else if (kind < 0.8) line = encoder.encode(JSON.stringify(clientResponse()));
    else if (kind < 0.86) line = randomBytes(int(random, 200), chance(random, 0.3));
    else if (kind < 0.91) line = special();
    else if (kind < 0.94) {
      line = encoder.encode(pick(random, ["", " ", "\t", "\r", "\u00a0", "[]", "{}", "null"]));
    } else line = encoder.encode(JSON.stringify(randomJson(random, 3)));
    parts.push(line);
    const ending = random();
    parts.push(encoder.encode(ending < 0.85 ? "\n" : ending < 0.97 ? "\r\n" : ""));
  }
  return concat(parts);
}

/** What one run found: its input (for the record) and every invariant it broke. */
export interface RunReport {
  input: Uint8Array;
  violations: string[];
}

/** Generates run `run` of session `seed` and pushes it through serve() in-process. */
export async function fuzzRun(
  registry: ToolSet,
  seed: number,
  run: number,
  count = MESSAGES_PER_RUN,
): Promise<RunReport> {
  const random = mulberry32(runSeed(seed, run));
  const input = withSentinels(generateRun(random, count));
  // Reads of random sizes, from 1 byte up: framing must not care where chunks end.
  const chunks = mulberry32(runSeed(seed, run) ^ 0x5bd1e995);
  const chunkBytes = () => chance(chunks, 0.2) ? 1 + int(chunks, 16) : 1 + int(chunks, 16 * 1024);
  const before = prototypeSnapshot();
  let output: Uint8Array;
  try {
    output = await runInProcess(registry, input, {
      maxMessageBytes: FUZZ_MAX_MESSAGE_BYTES,
      chunkBytes,
    });
  } catch (error) {
    return {
      input,
      violations: [`the server failed: ${error instanceof Error ? error.stack : error}`],
    };
  }
  return {
    input,
    violations: [
      ...violationsOf(input, output, FUZZ_MAX_MESSAGE_BYTES),
      ...pollutionViolations(before),
    ],
  };
}
