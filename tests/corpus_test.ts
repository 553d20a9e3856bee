// The bad-input corpus (issue 5): each file in tests/corpus/ goes through the real pipeline
// in-process (serve() with the real dispatcher and the fixture tools), followed by sentinel
// requests, and the output must keep the invariants of tests/_invariants.ts. Then the whole
// corpus goes through a real server process over real stdio.
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import {
  concat,
  expectationsOf,
  fixtureRegistry,
  pollutionViolations,
  prototypeSnapshot,
  runInProcess,
  SENTINEL_BYTES,
  violationsOf,
  withSentinels,
} from "./_invariants.ts";
import { FIXTURE_TOOLS, spawnServer, withHangGuard } from "./_server_process.ts";

const DIR = new URL("./corpus/", import.meta.url);
const KIB = 1024;
const NEWLINE = new Uint8Array([0x0a]);
/** The server's default --max-message-bytes. */
const MAX_MESSAGE_BYTES = 32 * 1024 * KIB;
/** Enough for every corpus line, so that only the oversize file meets the limit. */
const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * KIB;

const files = [...Deno.readDirSync(DIR)]
  .map((entry) => entry.name)
  .filter((name) => name.endsWith(".jsonl") || name.endsWith(".bin"))
  .sort();

type Response = { id: unknown; result?: Record<string, unknown>; error?: Record<string, unknown> };

function responsesOf(output: Uint8Array): Response[] {
  return new TextDecoder().decode(output).split("\n").filter((line) => line !== "").map((line) =>
    JSON.parse(line)
  );
}

function answersTo(responses: Response[], id: unknown): Response[] {
  return responses.filter((response) => response.id === id);
}

function textOf(response: Response): unknown {
  const content = response.result?.content as { text?: unknown }[] | undefined;
  return content?.[0]?.text;
}

/** Per-file settings and checks beyond the invariants, for behaviour the README documents. */
const SPECIAL: Record<
  string,
  { maxMessageBytes?: number; check?: (responses: Response[]) => void }
> = {
  "oversize_line.jsonl": {
    maxMessageBytes: 64 * KIB,
    check(responses) {
      const refused = answersTo(responses, null);
      strictEqual(refused.length, 4);
      for (const response of refused) {
        deepStrictEqual(response.error, {
          code: -32600,
          message: "Invalid request: the message is longer than the limit of 65536 bytes",
        });
      }
      strictEqual((textOf(answersTo(responses, "ov-1")[0]) as string).length > 60 * KIB, true);
      strictEqual(answersTo(responses, "ov-6").length, 0);
      for (const id of ["ov-3", "ov-4", "ov-7", "ov-8", "ov-9"]) {
        deepStrictEqual(answersTo(responses, id), [{ jsonrpc: "2.0", id, result: {} }]);
      }
    },
  },
  "same_id_in_flight.jsonl": {
    check(responses) {
      const inUse = (id: string | number) => ({
        code: -32600,
        message: `Invalid request: id ${
          JSON.stringify(id)
        } is already in use by a request in progress`,
      });
      // Refusals carry id null, so the client does not take one for the first request's answer.
      deepStrictEqual(answersTo(responses, null).map((response) => response.error), [
        inUse("dup-1"),
        inUse("dup-1"),
        inUse(2001),
      ]);
      deepStrictEqual(answersTo(responses, "dup-1").map((response) => response.error), []);
      strictEqual(textOf(answersTo(responses, "2001")[0]), "a string id is another id");
      const [running] = answersTo(responses, "dup-2");
      strictEqual(running.result?.isError, true);
    },
  },
  "bom.jsonl": {
    check(responses) {
      deepStrictEqual(answersTo(responses, "bom-1"), [{ jsonrpc: "2.0", id: "bom-1", result: {} }]);
      ok(answersTo(responses, "bom-2")[0].result);
      strictEqual(textOf(answersTo(responses, "bom-5")[0]), "\uFEFFinside a string\uFEFF");
    },
  },
  "crlf.jsonl": {
    check(responses) {
      for (const id of ["cr-1", "cr-3", "cr-6"]) {
        deepStrictEqual(answersTo(responses, id), [{ jsonrpc: "2.0", id, result: {} }]);
      }
      strictEqual(textOf(answersTo(responses, "cr-4")[0]), "a\r\nb");
    },
  },
  "long_strings.jsonl": {
    check(responses) {
      strictEqual(textOf(answersTo(responses, "ls-1")[0]), "a".repeat(256 * KIB));
      strictEqual(textOf(answersTo(responses, "ls-2")[0]), "\u{1F600}".repeat(16 * KIB));
      strictEqual(textOf(answersTo(responses, "ls-3")[0]), '\\"\u0000\n'.repeat(8 * KIB));
      ok(answersTo(responses, "ls-4-" + "i".repeat(32 * KIB))[0].result);
    },
  },
};

