// The child of code mode's sandbox (adr/0073 decision 2): one process that runs one piece of the
// model's code, then exits. It revokes every permission before anything else, takes what it
// needs from the runtime (stdin and stdout, which carry its protocol with the parent) and then
// takes the runtime out of the code's reach: `Deno` (and with it Deno.stdout, Deno.exit,
// Deno[Deno.internal]), the Node globals that would load Deno's Node layer, Workers (a Worker
// gets a `Deno` of its own), the storage that outlives a process (localStorage, caches), and
// alert, confirm and prompt (which write to stdout and read stdin where it is a terminal).
//
// The protocol, one JSON object per line (sandbox_lines.ts reads the child's lines):
//   parent → child  {"run":{code,maxCalls,maxConsoleBytes,maxResultBytes,logChunkBytes}}  once
//                   {"result":{"id":N,"value":V}} or {"result":{"id":N,"error":"…"}}
//   child → parent  {"log":"text"} (console output, in chunks)  {"cut":true}  (no more follows)
//                   {"call":{"id":N,"name":"…","args":{…}}}
//                   {"done":{"ok":true,"value":V}} or {"done":{"ok":false,"error":"…"}}
//
// `runSandboxChild` is one self-contained function: from source, the parent passes its text to
// `deno eval` (so that nothing needs to be read, from a file or a URL, by a process that may read
// nothing); a compiled toolshed runs it through its hidden subcommand (main.ts). It refers to no
// other binding of this module. Nothing here is the parent's defence: the parent checks every
// line as if this runner were the model's own code, which, after the first await, it may be.

/** What the runner takes from the runtime namespace it is handed: `Deno`, in practice. */
interface RunnerRuntime {
  permissions: { revokeSync(descriptor: { name: string }): unknown };
  stdin: { readable: ReadableStream<Uint8Array> };
  stdout: { writeSync(bytes: Uint8Array): number };
  inspect(value: unknown, options?: Record<string, unknown>): string;
  exit(code?: number): never;
}

