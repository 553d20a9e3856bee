// Drives a server with wrk (the Debian package, 4.1), through a Lua script that sends the
// benchmark's request, checks every answer (status 200 and the echoed text in the body) and
// reports its figures as one JSON line. A run lasts a duration, or stops after a number of
// answers (`limit`, with one wrk thread, exiting from the script) for the memory phase. A
// contestant's `Authorization` value reaches the script in the environment, not on the command
// line.
import { echoBody, HEADERS, LOAD_TEXT } from "./request.ts";

export interface WrkResult {
  requests: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers that were not 200 or did not carry the echoed text, plus socket errors. */
  bad: number;
}

export interface WrkRun {
  url: string;
  connections: number;
  seconds: number;
  /** Stop once this many answers arrived (the run then uses one thread). */
  limit?: number;
  /** The `Authorization` header of every request, if any. */
  authorization?: string;
}

const SCRIPT = `
wrk.method = "POST"
wrk.body = [==[${echoBody(1, LOAD_TEXT)}]==]
${Object.entries(HEADERS).map(([k, v]) => `wrk.headers["${k}"] = "${v}"`).join("\n")}
local authorization = os.getenv("WRK_AUTHORIZATION") or ""
if authorization ~= "" then wrk.headers["Authorization"] = authorization end
local needle = [==["text":"${LOAD_TEXT}"]==]
local limit = tonumber(os.getenv("WRK_LIMIT") or "0")
local threads = {}
function setup(thread) table.insert(threads, thread) end
bad = 0
answered = 0
function response(status, headers, body)
  answered = answered + 1
  if status ~= 200 or not body:find(needle, 1, true) then bad = bad + 1 end
  if limit > 0 and answered >= limit then
    -- wrk would wait out its duration after thread:stop(); a count run ends here instead.
    io.write(string.format('{"requests":%d,"micros":0,"p50":0,"p99":0,"bad":%d,"socket":0}\\n',
      answered, bad))
    io.stdout:flush()
    os.exit(0)
  end
end
function done(summary, latency, requests)
  local badAll = 0
  for _, t in ipairs(threads) do badAll = badAll + t:get("bad") end
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"micros":%d,"p50":%d,"p99":%d,"bad":%d,"socket":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    badAll, e.connect + e.read + e.write + e.timeout))
end
`;

let scriptPath: string | undefined;

export async function wrk(run: WrkRun): Promise<WrkResult> {
  scriptPath ??= await Deno.makeTempFile({ prefix: "toolshed-http-bench-", suffix: ".lua" });
  await Deno.writeTextFile(scriptPath, SCRIPT);
  const threads = run.limit !== undefined ? 1 : Math.min(run.connections, 2);
  const started = performance.now();
  const output = await new Deno.Command("wrk", {
    args: [
      `-t${threads}`,
      `-c${run.connections}`,
      `-d${run.seconds}s`,
      "--timeout",
      "10s",
      "-s",
      scriptPath,
      run.url,
    ],
    env: { WRK_LIMIT: String(run.limit ?? 0), WRK_AUTHORIZATION: run.authorization ?? "" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout);
  const line = text.split("\n").find((l) => l.startsWith('{"requests"'));
  if (!output.success || line === undefined) {
    throw new Error(`wrk failed: ${text}${new TextDecoder().decode(output.stderr)}`);
  }
  const r = JSON.parse(line);
  // A count run exits from its script, which knows no duration: take the wall clock.
  const seconds = r.micros > 0 ? r.micros / 1e6 : (performance.now() - started) / 1000;
  return {
    requests: r.requests,
    seconds,
    rps: r.requests / seconds,
    p50Ms: r.p50 / 1000,
    p99Ms: r.p99 / 1000,
    bad: r.bad + r.socket,
  };
}

export async function removeScript(): Promise<void> {
  if (scriptPath !== undefined) await Deno.remove(scriptPath).catch(() => {});
}
