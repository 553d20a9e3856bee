// What every subcommand (`toolshed list`, `call`, `check`, `new`, `config`) is: a function of
// its arguments that writes through an Io and returns an exit code. The Io keeps the
// process out of lib/commands/, so a test runs a command in memory and reads what it said.

/** Where a command's words go, and what it may read of the process around it. */
export interface Io {
  /** The command's result, for a person or a pipe (stdout). */
  out(text: string): void;
  /** Diagnostics: warnings, errors, progress (stderr). */
  err(text: string): void;
  /** Reads the environment. */
  env(name: string): string | undefined;
  /** The working directory, absolute. */
  cwd: string;
  /**
   * Aborted on SIGINT or SIGTERM, for a command that runs until stopped (`toolshed dev`): once
   * asked for, such a signal no longer ends the process at once (a second one does), and the
   * command ends itself. Absent where nothing can stop a command (in memory).
   */
  stopped?(): AbortSignal;
}

/** Exit codes every command shares. */
export const EXIT = {
  ok: 0,
  /** The command ran and found something wrong (a failed call, a check with problems). */
  failed: 1,
  /** The command line itself was wrong. */
  usage: 2,
} as const;

/** One subcommand: its help and its body, loaded only when it runs. */
interface Subcommand {
  readonly name: string;
  /** One line for `toolshed --help`. */
  readonly summary: string;
  /** The whole help of the command (`toolshed NAME --help`). */
  readonly usage: string;
  run(args: string[], io: Io): Promise<number>;
}
