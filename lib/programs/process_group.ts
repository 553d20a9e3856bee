// A program as the leader of its own process group, and that group's end: spawned without a
// shell in a new session (setsid), signalled as a group (SIGTERM, then SIGKILL after a grace),
// and killed outright if the server exits first. Used for each call of an executable tool
// (executable.ts) and for a mounted server's long-lived child (mounts/stdio_link.ts).

/**
 * How a program comes to lead a new session (setsid(2)), hence its own process group:
 * - "setsid": spawned through util-linux's `setsid` program, which calls setsid() and
 *   execs the program in the same process (no shell, no fork: the pid is the program's).
 * - "detached": Deno.Command's `detached` option, setsid() between fork and exec. It
 *   makes the runtime fork the whole Deno process instead of its faster spawn path,
 *   ~1.5 ms more per call (bench/executable_bench.ts), so it is the fallback where no
 *   `setsid` program exists (macOS).
 */
export type Launcher = "setsid" | "detached";

const SETSID_PATHS = ["/usr/bin/setsid", "/bin/setsid"];
/** The `setsid` program that spawned, once one has; null once none did; undefined before. */
let setsidPath: string | null | undefined;

interface SpawnOptions {
  /** A path, or a name looked up in the PATH of `env`. */
  program: string;
  /** Its arguments; none by default. */
  args?: readonly string[];
  /** The whole environment of the program (nothing is inherited). */
  env: Record<string, string>;
  /** Its working directory; the server's by default. */
  cwd?: string;
  launcher: Launcher | undefined;
}

/**
 * Spawns a program as the leader of a new session. The `setsid` program is found by
 * trying to spawn it (a stat would need read permission on /usr/bin): Deno reports a
 * missing one as NotFound, while a missing program is setsid's own exit status 127.
 */
export function spawnLeader(
  { program, args = [], env, cwd, launcher }: SpawnOptions,
): Deno.ChildProcess {
  const command = (path: string | null) =>
    new Deno.Command(path ?? program, {
      args: path === null ? [...args] : ["--", program, ...args],
      cwd,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      clearEnv: true,
      env,
      detached: path === null,
    });
  if (launcher === "detached") return command(null).spawn();
  if (setsidPath !== undefined && (setsidPath !== null || launcher === undefined)) {
    return command(setsidPath).spawn();
  }
  for (const path of SETSID_PATHS) {
    try {
      const child = command(path).spawn();
      setsidPath = path;
      return child;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  if (launcher === "setsid") throw new Error(`no setsid program in ${SETSID_PATHS.join(" or ")}`);
  setsidPath = null;
  return command(null).spawn();
}

/** Process groups of running programs, killed outright if the server exits before them. */
const liveGroups = new Set<number>();
let unloadListening = false;

interface Group {
  /** SIGTERM now, SIGKILL after the grace unless the program has exited by then. */
  terminate(): void;
  /** The program has exited: SIGKILL whatever it left running in its group. */
  leaderExited(): void;
}

export function watchGroup(pgid: number, graceMs: number): Group {
  if (!unloadListening) {
    unloadListening = true;
    globalThis.addEventListener("unload", () => {
      for (const id of liveGroups) signalGroup(id, "SIGKILL");
    });
  }
  liveGroups.add(pgid);
  let graceTimer: ReturnType<typeof setTimeout> | undefined;
  let over = false;
  return {
    terminate() {
      if (over || graceTimer !== undefined) return;
      signalGroupOrLeader(pgid, "SIGTERM");
      graceTimer = setTimeout(() => signalGroupOrLeader(pgid, "SIGKILL"), graceMs);
    },
    leaderExited() {
      if (over) return;
      over = true;
      clearTimeout(graceTimer);
      signalGroup(pgid, "SIGKILL");
      liveGroups.delete(pgid);
    },
  };
}

/** Signals a process group; false when it has no member (ESRCH). */
function signalGroup(pgid: number, signal: Deno.Signal): boolean {
  try {
    Deno.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Signals the group, or its leader-to-be if the group does not exist yet: `setsid` may
 * not have called setsid() when a call is cancelled right after the spawn. The leader has
 * not been reaped (the caller checked), so its pid is still its own.
 */
function signalGroupOrLeader(pgid: number, signal: Deno.Signal): void {
  if (signalGroup(pgid, signal)) return;
  try {
    Deno.kill(pgid, signal);
  } catch {
    // It has exited.
  }
}
