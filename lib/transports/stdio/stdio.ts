// The stdio transport: input bytes -> line framing -> extract -> the connection engine (the
// request core behind it) -> one serialization per message -> the writer. It frames and
// writes; what belongs to the connection (its session, its requests in flight, the requests it
// sends the client, change notices) is the engine's (connection/connection.ts). Requests run
// concurrently; responses leave in the order they finish. Shutdown is stdio's own: clients
// close stdin, then signal.
import { messageOf } from "../../util/json.ts";
import type { JsonObject } from "../../util/json.ts";
import { oversizeLine, shuttingDown } from "../../wire/errors.ts";
import { extract } from "../../wire/extract.ts";
import { serialize } from "../../wire/serialize.ts";
import type { Core } from "../../core/handle.ts";
import { createConnection } from "../../connection/connection.ts";
import { createSlots } from "../../util/slots.ts";
import type { Origin } from "../../methods/context.ts";
import { agreedVersion, createSession, type SessionEnd } from "../../methods/session.ts";
import type { Registry } from "../../primitives/registry.ts";
import { createLineFramer } from "./framing.ts";
import { settlesWithin } from "../../util/settles_within.ts";
import { type Diagnostics, inform } from "../../util/diagnostics.ts";
import type { RequestId, RpcError } from "../../wire/types.ts";
import { type ByteSink, createWriter } from "./writer.ts";

/** Where bytes come from: `Deno.stdin` or anything with the same `read`. */
/** Serialized responses waiting for a slow stdio reader, past which toolshed stops reading. */
export const OUTPUT_BOUND_CHARS = 16 * 1024 * 1024;
/** Bytes of stdio requests waiting for a free slot, past which toolshed stops reading. */
export const WAITING_BOUND_BYTES = 1024 * 1024;

export interface ByteSource {
  read(buffer: Uint8Array): Promise<number | null>;
}

interface ServerOptions {
  input: ByteSource;
  output: ByteSink;
  core: Core;
  /** Lines longer than this many bytes get an error and are skipped. */
  maxMessageBytes: number;
  /** How long in-flight requests may run on after input ends or shutdown is asked. */
  shutdownGraceMs: number;
  /** Serialized output waiting to be written past which reading pauses. */
  outputBoundChars: number;
  /** Requests that may run at once; more wait in arrival order. */
  maxConcurrency: number;
  /** Bytes of waiting requests past which reading pauses. */
  waitingBoundBytes: number;
  /** Where the transport's own troubles (unreadable input, shutdown) are reported. */
  diagnostics: Diagnostics;
  /** When what is served can change (--watch): the connection is told of each change. */
  registry?: Registry;
  /** Told when the connection ends (telemetry, when it is on). */
  ended?: (end: SessionEnd) => void;
}

export interface Server {
  /** Resolves when input has ended and everything has been answered and written. */
  done: Promise<void>;
  /**
   * Stops reading, lets in-flight requests finish within the grace period, flushes; a
   * second call while that is under way aborts what is still running.
   */
  shutdown(reason: string): Promise<void>;
  /** Requests running and waiting for a slot now (the gauges of --metrics). */
  load(): { running: number; waiting: number };
}

const READ_CHUNK_BYTES = 64 * 1024;
/** Where every request of a stdio connection comes from. */
const STDIO: Origin = Object.freeze({ transport: "stdio", sessionId: undefined });

