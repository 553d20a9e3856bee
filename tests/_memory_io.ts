// A command's Io in memory (lib/commands/command.ts), for tests that run a command in process
// and read what it said.
import type { Io } from "../lib/commands/command.ts";

/**
 * An Io whose working directory is `cwd` and whose environment is `env` (default: this
 * process's); `out()` and `err()` give all that was written to each.
 */
export function memoryIo(cwd: string, env?: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    env: (name) => env === undefined ? Deno.env.get(name) : env[name],
    cwd,
  };
  return { io, out: () => out.join(""), err: () => err.join("") };
}
