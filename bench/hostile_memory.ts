// deno-lint-ignore-file no-console -- a benchmark prints its figures for people
// The hostile probes of issue 34 against a real `main.ts --http` with the defaults: the peak RSS
// (VmHWM) each takes the server to, and what its JavaScript still holds after a full collection.
//
//   deno task bench:hostile-memory [--probe unread,initialize,streams,tasks,mix] [--cycles N]
//
// Each probe runs on a fresh server; `mix` runs all four on one server, one after the other,
// the unread answers held throughout. The figures are what docs/operating/limits.md states.
import {
  echoes,
  finishedTasks,
  heavyInitializes,
  type HostileTarget,
  MIB,
  spawnHostileTarget,
  streamCycles,
  unreadAnswers,
} from "../tests/_hostile.ts";

const flags = new Map<string, string>();
for (let i = 0; i < Deno.args.length; i += 2) flags.set(Deno.args[i], Deno.args[i + 1]);
const probes = (flags.get("--probe") ?? "unread,initialize,streams,tasks,mix").split(",");
const cycles = Number(flags.get("--cycles") ?? 60_000);

const mib = (bytes: number) => +(bytes / MIB).toFixed(0);

async function measure(name: string, attack: (target: HostileTarget) => Promise<string[]>) {
  const target = await spawnHostileTarget();
  try {
    await echoes(target, "before");
    const idle = target.peakRss();
    const heldBefore = await target.held();
    const did = await attack(target);
    await echoes(target, "after");
    const peak = target.peakRss();
    console.log(JSON.stringify({
      probe: name,
      did,
      idleMiB: mib(idle),
      peakMiB: mib(peak),
      grownMiB: mib(peak - idle),
      heldAfterGcMiB: mib(await target.held() - heldBefore),
      rssNowMiB: mib(target.rss()),
    }));
  } finally {
    await target.close();
  }
}

for (const probe of probes) {
  switch (probe) {
    case "unread":
      await measure(probe, async (target) => {
        const attack = await unreadAnswers(target);
        await echoes(target, "during");
        await attack.release();
        return [attack.did];
      });
      break;
    case "initialize":
      await measure(probe, async (target) => [(await heavyInitializes(target)).did]);
      break;
    case "streams":
      await measure(probe, async (target) => [(await streamCycles(target, cycles)).did]);
      break;
    case "tasks":
      await measure(probe, async (target) => [(await finishedTasks(target)).did]);
      break;
    case "mix":
      await measure(probe, async (target) => {
        const unread = await unreadAnswers(target);
        try {
          const did = [unread.did];
          did.push((await heavyInitializes(target)).did);
          did.push((await streamCycles(target, cycles)).did);
          did.push((await finishedTasks(target)).did);
          return did;
        } finally {
          await unread.release();
        }
      });
      break;
    default:
      throw new Error(`Unknown probe "${probe}": unread, initialize, streams, tasks or mix`);
  }
}
