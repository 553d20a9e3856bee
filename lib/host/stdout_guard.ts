// stdout carries MCP messages only. Before any tool is loaded, every other way to reach
// stdout is pointed at stderr, and the server keeps the one real stdout writer for itself.
//
// Where it can (Linux and macOS, with FFI permission, as `-A` gives; stdout a pipe, a
// terminal, or on Linux a socket), it does so at the file descriptor: the real stdout is kept
// on a new descriptor, and descriptor 1 (with the copy of it Deno keeps for child processes)
// becomes a copy of stderr. Then nothing in the process can write protocol-breaking bytes,
// whatever API it uses: console, Deno.stdout, Node's process.stdout and fs.writeSync(1)
// (pino's default), Workers, /dev/stdout, child processes that inherit stdout.
//
// Without FFI (and with stdout a regular file, or a socket on macOS) it falls back to the
// APIs: Deno.stdout's methods (which Node's process.stdout writes through) and the console
// methods that print to stdout are pointed at stderr. Writes to the descriptor itself
// (fs.writeSync(1), Workers, child processes) then get through.
//
// No node: module is imported here on purpose: loading Deno's Node compatibility layer
// costs ~10 ms of start-up (adr/0008).
import type { ByteSink } from "../transports/stdio/writer.ts";

type Inspectable = Parameters<typeof Deno.inspect>[0];

/** Points every other path to stdout at stderr; returns the only writer left for stdout. */
export function guardStdout(): ByteSink {
  return moveStdoutDescriptor() ?? guardStdoutApis();
}

/**
 * Keeps the real stdout on a fresh descriptor and makes descriptor 1 a copy of stderr.
 * Returns undefined (changing nothing) where that is not possible.
 */
function moveStdoutDescriptor(): ByteSink | undefined {
  if (Deno.build.os !== "linux" && Deno.build.os !== "darwin") return undefined;
  if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") return undefined;
  let target: Deno.FileInfo;
  try {
    target = Deno.statSync("/dev/fd/1");
  } catch {
    return undefined;
  }
  // A pipe (what Deno and Python clients give) or a terminal can be reopened without changing
  // how writes land, and a socket (what Node.js clients give) written to through a copy of its
  // descriptor; a regular file reopened would have an offset of its own.
  const socket = target.isSocket === true && Deno.build.os === "linux";
  if (!target.isFifo && !target.isCharDevice && !socket) return undefined;
  let library: Deno.DynamicLibrary<typeof SYMBOLS>;
  try {
    library = Deno.dlopen(Deno.build.os === "darwin" ? "libSystem.dylib" : "libc.so.6", SYMBOLS);
  } catch {
    return undefined;
  }
  const libc = functionsOf(library);
  const sink = libc === undefined
    ? undefined
    : socket
    ? keepSocket(libc, target)
    : reopenStdout(libc, target);
  // The socket's writes go through the library for the life of the process.
  if (sink === undefined || !socket) library.close();
  return sink;
}

/** Opening /dev/fd/1 gives the pipe or terminal again, as a resource Deno can write to. */
function reopenStdout(libc: Libc, target: Deno.FileInfo): ByteSink | undefined {
  const copies = copiesOf(libc, target);
  let stdout: Deno.FsFile;
  try {
    stdout = Deno.openSync("/dev/fd/1", { write: true });
  } catch {
    return undefined;
  }
  if (pointAtStderr(libc, [...copies, 1])) return { write: (bytes) => stdout.write(bytes) };
  stdout.close();
  return undefined;
}

/**
 * A socket cannot be reopened by its path (Linux): a copy of descriptor 1 that child
 * processes do not inherit is kept, and written to through libc's `write`, nonblocking (on a
 * thread of Deno's, as Deno.stdout's writes run).
 */
function keepSocket(libc: Libc, target: Deno.FileInfo): ByteSink | undefined {
  const copies = copiesOf(libc, target);
  const kept = libc.fcntl(1, F_DUPFD_CLOEXEC, 3);
  if (kept < 0) return undefined;
  // A write that would block must wait, not fail: -1 here reads as the client gone. The flag
  // is the socket's own end's, which only this process holds.
  const flags = libc.fcntl(kept, F_GETFL, 0);
  if (flags >= 0 && (flags & O_NONBLOCK) !== 0) libc.fcntl(kept, F_SETFL, flags & ~O_NONBLOCK);
  if (!pointAtStderr(libc, [...copies, 1])) {
    libc.close(kept);
    return undefined;
  }
  return {
    async write(bytes) {
      const written = Number(await libc.write(kept, bytes, BigInt(bytes.byteLength)));
      // errno is not to be had from here; what a client makes fail is leaving (EPIPE,
      // ECONNRESET), which the stdio transport takes quietly.
      if (written < 0) throw new Deno.errors.BrokenPipe("stdout's socket is closed");
      return written;
    },
  };
}

