// The subcommands, by name. Each body is imported only when it runs, so that `toolshed`
// (serve) starts without loading any of them.
import { closest } from "../util/suggest.ts";
import type { Io } from "./command.ts";

/** A subcommand's name and summary, and where its body lives. */
export interface Entry {
  readonly name: string;
  readonly summary: string;
  load(): Promise<{ command: { usage: string; run(args: string[], io: Io): Promise<number> } }>;
}

const COMMANDS: readonly Entry[] = [
  {
    name: "serve",
    summary: "Serve the server directory to MCP clients (the default)",
    load: () => Promise.reject(new Error("serve runs in main.ts")),
  },
  {
    name: "list",
    summary: "Show the tools, resources and prompts a directory serves",
    load: () => import("./list.ts"),
  },
  {
    name: "call",
    summary: "Call one tool as a client would and print its result",
    load: () => import("./call.ts"),
  },
  {
    name: "check",
    summary: "Check a server directory as start-up does, type-check it and lint its schemas",
    load: () => import("./check.ts"),
  },
  {
    name: "dev",
    summary: "Serve a directory for its author: reload, check and a page on 127.0.0.1",
    load: () => import("./dev.ts"),
  },
  {
    name: "new",
    summary: "Write a working tool, resource or prompt to start from",
    load: () => import("./new.ts"),
  },
  {
    name: "config",
    summary: "Print (or --write) an MCP client's configuration for this server",
    load: () => import("./config.ts"),
  },
  {
    name: "compile",
    summary: "Compile the server directory into one executable that serves it",
    load: () => import("./compile.ts"),
  },
  {
    name: "publish",
    summary: "Compile the server into MCP Bundles (.mcpb) and write the registry's server.json",
    load: () => import("./publish.ts"),
  },
];

/** What the first argument asks for: a subcommand, serving, or a mistyped command. */
type Choice =
  | { kind: "serve"; args: string[] }
  | { kind: "command"; entry: Entry; args: string[] }
  | { kind: "help"; entry: Entry }
  | { kind: "unknown"; message: string };

/**
 * Picks the subcommand named by `args[0]`; flags first (or nothing) mean serve, as they
 * always have. `help NAME` is the help of NAME.
 */
export function chooseCommand(args: string[]): Choice {
  const first = args[0];
  if (first === undefined || first.startsWith("-")) return { kind: "serve", args };
  if (first === "serve") return { kind: "serve", args: args.slice(1) };
  if (first === "help") {
    const named = args[1];
    if (named === undefined) return { kind: "serve", args: ["--help"] };
    const entry = COMMANDS.find((command) => command.name === named);
    if (entry === undefined) return unknown(named);
    return entry.name === "serve" ? { kind: "serve", args: ["--help"] } : { kind: "help", entry };
  }
  const entry = COMMANDS.find((command) => command.name === first);
  if (entry === undefined) return unknown(first);
  return { kind: "command", entry, args: args.slice(1) };
}

function unknown(name: string): Choice {
  const meant = closest(name, [...COMMANDS.map((command) => command.name), "help"]);
  return {
    kind: "unknown",
    message: `Unknown command "${name}"${meant === undefined ? "" : `; did you mean ${meant}?`}`,
  };
}

/** The commands part of `toolshed --help`. */
export function commandsHelp(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length)) + 2;
  return COMMANDS.map((command) => `  ${command.name.padEnd(width)}${command.summary}`).join("\n");
}
