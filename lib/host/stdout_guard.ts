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
  const reopen = target.isFifo || target.isCharDevice;
  const socket = target.isSocket === true && Deno.build.os === "linux";
  if (!reopen && !socket) return undefined;
  // Deno keeps a copy of descriptor 1, made as it started, for the child processes that
  // inherit stdout; it is pointed at stderr too. Found before the server's own is opened.
  const copies = copiesOf(target);
  if (socket) return keepSocket([...copies, 1]);
  let stdout: Deno.FsFile;
  try {
    // Opening /dev/fd/1 gives the pipe or terminal again, on a new descriptor, as a resource
    // Deno can write to.
    stdout = Deno.openSync("/dev/fd/1", { write: true });
  } catch {
    return undefined;
  }
  if (copyStderrOnto([...copies, 1])) return { write: (bytes) => stdout.write(bytes) };
  stdout.close();
  return undefined;
}

/** The descriptors above 2 open on the same pipe, terminal or socket as descriptor 1. */
function copiesOf(target: Deno.FileInfo): number[] {
  const copies: number[] = [];
  try {
    const same = sameAsStdout(target);
    for (const { name } of Deno.readDirSync("/dev/fd")) {
      const descriptor = Number(name);
      if (descriptor > 2 && same(`/dev/fd/${descriptor}`)) copies.push(descriptor);
    }
  } catch {
    // /dev/fd cannot be listed: descriptor 1 alone is moved.
  }
  return copies;
}

/**
 * On Linux, a descriptor's link names what it is open on ("pipe:[4026]", "socket:[4027]",
 * "/dev/pts/3"), without the Dates a stat makes: with twenty descriptors, ~0.6 MB less of
 * peak memory (bench/startup/guard_steps.ts). Elsewhere, a stat's device and inode.
 */
function sameAsStdout(target: Deno.FileInfo): (path: string) => boolean {
  const quietly = (test: (path: string) => boolean) => (path: string) => {
    try {
      return test(path);
    } catch {
      return false; // closed since it was listed, as the listing's own descriptor is
    }
  };
  if (Deno.build.os === "linux") {
    const link = Deno.readLinkSync("/dev/fd/1");
    return quietly((path) => Deno.readLinkSync(path) === link);
  }
  return quietly((path) => {
    const info = Deno.statSync(path);
    return info.dev === target.dev && info.ino === target.ino;
  });
}

const LIBC = Deno.build.os === "darwin" ? "libSystem.dylib" : "libc.so.6";
const DUP2 = { parameters: ["i32", "i32"], result: "i32" } as const;
const FCNTL = { parameters: ["i32", "i32", "i32"], result: "i32" } as const;
const CLOSE = { parameters: ["i32"], result: "i32" } as const;
/** Linux's fcntl command for a copy of a descriptor that is closed in child processes. */
const F_DUPFD_CLOEXEC = 1030;

/**
 * dup2(2, descriptor) for each, called through a plain function pointer: a symbol declared as
 * a function is compiled to a trampoline when the library is opened, which cost ~2 MB of peak
 * memory, more than the rest of the guard (adr/0074); a call through a pointer goes through
 * libffi instead.
 */
function copyStderrOnto(descriptors: number[]): boolean {
  let libc;
  try {
    libc = Deno.dlopen(LIBC, { dup2: { type: "pointer" } });
  } catch {
    return false;
  }
  try {
    return pointAtStderr(libc.symbols.dup2, descriptors);
  } finally {
    libc.close();
  }
}

/** dup2(2, descriptor) for each, through `dup2`'s address; false if one failed. */
function pointAtStderr(dup2: Deno.PointerValue, descriptors: number[]): boolean {
  const call = callable(dup2, DUP2);
  return call !== undefined && descriptors.every((descriptor) => call(2, descriptor) >= 0);
}

/** A function pointer of libc as a function, or undefined where the symbol was not found. */
function callable<const Definition extends Deno.ForeignFunction>(
  address: Deno.PointerValue,
  definition: Definition,
) {
  if (address === null) return undefined;
  const pointer = new Deno.UnsafeFnPointer(
    address as Deno.PointerObject<Definition>,
    definition,
  );
  return (...parameters: Deno.ToNativeParameterTypes<Definition["parameters"]>) =>
    pointer.call(...parameters);
}

/**
 * Linux, stdout a socket, which cannot be reopened by its path: a copy of descriptor 1 that
 * child processes do not inherit is kept, and the server writes to it through libc's `write`,
 * nonblocking (on a thread of Deno's, as Deno.stdout's writes run; no trampoline is compiled
 * for a nonblocking symbol). The library stays open for the life of the process.
 */
function keepSocket(descriptors: number[]): ByteSink | undefined {
  let libc;
  try {
    libc = Deno.dlopen(LIBC, {
      fcntl: { type: "pointer" },
      dup2: { type: "pointer" },
      close: { type: "pointer" },
      write: { parameters: ["i32", "buffer", "usize"], result: "isize", nonblocking: true },
    });
  } catch {
    return undefined;
  }
  const fcntl = callable(libc.symbols.fcntl, FCNTL);
  const kept = fcntl?.(1, F_DUPFD_CLOEXEC, 3) ?? -1;
  if (kept >= 0 && pointAtStderr(libc.symbols.dup2, descriptors)) {
    const write = libc.symbols.write;
    return {
      async write(bytes) {
        const written = Number(await write(kept, bytes, BigInt(bytes.byteLength)));
        // errno is not to be had from here; what a client makes fail is leaving (EPIPE,
        // ECONNRESET), which the stdio transport takes quietly.
        if (written < 0) throw new Deno.errors.BrokenPipe("stdout's socket is closed");
        return written;
      },
    };
  }
  if (kept >= 0) callable(libc.symbols.close, CLOSE)?.(kept);
  libc.close();
  return undefined;
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
