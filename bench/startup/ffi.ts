// Opening libc through FFI, as the descriptor-level stdout guard does.
const libc = Deno.dlopen(Deno.build.os === "darwin" ? "libSystem.dylib" : "libc.so.6", {
  getpid: { parameters: [], result: "i32" },
});
libc.symbols.getpid();
libc.close();
