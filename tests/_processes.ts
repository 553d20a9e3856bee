// Test helper: what is running, read from /proc (Linux). Executable-tool tests mark the
// programs they start with an environment variable that every descendant inherits, then
// look for processes that still carry the mark: they must all be gone.
import { withHangGuard } from "./_server_process.ts";

/** The variable that marks a test's programs; pass it on with `passEnv`/`--pass-env`. */
export const MARK_VARIABLE = "TOOLSHED_TEST_MARK";

export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** Process group id. */
  pgrp: number;
  /** Session id. */
  session: number;
  /** R, S, D, Z (zombie), … */
  state: string;
}

/** Sets a fresh mark in this process's environment (inherited by servers it spawns). */
export function freshMark(): string {
  const mark = crypto.randomUUID();
  Deno.env.set(MARK_VARIABLE, mark);
  return mark;
}

function statOf(pid: number): ProcessInfo | undefined {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // The command name (field 2) may hold spaces and parentheses: fields follow the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return {
      pid,
      state: fields[0],
      ppid: Number(fields[1]),
      pgrp: Number(fields[2]),
      session: Number(fields[3]),
    };
  } catch {
    return undefined; // it ended while we looked
  }
}

function hasMark(pid: number, mark: string): boolean {
  try {
    const environ = Deno.readTextFileSync(`/proc/${pid}/environ`);
    return environ.split("\0").includes(`${MARK_VARIABLE}=${mark}`);
  } catch {
    return false; // ended, or a zombie (whose environment cannot be read)
  }
}

function allPids(): number[] {
  const pids: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (/^\d+$/.test(entry.name)) pids.push(Number(entry.name));
  }
  return pids;
}

/** Live (not zombie) processes carrying `mark`, except `server` (which passes it on). */
export function markedProcesses(mark: string, server?: number): ProcessInfo[] {
  return allPids().flatMap((pid) => {
    if (pid === server || !hasMark(pid, mark)) return [];
    const info = statOf(pid);
    return info && info.state !== "Z" ? [info] : [];
  });
}

/** Live processes in process group `pgrp`. */
export function groupMembers(pgrp: number): ProcessInfo[] {
  return allPids().flatMap((pid) => {
    const info = statOf(pid);
    return info && info.pgrp === pgrp && info.state !== "Z" ? [info] : [];
  });
}

/** Children of `parent` that are zombies: a parent that never reaped them. */
export function zombieChildren(parent: number): ProcessInfo[] {
  return allPids().flatMap((pid) => {
    const info = statOf(pid);
    return info && info.ppid === parent && info.state === "Z" ? [info] : [];
  });
}

/** Resolves once `check()` is true, polling; fails with `what` if it never is (no timing asserted). */
export async function eventually(check: () => boolean, what: string): Promise<void> {
  let stopped = false;
  try {
    await withHangGuard(
      (async () => {
        while (!stopped && !check()) await new Promise((resolve) => setTimeout(resolve, 10));
      })(),
      what,
    );
  } finally {
    stopped = true;
  }
}
