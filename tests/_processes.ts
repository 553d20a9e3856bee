// Test helper: what is running, read from /proc (Linux). Executable-tool tests mark the
// programs they start with an environment variable that every descendant inherits, then
// look for processes that still carry the mark: they must all be gone.
//
// Test modules run in parallel threads of one process (deno test --parallel), sharing its
// environment and its children: a server another module spawns while a mark is set
// inherits it too. So a marked process counts only if it also carries TOOLSHED_TOOL_NAME,
// which toolshed sets for every program it starts (and nothing else has), and a zombie
// child of this process counts only if it leads its own session, as every program does.
import assert from "node:assert/strict";
import { withHangGuard } from "./_server_process.ts";
import { CONTEXT_ENV } from "../lib/programs/executable.ts";

/**
 * The variable that carries `mark`; pass it on with `passEnv`/`--pass-env`. Each mark has
 * its own, so that test modules running at once do not change each other's.
 */
export function markVariable(mark: string): string {
  return `TOOLSHED_TEST_MARK_${mark}`;
}

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

/** The mark freshMark() set last in this module, removed when it sets the next one. */
let lastMark: string | undefined;

/** Sets a fresh mark in this process's environment (inherited by servers it spawns). */
export function freshMark(): string {
  if (lastMark !== undefined) Deno.env.delete(markVariable(lastMark));
  lastMark = crypto.randomUUID().replaceAll("-", "");
  Deno.env.set(markVariable(lastMark), lastMark);
  return lastMark;
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

/** Whether `pid` is a program toolshed started (or its descendant) carrying `mark`. */
function hasMark(pid: number, mark: string): boolean {
  try {
    const environ = Deno.readTextFileSync(`/proc/${pid}/environ`).split("\0");
    return environ.includes(`${markVariable(mark)}=${mark}`) &&
      environ.some((entry) => entry.startsWith(`${CONTEXT_ENV.toolName}=`));
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

/** Live (not zombie) programs carrying `mark` and their descendants, except `server`. */
export function markedProcesses(mark: string, server?: number): ProcessInfo[] {
  return allPids().flatMap((pid) => {
    if (pid === server || !hasMark(pid, mark)) return [];
    const info = statOf(pid);
    return info && info.state !== "Z" ? [info] : [];
  });
}

/** Resolves once no program carrying `mark` is alive (but `server`); fails if one stays. */
export async function noneLeft(mark: string, server?: number): Promise<void> {
  await eventually(
    () => markedProcesses(mark, server).length === 0,
    "the programs' processes to end",
  );
  assert.deepEqual(markedProcesses(mark, server), []);
}

/** Marked processes that run `sleep` (deaf's, once its shell has set SIGTERM to be ignored). */
export function sleeping(mark: string, server?: number): number {
  return markedProcesses(mark, server).filter(({ pid }) => {
    try {
      return Deno.readTextFileSync(`/proc/${pid}/comm`).trim() === "sleep";
    } catch {
      return false; // it ended while we looked
    }
  }).length;
}

/** Live processes in process group `pgrp`. */
export function groupMembers(pgrp: number): ProcessInfo[] {
  return allPids().flatMap((pid) => {
    const info = statOf(pid);
    return info && info.pgrp === pgrp && info.state !== "Z" ? [info] : [];
  });
}

/**
 * Children of `parent` that are zombies (a parent that never reaped them) and lead their
 * own session, as programs do: other children of this process belong to other tests.
 */
export function zombieChildren(parent: number): ProcessInfo[] {
  return allPids().flatMap((pid) => {
    const info = statOf(pid);
    return info && info.ppid === parent && info.state === "Z" && info.session === pid ? [info] : [];
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

/** A memory field of `/proc/<pid>/status` in bytes: VmHWM (the peak resident) or VmRSS (now). */
export function statusBytes(pid: number, field: "VmHWM" | "VmRSS"): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const value = status.match(new RegExp(`${field}:\\s+(\\d+) kB`));
  if (value === null) throw new Error(`No ${field} in /proc/${pid}/status`);
  return Number(value[1]) * 1024;
}
