// Preloaded by bench/scale.ts (`deno run --preload bench/scale/reuse_port.ts main.ts --http …`):
// every Deno.serve of the process sets SO_REUSEPORT, so that several main.ts processes listen on
// one port and the kernel spreads connections over them. A measuring device only: main.ts has no
// flag for it (see adr/0019 for why, and what it does to 2025-era sessions).
const serve = Deno.serve;
// deno-lint-ignore no-explicit-any
(Deno as any).serve = (options: Deno.ServeTcpOptions, handler: Deno.ServeHandler) =>
  serve({ ...options, reusePort: true }, handler);
