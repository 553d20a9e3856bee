// deno-lint-ignore-file no-console -- a probe prints its timings for people
// A probe for issue 42 (adr/0074 step 4): what one awaited write of a short line costs through
// Deno.stdout against a second FsFile on the same pipe (/dev/fd/1 reopened, as the stdout
// guard writes), run with stdout a pipe that something drains:
//
//   deno run -A bench/startup/write_cost.ts stdout|reopened [WRITES] | cat > /dev/null
//
// Prints microseconds per write to stderr.
const [how = "stdout", count = "20000"] = Deno.args;
const writes = Number(count);
const sink = how === "stdout"
  ? Deno.stdout
  : how === "reopened"
  ? Deno.openSync("/dev/fd/1", { write: true })
  : undefined;
if (sink === undefined) throw new Error(`write_cost.ts: "${how}" is neither stdout nor reopened`);
const line = new TextEncoder().encode(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}\n`);
for (let i = 0; i < 1000; i++) await sink.write(line); // warming
const started = performance.now();
for (let i = 0; i < writes; i++) await sink.write(line);
console.error(`${how} ${((performance.now() - started) * 1000 / writes).toFixed(2)}`);
