// stdout carries MCP messages only. Deno's console.log, info, debug, table, dir, count
// and time* print to stdout, so before any tool is loaded every console method is
// replaced by one that prints to stderr: a tool's stray print cannot corrupt the stream.
// npm packages write to process.stdout (loggers such as pino do), so it goes to stderr
// too. A tool that writes to Deno.stdout directly is not caught; the README says so.
import { Console } from "node:console";
import process from "node:process";

const encoder = new TextEncoder();

/** A minimal writable stream that node:console accepts, writing to stderr. */
const stderrStream = {
  write(chunk: string | Uint8Array): boolean {
    const bytes = typeof chunk === "string" ? encoder.encode(chunk) : chunk;
    let offset = 0;
    while (offset < bytes.length) offset += Deno.stderr.writeSync(bytes.subarray(offset));
    return true;
  },
  // node:console asks for error listeners before each write, and silently drops the
  // write if it cannot: these make it a stream it trusts.
  listenerCount: () => 0,
  on() {},
  once() {},
  removeListener() {},
};

/** Points every console method at stderr. */
export function guardStdout(): void {
  const toStderr = new Console({
    stdout: stderrStream as unknown as NodeJS.WritableStream,
    stderr: stderrStream as unknown as NodeJS.WritableStream,
  });
  const target = globalThis.console as unknown as Record<string, unknown>;
  const source = toStderr as unknown as Record<string, unknown>;
  for (const key of Object.keys(target)) {
    if (typeof source[key] === "function") target[key] = (source[key] as () => void).bind(toStderr);
  }
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
}
