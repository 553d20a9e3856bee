// stdout carries MCP messages only. Before any tool is loaded, everything that could
// print to stdout is pointed at stderr: the console methods that print to stdout, and
// Deno.stdout itself (which Node's process.stdout also writes through, so npm loggers
// are covered). The server keeps the one real stdout writer for itself.
//
// No node: module is imported here on purpose: loading Deno's Node compatibility layer
// costs ~10 ms of start-up (adr/0008).
import type { ByteSink } from "./writer.ts";

type Inspectable = Parameters<typeof Deno.inspect>[0];

/** Points every other path to stdout at stderr; returns the only writer left for stdout. */
export function guardStdout(): ByteSink {
  const stdout = Deno.stdout;
  const realWrite = stdout.write.bind(stdout);
  Object.defineProperties(stdout, {
    write: { value: Deno.stderr.write.bind(Deno.stderr) },
    writeSync: { value: Deno.stderr.writeSync.bind(Deno.stderr) },
    writable: { get: () => Deno.stderr.writable },
  });
  redirectConsole();
  return { write: realWrite };
}

/** Deno's console.log, info, debug, dirxml, dir, table, count and time* print to stdout. */
function redirectConsole(): void {
  const print = console.error.bind(console);
  const counts = new Map<string, number>();
  const timers = new Map<string, number>();
  const elapsed = (label: string) =>
    `${label}: ${(performance.now() - timers.get(label)!).toFixed(3)}ms`;
  Object.assign(console, {
    log: print,
    info: print,
    debug: print,
    dirxml: print,
    dir: (item: Inspectable, options?: Deno.InspectOptions) => print(Deno.inspect(item, options)),
    // Tables are printed as an inspection; the point is that they reach stderr.
    table: (data: Inspectable) => print(Deno.inspect(data)),
    count: (label = "default") => {
      const count = (counts.get(label) ?? 0) + 1;
      counts.set(label, count);
      print(`${label}: ${count}`);
    },
    countReset: (label = "default") => counts.delete(label),
    time: (label = "default") => timers.set(label, performance.now()),
    timeLog: (label = "default", ...data: unknown[]) => {
      if (timers.has(label)) print(elapsed(label), ...data);
      else print(`Warning: No such label '${label}' for console.timeLog()`);
    },
    timeEnd: (label = "default") => {
      if (timers.has(label)) print(elapsed(label));
      else print(`Warning: No such label '${label}' for console.timeEnd()`);
      timers.delete(label);
    },
  });
}