/**
 * The descriptors above 2 open on the same pipe, terminal or socket as descriptor 1: Deno
 * keeps such a copy, made as it started, for the child processes that inherit stdout. Found
 * before the server's own copy is made.
 */
function copiesOf(libc: Libc, target: Deno.FileInfo): number[] {
  const copies: number[] = [];
  try {
    const same = sameAsStdout(target);
    for (const { name } of Deno.readDirSync("/dev/fd")) {
      const descriptor = Number(name);
      // The listing's own descriptor is closed by now; asking after it would throw, and the
      // first error a process makes costs milliseconds.
      if (descriptor <= 2 || libc.fcntl(descriptor, F_GETFD, 0) < 0) continue;
      if (same(`/dev/fd/${descriptor}`)) copies.push(descriptor);
    }
  } catch {
    // /dev/fd cannot be listed, or a descriptor was closed meanwhile: those found are moved.
  }
  return copies;
}

/**
 * On Linux, a descriptor's link names what it is open on ("pipe:[4026]", "socket:[4027]",
 * "/dev/pts/3"), without the Dates a stat makes. Elsewhere, a stat's device and inode.
 */
function sameAsStdout(target: Deno.FileInfo): (path: string) => boolean {
  if (Deno.build.os === "linux") {
    const link = Deno.readLinkSync("/dev/fd/1");
    return (path) => Deno.readLinkSync(path) === link;
  }
  return (path) => {
    const info = Deno.statSync(path);
    return info.dev === target.dev && info.ino === target.ino;
  };
}

/** dup2(2, descriptor) for each; false if one failed. */
function pointAtStderr(libc: Libc, descriptors: number[]): boolean {
  return descriptors.every((descriptor) => libc.dup2(2, descriptor) >= 0);
}

/**
 * What the guard calls of libc. Functions it calls at once are taken as plain addresses and
 * called through libffi: a symbol declared as a function is compiled to a trampoline when the
 * library is opened, which cost ~2 MB of peak memory, more than the rest of the guard
 * (adr/0074). A nonblocking symbol is not compiled.
 */
const SYMBOLS = {
  dup2: { type: "pointer" },
  fcntl: { type: "pointer" },
  close: { type: "pointer" },
  write: { parameters: ["i32", "buffer", "usize"], result: "isize", nonblocking: true },
} as const;
const DUP2 = { parameters: ["i32", "i32"], result: "i32" } as const;
/** fcntl with its third argument always given (an int), which F_GETFD ignores. */
const FCNTL = { parameters: ["i32", "i32", "i32"], result: "i32" } as const;
const CLOSE = { parameters: ["i32"], result: "i32" } as const;
/** Whether a descriptor is open (Linux and macOS). */
const F_GETFD = 1;
/** A copy of a descriptor that is closed in child processes (Linux). */
const F_DUPFD_CLOEXEC = 1030;
/** A descriptor's status flags, read and set, and the one that makes writes fail fast (Linux). */
const F_GETFL = 3;
const F_SETFL = 4;
const O_NONBLOCK = 0o4000;

interface Libc {
  dup2(from: number, to: number): number;
  fcntl(descriptor: number, command: number, argument: number): number;
  close(descriptor: number): number;
  write(descriptor: number, bytes: Uint8Array, length: bigint): Promise<number | bigint>;
}

/** libc's functions, or undefined where one was not found. */
function functionsOf(library: Deno.DynamicLibrary<typeof SYMBOLS>): Libc | undefined {
  const { dup2, fcntl, close, write } = library.symbols;
  if (dup2 === null || fcntl === null || close === null) return undefined;
  const call = <const D extends Deno.ForeignFunction>(address: Deno.PointerObject, definition: D) =>
    new Deno.UnsafeFnPointer(address as Deno.PointerObject<D>, definition);
  const dup2Pointer = call(dup2, DUP2);
  const fcntlPointer = call(fcntl, FCNTL);
  const closePointer = call(close, CLOSE);
  return {
    dup2: (from, to) => dup2Pointer.call(from, to),
    fcntl: (descriptor, command, argument) => fcntlPointer.call(descriptor, command, argument),
    close: (descriptor) => closePointer.call(descriptor),
    write,
  };
}

/** The fallback: the APIs that print to stdout are pointed at stderr. */
function guardStdoutApis(): ByteSink {
  const stdout = Deno.stdout;
  const realWrite = stdout.write.bind(stdout);
  const refuseClose = () => {
    throw new Error("stdout belongs to the MCP server and cannot be closed by a tool");
  };
  Object.defineProperties(stdout, {
    write: { value: Deno.stderr.write.bind(Deno.stderr) },
    writeSync: { value: Deno.stderr.writeSync.bind(Deno.stderr) },
    writable: { get: () => Deno.stderr.writable },
    close: { value: refuseClose },
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