/** Runs one piece of code as the parent's first line asks, answering on stdout; then exits. */
export async function runSandboxChild(runtime: RunnerRuntime): Promise<void> {
  // 1. No permission left, before anything is read from the parent.
  for (const name of ["read", "write", "net", "env", "run", "ffi", "sys", "import"]) {
    runtime.permissions.revokeSync({ name });
  }
  // 2. What the runner needs later, taken now: the code may replace any global after it starts.
  const global = globalThis as unknown as Record<string, unknown>;
  const stdout = runtime.stdout;
  const writeSync = stdout.writeSync.bind(stdout);
  const inspect = runtime.inspect;
  const exit = runtime.exit;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const encoder = new TextEncoder();
  const encode = encoder.encode.bind(encoder);
  const encodeInto = encoder.encodeInto.bind(encoder);
  const decoder = new TextDecoder();
  const decode = decoder.decode.bind(decoder);
  const freeze = Object.freeze;
  const create = Object.create;
  const SafeMap = Map;
  const SafePromise = Promise;
  const SafeError = Error;
  const SafeProxy = Proxy;
  const SafeUint8Array = Uint8Array;
  const fromCharCode = String.fromCharCode;
  const btoa = globalThis.btoa;
  const reader = runtime.stdin.readable.getReader();

  // 3. The runtime out of reach. A property that cannot be deleted is overwritten.
  for (
    const name of [
      "Deno",
      "Worker",
      "process",
      "Buffer",
      "global",
      "setImmediate",
      "clearImmediate",
      "require",
      "localStorage",
      "sessionStorage",
      "caches",
      "CacheStorage",
      "Cache",
      "alert",
      "confirm",
      "prompt",
    ]
  ) {
    if (!(delete global[name]) || global[name] !== undefined) {
      Object.defineProperty(global, name, { value: undefined, configurable: false });
    }
  }

  const send = (line: string) => {
    const bytes = encode(line + "\n");
    for (let at = 0; at < bytes.length;) at += writeSync(bytes.subarray(at));
  };
  const finish = (ok: boolean, payload: unknown) => {
    send(
      ok ? `{"done":{"ok":true${payload === undefined ? "" : `,"value":${payload}`}}}` : (
        `{"done":{"ok":false,"error":${stringify(payload)}}}`
      ),
    );
    exit(0);
  };
  const messageOf = (error: unknown): string => {
    try {
      // One line: a runtime error's chain of causes follows on the next ones.
      const message = (error instanceof SafeError ? error.message : String(error)).split("\n")[0];
      return message.length > 2000 ? message.slice(0, 2000) + "…" : message;
    } catch {
      return "the code threw a value that cannot be shown";
    }
  };

  // 4. The parent's lines: the first says what to run, the rest answer calls.
  let buffered = "";
  const nextLine = async (): Promise<string | undefined> => {
    for (;;) {
      const end = buffered.indexOf("\n");
      if (end !== -1) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        return line;
      }
      const { value, done } = await reader.read();
      if (done) return undefined;
      buffered += decode(value, { stream: true });
    }
  };
  const first = await nextLine();
  if (first === undefined) exit(0); // the parent closed the sandbox before using this child
  const run = parse(first!).run as {
    code: string;
    maxCalls: number;
    maxConsoleBytes: number;
    maxResultBytes: number;
    logChunkBytes: number;
  };

  // 5. console: bounded, line by line as a terminal would show it, to the parent.
  let consoleLeft = run.maxConsoleBytes;
  let consoleCut = false;
  const sendLog = (text: string) => {
    for (let at = 0; at < text.length;) {
      const piece = text.slice(at, at + run.logChunkBytes);
      send(`{"log":${stringify(piece)}}`);
      at += piece.length;
    }
  };
  const print = (text: string) => {
    if (consoleCut) return;
    const bytes = encode(text);
    if (bytes.length <= consoleLeft) {
      consoleLeft -= bytes.length;
      sendLog(text);
      return;
    }
    // What fits, whole characters only, then the mark that the rest was cut.
    const fits = encodeInto(text, new SafeUint8Array(consoleLeft));
    if (fits.read! > 0) sendLog(text.slice(0, fits.read));
    consoleLeft = 0;
    consoleCut = true;
    send(`{"cut":true}`);
  };
  const show = (value: unknown) => {
    try {
      return typeof value === "string" ? value : inspect(value, { colors: false, depth: 4 });
    } catch (error) {
      return `[cannot be shown: ${messageOf(error)}]`;
    }
  };
  const logger = (prefix: string) => (...values: unknown[]) => {
    let text = prefix;
    for (let i = 0; i < values.length; i++) text += (i === 0 ? "" : " ") + show(values[i]);
    print(text + "\n");
  };
  const console = freeze({
    log: logger(""),
    info: logger(""),
    debug: logger(""),
    dir: logger(""),
    table: logger(""),
    warn: logger(""),
    error: logger(""),
    trace: logger("Trace: "),
    assert: (condition: unknown, ...values: unknown[]) => {
      if (!condition) logger("Assertion failed: ")(...values);
    },
  });
  Object.defineProperty(global, "console", { value: console, configurable: false });
  // An error nobody awaits (a timer's, a forgotten promise's) is shown, and the run goes on.
  globalThis.addEventListener("error", (event) => {
    event.preventDefault();
    print(`Uncaught ${messageOf((event as ErrorEvent).error)}\n`);
  });
  globalThis.addEventListener("unhandledrejection", (event) => {
    event.preventDefault();
    print(`Uncaught (in promise) ${messageOf(event.reason)}\n`);
  });

  // 6. tools: each name a function that asks the parent to call that tool.
  const pending = new SafeMap<
    number,
    { resolve(value: unknown): void; reject(e: unknown): void }
  >();
  let nextId = 1;
  let calls = 0;
  const call = (name: string, args: unknown): Promise<unknown> => {
    if (calls >= run.maxCalls) {
      return SafePromise.reject(
        new SafeError(
          `Cannot call tool "${name}": this run has made its ${run.maxCalls} inner call(s), ` +
            "the most one run may make",
        ),
      );
    }
    let json: string | undefined;
    try {
      json = stringify(args === undefined ? {} : args);
    } catch (error) {
      return SafePromise.reject(
        new SafeError(
          `Cannot call tool "${name}": its arguments are not JSON: ${messageOf(error)}`,
        ),
      );
    }
    if (json === undefined || json[0] !== "{") {
      return SafePromise.reject(
        new SafeError(`Cannot call tool "${name}": its arguments must be an object`),
      );
    }
    if (json.length > run.maxResultBytes) {
      return SafePromise.reject(
        new SafeError(
          `Cannot call tool "${name}": its arguments are over ${run.maxResultBytes} bytes of JSON`,
        ),
      );
    }
    calls++;
    const id = nextId++;
    return new SafePromise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      send(`{"call":{"id":${id},"name":${stringify(name)},"args":${json}}}`);
    });
  };
  const callers = new SafeMap<string, (args?: unknown) => Promise<unknown>>();
  const tools = new SafeProxy(freeze(create(null)), {
    get(_target, key) {
      if (typeof key !== "string") return undefined;
      let caller = callers.get(key);
      if (caller === undefined) {
        caller = freeze((args?: unknown) => call(key, args));
        callers.set(key, caller);
      }
      return caller;
    },
    set: () => false,
    defineProperty: () => false,
    deleteProperty: () => false,
    setPrototypeOf: () => false,
  });
  (async () => {
    for (;;) {
      const line = await nextLine();
      if (line === undefined) exit(0); // the parent is gone
      const { result } = parse(line!) as {
        result: { id: number; value?: unknown; error?: string };
      };
      const waiting = pending.get(result.id);
      if (waiting === undefined) continue;
      pending.delete(result.id);
      if (result.error !== undefined) waiting.reject(new SafeError(result.error));
      else waiting.resolve(result.value);
    }
  })();

  // 7. The code, as the body of an async function in a TypeScript module of its own.
  const source = `export default async (tools) => {${run.code}\n};\n`;
  const bytes = encode(source);
  let binary = "";
  for (let at = 0; at < bytes.length; at += 0x8000) {
    binary += fromCharCode(...bytes.subarray(at, at + 0x8000));
  }
  let main: (tools: unknown) => Promise<unknown>;
  try {
    main = (await import(`data:application/typescript;base64,${btoa(binary)}`)).default;
  } catch (error) {
    const message = String((error as Error)?.message ?? error).replace(
      /^(TypeError|SyntaxError): /,
      "",
    );
    const summary = message.split("\n")[0].replace(/^SyntaxError: /, "");
    const where = /:(\d+):(\d+)\s*$/.exec(message);
    return finish(
      false,
      where === null
        ? `The code cannot be loaded: ${summary}`
        : `The code does not parse: ${summary} at line ${where[1]}, column ${where[2]}`,
    );
  }
  let value: unknown;
  try {
    value = await main(tools);
  } catch (error) {
    return finish(false, messageOf(error));
  }
  let json: string | undefined;
  try {
    json = stringify(value);
  } catch (error) {
    return finish(false, `The code's result is not JSON: ${messageOf(error)}`);
  }
  if (json !== undefined && encode(json).length > run.maxResultBytes) {
    return finish(
      false,
      `The code's result is ${encode(json).length} bytes of JSON, over the ` +
        `${run.maxResultBytes} a run may return`,
    );
  }
  finish(true, json);
}
