// What `deno compile` needs beyond the repository, Deno's standalone runtime `denort`: the
// checks and messages live in lib/commands/denort.ts, shared with `toolshed publish`.
export * from "../lib/commands/denort.ts";
