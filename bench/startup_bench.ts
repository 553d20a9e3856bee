// What starting a process costs, piece by piece (adr/0008): each case spawns `deno run` on
// a small module and waits for it to exit, against an empty module in the same run. Then
// what the schema layer costs at start-up (adr/0010), in a fresh isolate. Both run on other
// checkouts as well when TOOLSHED_BASELINE names them (see below).
const ROOT = new URL("../", import.meta.url).pathname;
/** Other checkouts to compare (TOOLSHED_BASELINE=/a:/b), the first the schema layer's baseline. */
const OTHERS = (Deno.env.get("TOOLSHED_BASELINE") ?? "").split(":").filter((root) => root);

function start(args: string[]): () => Promise<void> {
  return async () => {
    const { success } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", ...args],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
    if (!success) throw new Error(`deno run ${args.join(" ")} failed`);
  };
}

/** The process-start group; with TOOLSHED_BASELINE (below), the server on each checkout too. */
function benchProcessStart(): void {
  const group = "process start";
  const piece = (name: string) => start([`${ROOT}bench/startup/${name}.ts`]);
  Deno.bench("empty module", { group, baseline: true }, piece("empty"));
  Deno.bench("+ node:util (parseArgs)", { group }, piece("node_util"));
  Deno.bench("+ node:util and node:console", { group }, piece("node_console"));
  Deno.bench("+ process.stdout", { group }, piece("process_stdout"));
  Deno.bench("+ @cfworker/json-schema", { group }, piece("validator"));
  Deno.bench("+ FFI dlopen of libc", { group }, piece("ffi"));
  Deno.bench("+ the first timer", { group }, piece("first_timer"));
  Deno.bench(
    "toolshed --version (its module graph)",
    { group },
    start([`${ROOT}main.ts`, "--version"]),
  );
  for (const root of [ROOT, ...OTHERS]) {
    const at = root.replace(/\/?$/, "/");
    Deno.bench(
      `toolshed serving bench/tools, stdin empty${root === ROOT ? "" : ` (${root})`}`,
      { group },
      start([`${at}main.ts`, "--tools", `${at}bench/tools`]),
    );
  }
}

// What the schema layer costs at start-up (adr/0010, "start-up cost"): in a fresh isolate
// (a Worker: V8 compiles the schema layer's functions anew, as in a new process), preparing
// bench/tools' ten inputSchemas as loadTools() does — each checked against its meta-schema,
// its references resolved and its cycles refused — and then one valid value for each (the
// compiled verdicts are built at that first validation). The imports happen before the
// clock starts; the figure includes two messages to and from the Worker (~0.1 ms). Set
// TOOLSHED_BASELINE to other checkouts (`git worktree add /tmp/cdf1141 cdf1141`), separated
// by ":", to run the same cases on their code in the same run, the first as the baseline:
//
//   TOOLSHED_BASELINE=/tmp/cdf1141:/tmp/head deno bench -A bench/startup_bench.ts \
//     --filter "schema layer"
const SCHEMA_WORKER = "schema layer";

interface SchemaLayerJob {
  root: string;
  call: boolean;
}

/** In the Worker: imports the root's schema layer and tools, says so, then does the job. */
function serveSchemaLayer(scope: {
  postMessage(message: unknown): void;
  onmessage: ((event: MessageEvent<SchemaLayerJob | "go">) => void) | null;
}): void {
  let job: (() => void) | undefined;
  scope.onmessage = async ({ data }) => {
    if (data === "go") {
      job!();
      scope.postMessage("done");
      return;
    }
    const base = `file://${data.root.replace(/\/?$/, "/")}`;
    // compileSchema() is in lib/schema/compile.ts now, in lib/schema.ts before issue 8.
    const layer = await import(`${base}lib/schema/compile.ts`)
      .catch(() => import(`${base}lib/schema.ts`));
    const tools: [string, { inputSchema: unknown }][] = [];
    for (const { name } of Deno.readDirSync(new URL("bench/tools/", base))) {
      tools.push([name, (await import(`${base}bench/tools/${name}`)).default]);
    }
    job = () => {
      for (const [name, tool] of tools) {
        const check = layer.compileSchema(tool.inputSchema);
        if (!data.call) continue;
        const problem = check(name === "echo.ts" ? { text: "x" } : { numbers: [1, 2] });
        if (problem !== undefined) throw new Error(`${name}: ${problem}`);
      }
    };
    scope.postMessage("ready");
  };
}

/** A bench of one job in a new Worker, timed from "go" to "done". */
function inFreshIsolate(job: SchemaLayerJob): (b: Deno.BenchContext) => Promise<void> {
  return async (b) => {
    const worker = new Worker(import.meta.url, { type: "module", name: SCHEMA_WORKER });
    try {
      const answer = () =>
        new Promise<void>((resolve, reject) => {
          worker.onmessage = () => resolve();
          worker.onerror = (event) => {
            event.preventDefault();
            reject(new Error(event.message));
          };
        });
      let next = answer();
      worker.postMessage(job);
      await next;
      next = answer();
      b.start();
      worker.postMessage("go");
      await next;
      b.end();
    } finally {
      worker.terminate();
    }
  };
}

if (self.name === SCHEMA_WORKER) {
  serveSchemaLayer(self as unknown as Parameters<typeof serveSchemaLayer>[0]);
} else {
  benchProcessStart();
  for (const call of [false, true]) {
    const group = call ? "schema layer: + a first valid value each" : "schema layer: prepare";
    for (const root of [ROOT, ...OTHERS]) {
      const label = root === ROOT ? "" : ` (${root})`;
      const then = call ? ", then a valid value each" : "";
      Deno.bench(
        `schema layer: compileSchema() of bench/tools' 10 inputSchemas${then}${label}`,
        { group, baseline: root === (OTHERS[0] ?? ROOT), n: 40, warmup: 5 },
        inFreshIsolate({ root, call }),
      );
    }
  }
}
