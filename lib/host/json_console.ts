// With --log-format json, what code in the process prints through `console` (a tool module's
// console.log, a library's console.warn) becomes one JSON line each, like every other line on
// stderr, with `"source": "console"`. Writes that go around console (Deno.stderr.write, a
// Worker's console, fs.writeSync(2)) cannot be caught here and stay as they were written
// (docs/operating/logs.md).
import type { LogLevel } from "./log_lines.ts";
import { writeRecord } from "./stderr_log.ts";

type Inspectable = Parameters<typeof Deno.inspect>[0];

/** Points the console's printing methods at the JSON log. */
export function consoleAsRecords(): void {
  const at = (level: LogLevel) => (...data: unknown[]) =>
    writeRecord({ level, message: textOf(data), fields: { source: "console" } });
  const counts = new Map<string, number>();
  const timers = new Map<string, number>();
  const info = at("info");
  Object.assign(console, {
    log: info,
    info,
    debug: info,
    trace: info,
    dirxml: info,
    warn: at("warn"),
    error: at("error"),
    assert: (condition: unknown, ...data: unknown[]) => {
      if (!condition) at("error")("Assertion failed", ...data);
    },
    dir: (item: Inspectable, options?: Deno.InspectOptions) => info(Deno.inspect(item, options)),
    table: (data: Inspectable) => info(Deno.inspect(data)),
    count: (label = "default") => {
      const count = (counts.get(label) ?? 0) + 1;
      counts.set(label, count);
      info(`${label}: ${count}`);
    },
    countReset: (label = "default") => counts.delete(label),
    time: (label = "default") => timers.set(label, performance.now()),
    timeLog: (label = "default", ...data: unknown[]) => info(elapsed(timers, label), ...data),
    timeEnd: (label = "default") => {
      info(elapsed(timers, label));
      timers.delete(label);
    },
  });
}

/** The console's text of its arguments: strings as they are, anything else inspected. */
function textOf(data: readonly unknown[]): string {
  return data.map((item) => typeof item === "string" ? item : Deno.inspect(item)).join(" ");
}

function elapsed(timers: Map<string, number>, label: string): string {
  const started = timers.get(label);
  return started === undefined
    ? `Warning: No such label '${label}' for console.timeLog()`
    : `${label}: ${(performance.now() - started).toFixed(3)}ms`;
}
