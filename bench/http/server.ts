// One contestant of the HTTP benchmark as a real process: spawned, its URL read from the
// `listening on http://…/mcp` line on its stderr, its CPU time and memory read from /proc.
export interface HttpContestant {
  key: string;
  /** Shown in tables. */
  label: string;
  /** Arguments to `deno`; the process prints `listening on http://HOST:PORT/mcp` on stderr. */
  args: string[];
  /** Environment variables added to the benchmark's own. */
  env?: Record<string, string>;
  /**
   * The `Authorization` value every request carries, once the endpoint's URL is known (an
   * OAuth access token names it as its audience); none when the contestant asks for none.
   */
  authorization?(url: string): Promise<string>;
  /** The authorization server the contestant asks, whose requests are counted. */
  issuer?: { requests(): number };
  /** The exact `result` this contestant answers for an echo of `text`. */
  result(text: string): unknown;
}

export interface RunningServer {
  pid: number;
  url: string;
  /** The `Authorization` value for this process, when its contestant asks for one. */
  authorization?: string;
  /** Stops the process (SIGTERM, then SIGKILL after 10 s) and waits for it. */
  close(): Promise<void>;
}

const CLOCK_TICKS_PER_SECOND = 100; // Linux USER_HZ
const decoder = new TextDecoder();

export async function start(contestant: HttpContestant): Promise<RunningServer> {
  const child = new Deno.Command(Deno.execPath(), {
    args: contestant.args,
    env: contestant.env,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.getReader();
  let seen = "";
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  let url: string | undefined;
  while (url === undefined) {
    const { value, done } = await reader.read();
    if (done) {
      throw new Error(`${contestant.label}: exited before listening: ${seen.slice(-500)}`);
    }
    seen += decoder.decode(value, { stream: true });
    url = seen.match(/listening on (http:\/\/\S+\/mcp)/)?.[1];
  }
  clearTimeout(timer);
  // Keep reading stderr so that a chatty server never blocks on a full pipe.
  const drained = (async () => {
    while (!(await reader.read()).done) { /* discard */ }
  })().catch(() => {});
  const authorization = await contestant.authorization?.(url);
  return {
    pid: child.pid,
    url,
    authorization,
    async close() {
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await child.status;
      clearTimeout(killer);
      await drained;
    },
  };
}

/** User plus system CPU time of the whole process (all threads), in seconds. */
export function cpuSeconds(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/** Resident memory now (VmRSS) or its high-water mark (VmHWM), in MB. */
export function rssMb(pid: number, which: "VmRSS" | "VmHWM"): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kilobytes = Number(status.match(new RegExp(`^${which}:\\s+(\\d+) kB$`, "m"))?.[1]);
  return kilobytes / 1024;
}
