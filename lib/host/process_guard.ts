// What a tool cannot do to the server's process. Tools run in the server's own process,
// so before any tool loads:
// - a promise rejected with nobody listening, or an exception thrown from a timer
//   callback, is logged instead of ending the process (Deno's default);
// - Deno.exit (which Node's process.exit calls too) throws instead of exiting, so a tool
//   that calls it gets an isError result; the server keeps the real one for itself.
// Not covered: a tool can still kill its own process (Deno.kill(Deno.pid, "SIGKILL")),
// exhaust memory, or block the event loop with synchronous work. The README says so.
import { logError } from "./stderr_log.ts";

/** Installs the guards; returns the real Deno.exit, which only the server may call. */
export function guardProcess(): (code?: number) => never {
  globalThis.addEventListener("unhandledrejection", (event) => {
    event.preventDefault();
    logError("A promise was rejected and nobody handled it (the server goes on)", event.reason);
  });
  globalThis.addEventListener("error", (event) => {
    event.preventDefault();
    logError("An uncaught exception was thrown (the server goes on)", event.error);
  });
  const exit = Deno.exit.bind(Deno);
  Object.defineProperty(Deno, "exit", {
    value: (code?: number): never => {
      throw new Error(
        `A tool called Deno.exit(${code ?? ""}): tools may not end the server, so this ` +
          "call failed instead",
      );
    },
  });
  return exit;
}