export function serve(options: ServerOptions): Server {
  const logError = options.diagnostics.error;
  let stopping: Promise<void> | undefined;
  let outputClosed = false;
  let markOutputClosed = () => {};
  const outputClosedEarly = new Promise<void>((resolve) => markOutputClosed = resolve);

  const writer = createWriter(options.output, {
    boundChars: options.outputBoundChars,
    onClosed(error) {
      outputClosed = true;
      if (!(error instanceof Deno.errors.BrokenPipe)) {
        logError(`Cannot write to the output: ${messageOf(error)}`);
      }
      connection.dropWaiting();
      connection.abortRunning("the output is closed");
      markOutputClosed();
    },
  });

  function send(message: JsonObject): void {
    writer.send(serialize(message));
  }

  const opened = performance.now();
  const session = createSession();
  const connection = createConnection({
    core: options.core,
    session,
    origin: STDIO,
    send,
    slots: createSlots(options.maxConcurrency),
    waitingBoundBytes: options.waitingBoundBytes,
    // A reload's changes, as the core says this connection should hear of them.
    registry: options.registry,
  });

  const framer = createLineFramer(options.maxMessageBytes, {
    line(bytes) {
      const message = extract(bytes);
      switch (message.kind) {
        case "request":
          // Read after shutdown began (the rest of the last chunk): answered, never dropped.
          if (stopping) return send(errorResponse(message.id, shuttingDown()));
          connection.request(message, { bytes: bytes.length });
          return;
        case "notification":
          return connection.notification(message);
        case "response":
          // An answer to a request we sent; one that nothing awaits is dropped.
          connection.response(message);
          return;
        case "rejected":
          return send(errorResponse(message.id, message.error));
        case "ignored":
          return;
      }
    },
    oversize(limit) {
      send(errorResponse(null, oversizeLine(limit)));
    },
  });

  /** Reads until input ends ("end of input") or until shutdown or a closed output stop it. */
  async function readLoop(): Promise<"end of input" | "stopped"> {
    let buffer = new Uint8Array(READ_CHUNK_BYTES);
    while (!stopping && !outputClosed) {
      let count: number | null;
      try {
        count = await options.input.read(buffer);
      } catch (error) {
        logError(`Cannot read the input: ${messageOf(error)}`);
        return endOfInput();
      }
      if (count === null) return endOfInput();
      // Answers that are ready by the end of the chunk leave together, in one write.
      writer.hold();
      // The framer keeps a chunk that starts a long line rather than copying it.
      if (framer.push(buffer.subarray(0, count))) buffer = new Uint8Array(READ_CHUNK_BYTES);
      writer.release();
      // Backpressure: a client that outpaces us waits in the pipe, not in our memory.
      await writer.belowBound();
      await connection.waitingBelowBound();
    }
    return "stopped";
  }

  function endOfInput(): "end of input" {
    if (!stopping) framer.end();
    return "end of input";
  }

  /**
   * Waits up to one grace period for in-flight requests (then aborts them, which answers
   * them at once), and up to another for the output to be written.
   */
  async function finish(): Promise<void> {
    // Long-lived requests (listen streams) first: asked to close, they answer at once; the
    // grace period is for the calls.
    const closing = connection.closeLongLived();
    if (
      closing && await settlesWithin(closing, options.shutdownGraceMs) === "timed out"
    ) {
      logError("Long-lived requests did not close within the grace period; aborting them");
    }
    // Timers are set only when there is something to wait for: the first setTimeout of a
    // process costs ~3 ms, which an idle server's exit should not pay.
    if (
      connection.busy() &&
      await settlesWithin(connection.idle(), options.shutdownGraceMs) === "timed out"
    ) {
      logError("Requests still running after the grace period; aborting them");
      stopNow();
      // Aborted tool calls answer at once with an isError result; wait for those answers.
      await connection.idle();
    }
    // A client that stopped reading must not keep the process alive forever.
    if (
      writer.writing() &&
      await settlesWithin(writer.flushed(), options.shutdownGraceMs) === "timed out"
    ) {
      logError("The output could not be flushed within the grace period; exiting anyway");
    }
  }

  /** Answers the requests that never started and aborts the running ones. */
  function stopNow(): void {
    connection.answerWaiting(shuttingDown());
    connection.abortRunning("the server is shutting down");
  }

  /**
   * Starts a graceful shutdown; asked again while one is under way (say, SIGTERM after the
   * client closed stdin), stops at once: waiting requests are answered, running ones
   * aborted. Clients close stdin, then send SIGTERM, then SIGKILL: by the SIGKILL,
   * everything (a tool's child processes included) must already be ended.
   */
  function shutdown(reason: string): Promise<void> {
    if (stopping) {
      logError(`Shutting down now: ${reason}`);
      stopNow();
      return stopping;
    }
    // What it awaits from the client is rejected at once (its tools answer), and it hears of
    // no more changes.
    connection.close("the connection is closing", false);
    stopping = (async () => {
      if (reason !== "end of input" && reason !== "the output is closed") {
        inform(options.diagnostics, `Shutting down: ${reason}`);
      }
      await finish();
    })();
    return stopping;
  }

  // Input may stay open after the client has closed our output: stop on whichever ends
  // first. Input that ends during a shutdown is the client's second word (clients close
  // stdin, then signal): it stops at once. A line read after shutdown began only ends the
  // read loop: the calls in flight keep their grace period.
  const done = Promise.race([readLoop(), outputClosedEarly.then(() => "stopped" as const)])
    .then((why) => {
      if (outputClosed) return shutdown("the output is closed");
      if (why === "end of input") return shutdown("end of input");
      return stopping ?? shutdown("end of input");
    }).finally(() => {
      connection.close("the connection is closed", false);
      options.ended?.({
        transport: "stdio",
        protocolVersion: agreedVersion(session),
        seconds: (performance.now() - opened) / 1000,
      });
    });
  return { done, shutdown, load: connection.load };
}

function errorResponse(id: RequestId | null, error: RpcError) {
  return { jsonrpc: "2.0", id, error };
}
