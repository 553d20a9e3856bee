// deno-lint-ignore-file no-console -- a benchmark prints its tables for people
// This commit's toolshed `--http` beside another commit's and nothing else (deno task
// bench:http-pair --against DIR): plain and with `--auth-issuer`, two servers up side by side
// for each, loaded in turn by 1 s bursts at 64 connections, the order reversed every other
// round (bench/http/bursts.ts); each figure printed as the median of the per-round ratios
// this ÷ DIR with its spread. bench:http --against puts eight servers on the two cores at
// once, so a change of a few percent to the request path drowns there (0.51–1.16× per round,
// issue 42); two at a time it does not.
//
//   deno run -A bench/http_pair.ts --against DIR [--rounds N]
import { parseArgs } from "node:util";
import { againstCheckout } from "./_against.ts";
import { figureOf, formatRatio, roundRatios, runBursts, spreadOf } from "./http/bursts.ts";
import { startIssuer } from "./http/issuer.ts";
import { type HttpContestant, type RunningServer, start } from "./http/server.ts";
import { echoResult } from "./http/request.ts";
import { removeScript } from "./http/wrk.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);
const TOOLS = `${ROOT}bench/tools`;

const { values } = parseArgs({
  args: Deno.args,
  options: { against: { type: "string" }, rounds: { type: "string", default: "12" } },
});
if (values.against === undefined) throw new Error("Cannot compare: give --against DIR");
const rounds = Number(values.rounds);
const against = await againstCheckout(values.against);
const issuer = await startIssuer();
const server = (key: string, main: string, oauth: boolean): HttpContestant => ({
  key,
  label: key,
  args: [
    "run",
    "-A",
    main,
    "--http",
    "127.0.0.1:0",
    "--tools",
    TOOLS,
    ...(oauth ? ["--auth-issuer", issuer.url] : []),
  ],
  result: echoResult,
  ...(oauth ? { authorization: async (url: string) => `Bearer ${await issuer.mint(url)}` } : {}),
});

console.log(`deno task bench:http-pair: this commit ÷ ${against.label}, ${rounds} rounds of 1 s`);
try {
  for (const oauth of [false, true]) {
    const pair = [server("before", against.main, oauth), server("after", `${ROOT}main.ts`, oauth)];
    const running: RunningServer[] = [];
    try {
      for (const contestant of pair) running.push(await start(contestant));
      const taken = await runBursts(
        await Promise.all(pair.map(async (contestant, i) => ({
          key: contestant.key,
          label: contestant.label,
          url: running[i].url,
          pid: running[i].pid,
          authorization: await contestant.authorization?.(running[i].url),
        }))),
        { rounds, seconds: 1, connections: [64] },
      );
      for (const figure of ["rps", "cpuUsPerRequest"] as const) {
        const ratios = roundRatios(taken, "after", "before", figureOf(64, figure));
        console.log(
          `toolshed --http${oauth ? " --auth-issuer" : ""}, ${
            figure === "rps" ? "requests/s" : "CPU per request"
          } at 64 connections: ${formatRatio(spreadOf(ratios))}`,
        );
      }
    } finally {
      await Promise.all(running.map((each) => each.close()));
    }
  }
} finally {
  await removeScript();
  await issuer.close();
}