const registry = await fixtureRegistry();

for (const file of files) {
  Deno.test(`serve() keeps every invariant on corpus/${file}`, async () => {
    const special = SPECIAL[file] ?? {};
    const maxMessageBytes = special.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    const input = withSentinels(await Deno.readFile(new URL(file, DIR)));
    const before = prototypeSnapshot();
    const output = await runInProcess(registry, input, { maxMessageBytes });
    deepStrictEqual([
      ...violationsOf(input, output, maxMessageBytes),
      ...pollutionViolations(before),
    ], []);
    special.check?.(responsesOf(output));
  });
}

Deno.test("main.ts keeps every invariant on the whole corpus over real stdio, then exits 0", async () => {
  const contents = await Promise.all(files.map((file) => Deno.readFile(new URL(file, DIR))));
  // Files that pin the connection to 2026-07-28 go last, so that the others are served in
  // the era they were written for.
  const pins = (bytes: Uint8Array) => expectationsOf(bytes, MAX_MESSAGE_BYTES).pinsModern;
  const ordered = [...contents.filter((bytes) => !pins(bytes)), ...contents.filter(pins)];
  const input = concat([...ordered.flatMap((bytes) => [bytes, NEWLINE]), SENTINEL_BYTES]);
  // A short grace period: the corpus leaves one `slow` call running at end of input.
  const server = spawnServer(["--tools", FIXTURE_TOOLS, "--shutdown-grace", "200"]);
  const writing = server.sendBytes(input).then(() => server.closeStdin());
  const lines: string[] = [];
  const reading = (async () => {
    for (let line = await server.nextLine(); line !== null; line = await server.nextLine()) {
      lines.push(line);
    }
  })();
  await withHangGuard(Promise.all([writing, reading]), "the whole corpus");
  const { code } = await server.child.status;
  strictEqual(code, 0);
  const output = new TextEncoder().encode(lines.map((line) => line + "\n").join(""));
  deepStrictEqual(violationsOf(input, output, MAX_MESSAGE_BYTES), []);
});

Deno.test("violationsOf() reports missing, extra and malformed answers and a silent sentinel", () => {
  const input = withSentinels(new TextEncoder().encode(
    '{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
  ));
  const ping = '{"jsonrpc":"2.0","id":1,"result":{}}';
  const sentinels = '{"jsonrpc":"2.0","id":"sentinel","result":{}}\n' +
    '{"jsonrpc":"2.0","id":"sentinel-discover","result":{"supportedVersions":["2026-07-28"]}}\n';
  const violations = (output: string) =>
    violationsOf(input, new TextEncoder().encode(output), DEFAULT_MAX_MESSAGE_BYTES);
  deepStrictEqual(violations(ping + "\n" + sentinels), []);
  deepStrictEqual(violations(sentinels), [
    "0 response(s) with id number:1, expected 1 (1 request(s), 0 cancellation(s))",
  ]);
  deepStrictEqual(violations(`${ping}\n${ping}\n${sentinels}`), [
    "2 response(s) with id number:1, expected 1 (1 request(s), 0 cancellation(s))",
  ]);
  deepStrictEqual(
    violations(
      `${ping}\n{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}\n${sentinels}`,
    ),
    ["1 response(s) with id null, expected 0"],
  );
  deepStrictEqual(violations(`${ping}\n{"jsonrpc":"2.0","id":1}\n${sentinels}`), [
    'an output line is not a JSON-RPC response (not exactly one of result and error): {"jsonrpc":"2.0","id":1}',
  ]);
  strictEqual(violations(ping + "\n").length, 4); // both sentinels: missing and unanswered
});
