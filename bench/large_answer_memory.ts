// deno-lint-ignore-file no-console -- a benchmark prints its table for people
// What large answers cost in memory (deno task bench:large-answers, adr/0053): a fresh stdio
// server echoes a 16 MiB text three times, each answer checked, then its peak RSS (VmHWM) is
// read. The bare loop is the baseline of the same rounds; --against DIR adds another copy of
// toolshed (say, a worktree of an earlier commit) beside this one.
//
//   deno run -A bench/large_answer_memory.ts [--rounds N] [--mib M] [--against DIR]
import { parseArgs } from "../lib/host/args.ts";
import { againstCheckout } from "./_against.ts";
import { checkEcho, type Contestant, spawn } from "./e2e/client.ts";
import { payload } from "./e2e/measure.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);
const MIB = 1024 * 1024;
const ECHOES = 3;

function toolshed(label: string, main: string, mib: number): Contestant {
  const maxBytes = String(2 * mib * MIB);
  return {
    label,
    key: label,
    era: "modern",
    args: ["run", "-A", main, "--tools", `${ROOT}bench/tools`, "--max-message-bytes", maxBytes],
  };
}

/** Peak RSS in MB of a fresh process of `contestant` after ECHOES echoes of `text`. */
async function peakAfterEchoes(contestant: Contestant, text: string): Promise<number> {
  const server = spawn(contestant);
  try {
    await server.open();
    for (let id = 1; id <= ECHOES; id++) {
      await server.send(server.encodeEchoes([id], [text]));
      checkEcho(contestant.label, await server.nextResponse(), id, text);
    }
    const status = await Deno.readTextFile(`/proc/${server.pid}/status`);
    return Number(status.match(/^VmHWM:\s+(\d+) kB$/m)?.[1]) / 1024;
  } finally {
    await server.close();
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { rounds: { type: "string" }, mib: { type: "string" }, against: { type: "string" } },
  });
  const rounds = Number(values.rounds ?? "3");
  const mib = Number(values.mib ?? "16");
  const contestants: Contestant[] = [
    {
      label: "bare Deno loop",
      key: "bare",
      era: "modern",
      args: ["run", "-A", `${ROOT}bench/contestants/bare_loop.ts`],
    },
    toolshed("toolshed", `${ROOT}main.ts`, mib),
  ];
  if (values.against !== undefined) {
    const against = await againstCheckout(values.against);
    contestants.push(toolshed(against.label, against.main, mib));
  }
  const text = payload(mib * MIB);
  const peaks = contestants.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    for (const [i, contestant] of contestants.entries()) {
      peaks[i].push(await peakAfterEchoes(contestant, text));
    }
  }
  console.log(`${ECHOES} echoes of ${mib} MiB per fresh process, ${rounds} interleaved rounds\n`);
  console.log("| process | peak RSS MB, each round |");
  console.log("|---|---|");
  for (const [i, { label }] of contestants.entries()) {
    console.log(`| ${label} | ${peaks[i].map((mb) => mb.toFixed(1)).join(", ")} |`);
  }
}
