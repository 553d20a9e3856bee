// deno-lint-ignore-file no-console -- a benchmark prints its table for people
// The first start of an installed toolshed (adr/0065): the command a host runs, with the npm
// registry unreachable (NPM_CONFIG_REGISTRY at a closed loopback port) and an empty Deno cache
// (a fresh DENO_DIR each round), timed from spawn to the answer to initialize and to the
// following tools/list over stdio: what a host's start-up health check waits for.
//
//   deno run -A bench/first_start.ts --command PATH [--dir DIR] [--rounds N]
//
// PATH is the `toolshed` that `npm install -g toolshed` gave (or any command taking toolshed's
// flags); DIR the server directory it serves (default: this repository's tools/ alone).
import { parseArgs } from "../lib/host/args.ts";
import { initializeBody } from "../tests/_http_server.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);
const { values } = parseArgs({
  args: Deno.args,
  options: {
    command: { type: "string" },
    dir: { type: "string" },
    rounds: { type: "string" },
  },
});
if (values.command === undefined) {
  console.error("Usage: deno run -A bench/first_start.ts --command PATH [--dir DIR] [--rounds N]");
  Deno.exit(2);
}
const rounds = Number(values.rounds ?? "5");
const serve = values.dir === undefined ? ["--tools", `${ROOT}tools`] : ["--dir", values.dir];

/** Reads stdout until `count` lines have come; each line's arrival time after `start`. */
async function lineTimes(
  stream: ReadableStream<Uint8Array>,
  count: number,
  start: number,
): Promise<number[]> {
  const times: number[] = [];
  let buffered = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buffered += chunk;
    for (let end = buffered.indexOf("\n"); end !== -1; end = buffered.indexOf("\n")) {
      times.push(performance.now() - start);
      buffered = buffered.slice(end + 1);
      if (times.length === count) return times;
    }
  }
  throw new Error(`the server ended after ${times.length} answers`);
}

const requests = [
  initializeBody(),
  ...[
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 2, method: "tools/list" },
  ].map((message) => JSON.stringify(message)),
].join("\n") + "\n";

const initialized: number[] = [];
const listed: number[] = [];
for (let round = 0; round < rounds; round++) {
  const denoDir = await Deno.makeTempDir({ prefix: "toolshed_first_start_" });
  try {
    const start = performance.now();
    const child = new Deno.Command(values.command, {
      args: serve,
      env: { NPM_CONFIG_REGISTRY: "http://127.0.0.1:9/", DENO_DIR: denoDir },
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(requests));
    const [first, second] = await lineTimes(child.stdout, 2, start);
    await writer.close();
    await child.status;
    initialized.push(first);
    listed.push(second);
  } finally {
    await Deno.remove(denoDir, { recursive: true });
  }
}
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
console.log(
  `first start of ${values.command} (registry unreachable, empty DENO_DIR), ${rounds} rounds:\n` +
    `  initialize answered: median ${median(initialized).toFixed(0)} ms, max ${
      Math.max(...initialized).toFixed(0)
    } ms\n  tools/list answered: median ${median(listed).toFixed(0)} ms, max ${
      Math.max(...listed).toFixed(0)
    } ms`,
);
