// deno-lint-ignore-file no-console -- a probe prints its timings for people
// A probe for issue 42 (adr/0074 step 4): the bare stdio loop after some of the stdout guard's
// steps, to see what each costs in time and VmHWM at the first answer
// (bench/startup/guard_probe.ts runs it).
//
//   deno run -A bench/startup/guard_steps.ts [--time] STEP...
//
// With --time, each step's milliseconds are printed to stderr.
//
// Steps: query (the FFI permission), stat (/dev/fd/1), scan-stat and scan-readlink (every
// descriptor compared with 1, by stat or by readlink), dlopen0 (libc with no symbol),
// dlopen1 (dup2 only), dlopen3 (dup, dup2, close: what the guard declares), nonblocking3 (the
// same three, nonblocking), pointer (dup2's address as a static, an UnsafeFnPointer made),
// open (Deno.openSync of /dev/fd/1), move-turbo (the guard as built: dup, reopen, dup2,
// answers written through the reopened descriptor), move-pointer (open /dev/fd/1, then dup2
// called through an UnsafeFnPointer, answers through the reopened descriptor).
const LIBC = Deno.build.os === "darwin" ? "libSystem.dylib" : "libc.so.6";
const I32 = "i32" as const;
const DUP2 = { parameters: [I32, I32], result: I32 } as const;
type Dup2 = Deno.PointerObject<typeof DUP2>;

function step(name: string): void {
  switch (name) {
    case "query":
      Deno.permissions.querySync({ name: "ffi" });
      return;
    case "stat":
      Deno.statSync("/dev/fd/1");
      return;
    case "readlink":
      Deno.readLinkSync("/dev/fd/1");
      return;
    case "fstat":
      Deno.openSync("/dev/fd/1", { write: true }).statSync();
      return;
    case "scan-stat": {
      const target = Deno.statSync("/dev/fd/1");
      for (const { name } of Deno.readDirSync("/dev/fd")) {
        try {
          const info = Deno.statSync(`/dev/fd/${name}`);
          if (info.dev === target.dev && info.ino === target.ino) continue;
        } catch {
          // the listing's own descriptor
        }
      }
      return;
    }
    case "scan-readlink": {
      const target = Deno.readLinkSync("/dev/fd/1");
      for (const { name } of Deno.readDirSync("/dev/fd")) {
        try {
          if (Deno.readLinkSync(`/dev/fd/${name}`) === target) continue;
        } catch {
          // the listing's own descriptor
        }
      }
      return;
    }
    case "date":
      new Date(0).getTime();
      return;
    case "dlopen0":
      Deno.dlopen(LIBC, {}).close();
      return;
    case "dlopen1":
      Deno.dlopen(LIBC, { dup2: { parameters: [I32, I32], result: I32 } }).close();
      return;
    case "dlopen3":
      Deno.dlopen(LIBC, {
        dup: { parameters: [I32], result: I32 },
        dup2: { parameters: [I32, I32], result: I32 },
        close: { parameters: [I32], result: I32 },
      }).close();
      return;
    case "nonblocking3":
      Deno.dlopen(LIBC, {
        dup: { parameters: [I32], result: I32, nonblocking: true },
        dup2: { parameters: [I32, I32], result: I32, nonblocking: true },
        close: { parameters: [I32], result: I32, nonblocking: true },
      }).close();
      return;
    case "pointer": {
      const libc = Deno.dlopen(LIBC, { dup2: { type: "pointer" } });
      new Deno.UnsafeFnPointer(libc.symbols.dup2 as Dup2, DUP2);
      libc.close();
      return;
    }
    case "open":
      Deno.openSync("/dev/fd/1", { write: true });
      return;
    case "move-turbo": {
      const libc = Deno.dlopen(LIBC, {
        dup: { parameters: [I32], result: I32 },
        dup2: { parameters: [I32, I32], result: I32 },
        close: { parameters: [I32], result: I32 },
      });
      const kept = libc.symbols.dup(1);
      const out = Deno.openSync(`/dev/fd/${kept}`, { write: true });
      libc.symbols.close(kept);
      libc.symbols.dup2(2, 1);
      libc.close();
      answerThrough(out);
      return;
    }
    case "move-pointer": {
      const out = Deno.openSync("/dev/fd/1", { write: true });
      const libc = Deno.dlopen(LIBC, { dup2: { type: "pointer" } });
      const dup2 = new Deno.UnsafeFnPointer(libc.symbols.dup2 as Dup2, DUP2);
      dup2.call(2, 1);
      libc.close();
      answerThrough(out);
      return;
    }
    default:
      throw new Error(`guard_steps.ts: unknown step "${name}"`);
  }
}

/** The bare loop writes with Deno.stdout.write; after a move, that is the kept descriptor. */
function answerThrough(out: Deno.FsFile): void {
  Object.defineProperty(Deno.stdout, "write", { value: (bytes: Uint8Array) => out.write(bytes) });
}

const timed = Deno.args[0] === "--time";
for (const name of Deno.args.slice(timed ? 1 : 0)) {
  const started = performance.now();
  step(name);
  if (timed) console.error(`${name} ${(performance.now() - started).toFixed(3)}`);
}
await import("../contestants/bare_loop.ts");
