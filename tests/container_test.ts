// build/container.ts (adr/0066): the build context it writes for a server directory, read back
// (the Containerfile parsed, every COPY'd file present, dot files left out), then the image built
// from it with podman and run: initialize, tools/list and a tools/call over HTTP on loopback with
// the token (the tool says which user it runs as: not root), a refusal to start without the
// token, and deploy/kubernetes.yaml's arguments (probes, allowed Host names, a clean exit on
// SIGTERM as PID 1). Published ports are on 127.0.0.1 only; waits are bounded; every container,
// the image and the temporary folders are removed at the end.
//
// Where podman is missing the image steps are ignored with a message, except under CI=true
// (.ci/run installs podman), where its absence fails. On a machine with cgroups in hybrid mode
// podman's default runtime (crun) cannot start a container; runc can, so it is used when
// installed. The containers get this process's own open-file and process limits: podman's
// defaults are higher, and raising a limit needs a capability a sandboxed root may lack.
import { deepStrictEqual, match, notStrictEqual, ok, strictEqual } from "node:assert/strict";
import { loadAll } from "npm:js-yaml@5.5.0";
import {
  buildImage,
  CMD,
  containerfile,
  ENTRYPOINT,
  HTTP_PORT,
  parseContainerArgs,
  parseLdd,
  USER,
  writeContext,
} from "../build/container.ts";
import { run } from "../build/_smoke.ts";
import { modernBody, modernHeaders, rawRequest } from "./_http_server.ts";

const UNDER_CI = Deno.env.get("CI") === "true";
const TAG = `localhost/toolshed-container-test:${crypto.randomUUID().slice(0, 8)}`;
/** A token as `openssl rand -hex 32` makes it. */
const TOKEN = Array.from(
  crypto.getRandomValues(new Uint8Array(32)),
  (byte) => byte.toString(16).padStart(2, "0"),
).join("");
/** Podman commands are killed after this long (a hang guard, not a timing check). */
const PODMAN_GUARD_MS = 180_000;

async function found(program: string): Promise<boolean> {
  try {
    const command = new Deno.Command(program, {
      args: ["--version"],
      stdout: "null",
      stderr: "null",
    });
    return (await command.output()).success;
  } catch {
    return false; // not on PATH
  }
}

const PODMAN = await found("podman");
const RUNC = await found("runc");
if (!PODMAN && !UNDER_CI) {
  Deno.stderr.writeSync(new TextEncoder().encode(
    "tests: podman is missing, so the container image is not built or run, only its build " +
      "context is checked (apt-get install podman runc runs it)\n",
  ));
}

/** This process's soft limit of open files (/proc/self/limits), at most `most`. */
function openFiles(most: number): number {
  const line = Deno.readTextFileSync("/proc/self/limits").split("\n").find((each) =>
    each.startsWith("Max open files")
  );
  const soft = Number(line?.slice("Max open files".length).trim().split(/\s+/)[0]);
  return Number.isInteger(soft) && soft > 0 ? Math.min(soft, most) : most;
}

/**
 * `podman run`'s options every container here gets: runc where installed (see the file's
 * comment), and limits a sandboxed root can set. Podman's defaults (1,048,576 open files) exceed
 * what such a root may raise a limit to, and runc was refused even this machine's own process
 * limit (96,369) while 4,096 passed: so open files as this process has them (at most 65,536),
 * and 4,096 processes, far more than one deno needs.
 */
const RUN_OPTIONS = [
  ...(RUNC ? ["--runtime", "runc"] : []),
  "--ulimit",
  `nofile=${openFiles(65536)}:${openFiles(65536)}`,
  "--ulimit",
  "nproc=4096:4096",
];

function podman(args: string[]) {
  return run(["podman"], args, "", undefined, PODMAN_GUARD_MS);
}

/** The server directory the image serves: two tools, and a secret the image must not hold. */
async function fixtureServer(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed-container-server-" });
  await Deno.mkdir(`${dir}/tools`);
  await Deno.writeTextFile(
    `${dir}/tools/whoami.ts`,
    `export default {
  description: "Says which user and group the server runs as, and where",
  inputSchema: { type: "object", properties: {} },
  handler: () => JSON.stringify({ uid: Deno.uid(), gid: Deno.gid(), cwd: Deno.cwd() }),
};
`,
  );
  await Deno.writeTextFile(
    `${dir}/tools/add.ts`,
    `export default {
  description: "Adds two numbers",
  inputSchema: {
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" } },
    required: ["a", "b"],
  },
  handler: ({ a, b }: { a: number; b: number }) => String(a + b),
};
`,
  );
  await Deno.writeTextFile(`${dir}/.env`, "API_KEY=not-for-the-image\n");
  // A link back to the folder that holds it, by an absolute path: the image keeps a link.
  await Deno.mkdir(`${dir}/data`);
  await Deno.symlink(`${dir}/data`, `${dir}/data/again`);
  return dir;
}

/** As much of deploy/kubernetes.yaml's Deployment as the last step reads. */
interface Deployment {
  kind: string;
  metadata: { name: string };
  spec: {
    template: {
      spec: {
        containers: {
          name: string;
          args: string[];
          readinessProbe: { httpGet: { path: string } };
          livenessProbe: { httpGet: { path: string } };
        }[];
      };
    };
  };
}

/** The instructions of a Containerfile: [keyword, rest of the line] (comments left out). */
function instructions(text: string): [string, string][] {
  return text.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("#")).map(
    (line) => {
      const at = line.indexOf(" ");
      return [line.slice(0, at).toUpperCase(), line.slice(at + 1).trim()];
    },
  );
}

Deno.test("build/container.ts: the command line", () => {
  const request = parseContainerArgs(["--dir", "srv", "--tag", "t:1", "--no-build"], "/w");
  deepStrictEqual(request, {
    kind: "container",
    dir: "/w/srv",
    context: request.kind === "container" ? request.context : "",
    tag: "t:1",
    build: false,
  });
  strictEqual(parseContainerArgs([], "/w").kind, "usage-error");
  strictEqual(parseContainerArgs(["--dir", "x", "--bogus"], "/w").kind, "usage-error");
  strictEqual(parseContainerArgs(["--help"], "/w").kind, "help");
  const named = parseContainerArgs(["--dir", "/a/My Server/", "--context", "ctx"], "/w");
  ok(named.kind === "container");
  match(named.tag, /^toolshed-my-server:\d/);
  strictEqual(named.context, "/w/ctx");
});

Deno.test("build/container.ts: ldd's output, a library missing refused", () => {
  const output = "\tlinux-vdso.so.1 (0x00007ffd)\n" +
    "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f78)\n" +
    "\t/lib64/ld-linux-x86-64.so.2 (0x00007f79)\n";
  deepStrictEqual(parseLdd(output), [
    "/lib/x86_64-linux-gnu/libc.so.6",
    "/lib64/ld-linux-x86-64.so.2",
  ]);
  let refused = "";
  try {
    parseLdd("\tlibfoo.so.1 => not found\n");
  } catch (error) {
    refused = (error as Error).message;
  }
  match(refused, /libfoo\.so\.1 => not found/);
});

Deno.test("build/container.ts: the Containerfile starts from scratch, runs as a numbered user that is not root, and serves HTTP without any way to skip the token", () => {
  const parsed = instructions(containerfile("demo"));
  deepStrictEqual(parsed[0], ["FROM", "scratch"]);
  strictEqual(parsed.filter(([keyword]) => keyword === "FROM").length, 1, "one stage");
  // No RUN: building needs no runtime and no shell, which the image does not have.
  deepStrictEqual(parsed.filter(([keyword]) => keyword === "RUN"), []);
  const user = parsed.find(([keyword]) => keyword === "USER")?.[1];
  strictEqual(user, `${USER.id}:${USER.id}`);
  ok(USER.id > 0);
  const entrypoint = JSON.parse(parsed.find(([keyword]) => keyword === "ENTRYPOINT")![1]);
  const cmd = JSON.parse(parsed.find(([keyword]) => keyword === "CMD")![1]);
  deepStrictEqual(entrypoint, ENTRYPOINT);
  deepStrictEqual(cmd, CMD);
  deepStrictEqual(cmd, ["--http", `0.0.0.0:${HTTP_PORT}`]);
  const words = [...entrypoint, ...cmd].join(" ");
  ok(!words.includes("--allow-unauthenticated"), words);
  ok(!/TOKEN/.test(parsed.filter(([keyword]) => keyword === "ENV").join(" ")), "no token in ENV");
  deepStrictEqual(parsed.find(([keyword]) => keyword === "EXPOSE")?.[1], String(HTTP_PORT));
});

Deno.test("build/container.ts: refuses a context folder holding other things, and a symbolic link to outside the server directory or to nothing; keeps a link inside as a link", async () => {
  const server = await fixtureServer();
  const scratch = await Deno.makeTempDir({ prefix: "toolshed-container-refusals-" });
  const refusal = (promise: Promise<unknown>) =>
    promise.then(() => "", (error: Error) => error.message);
  try {
    await Deno.writeTextFile(`${scratch}/notes.txt`, "mine");
    match(await refusal(writeContext(server, scratch)), /holds other things \(notes\.txt\)/);
    strictEqual(await Deno.readTextFile(`${scratch}/notes.txt`), "mine", "left as it was");
    const outside = `${scratch}/outside.txt`;
    await Deno.writeTextFile(outside, "not in the server directory");
    await Deno.symlink(outside, `${server}/data/outside.txt`);
    match(await refusal(writeContext(server, `${scratch}/out`)), /outside the directory/);
    await Deno.remove(`${server}/data/outside.txt`);
    await Deno.symlink(`${server}/gone`, `${server}/data/dangling`);
    match(await refusal(writeContext(server, `${scratch}/dangling`)), /points to nothing/);
  } finally {
    await Deno.remove(server, { recursive: true });
    await Deno.remove(scratch, { recursive: true });
  }
});

Deno.test("build/container.ts: a server directory's image, built and run", async (t) => {
  const server = await fixtureServer();
  const context = `${await Deno.makeTempDir({ prefix: "toolshed-container-context-" })}/ctx`;
  const containers: string[] = [];
  let built = false;
  try {
    await t.step(
      "the build context holds every file the Containerfile copies: deno and its libraries, the bundle, the server directory without its dot files, the user",
      async () => {
        const summary = await writeContext(server, context);
        deepStrictEqual(summary.tools, ["add", "whoami"]);
        const files = new Set(summary.files);
        for (
          const [keyword, rest] of instructions(await Deno.readTextFile(`${context}/Containerfile`))
        ) {
          if (keyword !== "COPY") continue;
          const source = rest.split(" ").filter((word) => !word.startsWith("--"))[0];
          ok((await Deno.stat(`${context}/${source}`)).isDirectory, `COPY ${source}`);
        }
        const entrypoint = ENTRYPOINT.filter((word) => word.startsWith("/app/"));
        for (const file of [...entrypoint, "/srv/tools/whoami.ts", "/srv/tools/add.ts"]) {
          ok(files.has(file), `${file} in the image`);
        }
        ok(!files.has("/srv/.env"), "the server directory's .env stays out");
        strictEqual(await Deno.readLink(`${context}/rootfs/srv/data/again`), ".");
        ok(
          (await Deno.stat(`${context}/rootfs/app/deno`)).mode! & 0o111,
          "deno is executable",
        );
        const { stdout } = await run(["ldd"], [`${context}/rootfs/app/deno`], "", undefined);
        for (const library of parseLdd(stdout)) ok(files.has(library), `${library} in the image`);
        const passwd = await Deno.readTextFile(`${context}/rootfs/etc/passwd`);
        match(passwd, new RegExp(`^${USER.name}:x:${USER.id}:${USER.id}:`, "m"));
        strictEqual(
          ((await Deno.stat(`${context}/rootfs/tmp`)).mode! & 0o7777).toString(8),
          "1777",
        );
      },
    );

    await t.step({
      name:
        "podman builds the image FROM scratch: its user, entrypoint and command are the Containerfile's",
      ignore: !PODMAN && !UNDER_CI,
      fn: async () => {
        ok(PODMAN, "podman is missing: under CI the image must be built (.ci/run installs it)");
        await buildImage("podman", context, TAG);
        built = true;
        const inspect = await podman(["image", "inspect", TAG]);
        strictEqual(inspect.code, 0, inspect.stderr);
        const [image] = JSON.parse(inspect.stdout);
        strictEqual(image.Config.User, `${USER.id}:${USER.id}`);
        deepStrictEqual(image.Config.Entrypoint, ENTRYPOINT);
        deepStrictEqual(image.Config.Cmd, CMD);
        // One layer per COPY, no base image's.
        strictEqual(image.RootFS.Layers.length, 2);
        Deno.stderr.writeSync(
          new TextEncoder().encode(`tests: the image ${TAG} is ${image.Size} bytes\n`),
        );
      },
    });

    /** Starts a container of the image, its HTTP port published on 127.0.0.1; its port. */
    const start = async (
      env: Record<string, string>,
      args: string[] = [],
      options: string[] = [],
    ) => {
      const name = `toolshed-test-${crypto.randomUUID().slice(0, 8)}`;
      containers.push(name);
      const started = await podman([
        "run",
        "--detach",
        "--name",
        name,
        ...RUN_OPTIONS,
        ...options,
        ...Object.entries(env).flatMap(([key, value]) => ["--env", `${key}=${value}`]),
        "--publish",
        `127.0.0.1::${HTTP_PORT}`,
        TAG,
        ...args,
      ]);
      strictEqual(started.code, 0, started.stderr);
      const port = await podman(["port", name, `${HTTP_PORT}/tcp`]);
      strictEqual(port.code, 0, port.stderr);
      const published = Number(port.stdout.trim().split("\n")[0].split(":").pop());
      ok(published > 0, port.stdout);
      // Until /healthz answers (or the container stops): 300 tries, 100 ms apart at most.
      for (let tries = 0; tries < 300; tries++) {
        const answer = await fetch(`http://127.0.0.1:${published}/healthz`).then(
          async (response) => (await response.body?.cancel(), response.status),
          () => 0,
        );
        if (answer === 200) return { name, port: published };
        const state = await podman(["inspect", "--format", "{{.State.Running}}", name]);
        if (state.stdout.trim() !== "true") break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const logs = await podman(["logs", name]);
      throw new Error(`The container did not answer /healthz: ${logs.stdout}${logs.stderr}`);
    };

    const imageSteps = { ignore: !PODMAN && !UNDER_CI };

    await t.step({
      ...imageSteps,
      name: "without TOOLSHED_HTTP_TOKEN the image refuses to start",
      fn: async () => {
        ok(built, "the image was built");
        const name = `toolshed-test-${crypto.randomUUID().slice(0, 8)}`;
        containers.push(name);
        // A container that serves instead would run until this guard (60 s) kills podman run.
        const { code, stderr } = await run(
          ["podman"],
          ["run", "--name", name, ...RUN_OPTIONS, TAG],
          "",
          undefined,
          60_000,
        );
        strictEqual(code, 2, stderr);
        match(stderr, /Refusing to serve --http on "0\.0\.0\.0".* without a token/);
      },
    });

    await t.step({
      ...imageSteps,
      name:
        "with the token, on a read-only root file system without capabilities: initialize, tools/list and tools/call over HTTP; the tool runs as the image's user, not root",
      fn: async () => {
        ok(built, "the image was built");
        // What a Kubernetes securityContext with readOnlyRootFilesystem, capabilities dropped
        // and allowPrivilegeEscalation false does (no writable /tmp either).
        const hardened = [
          "--read-only",
          "--read-only-tmpfs=false",
          "--cap-drop",
          "all",
          "--security-opt",
          "no-new-privileges",
        ];
        const { port } = await start({ TOOLSHED_HTTP_TOKEN: TOKEN }, [], hardened);
        const url = `http://127.0.0.1:${port}/mcp`;
        const unauthorized = await fetch(url, { method: "POST", body: "{}" });
        await unauthorized.body?.cancel();
        strictEqual(unauthorized.status, 401);
        const headers: Record<string, string> = {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${TOKEN}`,
        };
        const post = async (id: number, method: string, params: unknown) => {
          const response = await fetch(url, {
            method: "POST",
            headers,
            body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
          });
          const text = await response.text();
          strictEqual(response.status, 200, text);
          const data = response.headers.get("content-type") === "text/event-stream"
            ? text.split("\n").filter((line) => line.startsWith("data:")).map((line) =>
              JSON.parse(line.slice(5))
            ).find((message) => message.id === id)
            : JSON.parse(text);
          return { response, message: data };
        };
        const init = await post(0, "initialize", {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "container-test", version: "1" },
        });
        strictEqual(init.message.result.protocolVersion, "2025-11-25");
        headers["mcp-session-id"] = init.response.headers.get("mcp-session-id")!;
        headers["mcp-protocol-version"] = "2025-11-25";
        const list = await post(1, "tools/list", {});
        deepStrictEqual(
          list.message.result.tools.map((tool: { name: string }) => tool.name).sort(),
          ["add", "whoami"],
        );
        const sum = await post(2, "tools/call", { name: "add", arguments: { a: 2, b: 40 } });
        deepStrictEqual(sum.message.result.content, [{ type: "text", text: "42" }]);
        const who = await post(3, "tools/call", { name: "whoami", arguments: {} });
        const said = JSON.parse(who.message.result.content[0].text);
        notStrictEqual(said.uid, 0, "not root");
        deepStrictEqual(said, { uid: USER.id, gid: USER.id, cwd: "/srv" });
      },
    });

    await t.step({
      ...imageSteps,
      name:
        "with deploy/kubernetes.yaml's args: the probes answer, an allowed Host is served, and SIGTERM to PID 1 drains and exits 0",
      fn: async () => {
        ok(built, "the image was built");
        const manifest = loadAll(
          await Deno.readTextFile(new URL("../deploy/kubernetes.yaml", import.meta.url)),
        ) as (Deployment | null)[];
        const deployment = manifest.find((document) =>
          document?.kind === "Deployment" && document.metadata?.name === "toolshed"
        )!;
        const container = deployment.spec.template.spec.containers.find((each) =>
          each.name === "toolshed"
        )!;
        const args = container.args;
        // The manifest serves on the port the image exposes.
        strictEqual(args[args.indexOf("--http") + 1], `0.0.0.0:${HTTP_PORT}`);
        // No Redis here: --redis and its value go; $(POD_NAME) is a pod's name.
        const at = args.indexOf("--redis");
        const given = [...args.slice(0, at), ...args.slice(at + 2)].map((arg) =>
          arg.replace("$(POD_NAME)", "toolshed-7d9c8b6f5d-x2x9q")
        );
        ok(!given.some((arg) => arg.includes("$(")), given.join(" "));
        const { name, port } = await start({ TOOLSHED_HTTP_TOKEN: TOKEN }, given);
        for (const probe of [container.readinessProbe, container.livenessProbe]) {
          const answer = await rawRequest(port, "GET", probe.httpGet.path, {
            host: `10.244.1.7:${HTTP_PORT}`,
          });
          strictEqual(answer.status, 200, probe.httpGet.path);
        }
        const host = args[args.indexOf("--allow-host") + 1];
        const list = await rawRequest(
          port,
          "POST",
          "/mcp",
          { host, ...modernHeaders("tools/list"), authorization: `Bearer ${TOKEN}` },
          modernBody(1, "tools/list"),
        );
        strictEqual(list.status, 200, list.body);
        strictEqual(JSON.parse(list.body).result.tools.length, 2);
        const stopped = await podman(["stop", "--time", "30", name]);
        strictEqual(stopped.code, 0, stopped.stderr);
        const exit = await podman(["inspect", "--format", "{{.State.ExitCode}}", name]);
        strictEqual(exit.stdout.trim(), "0");
        const logs = await podman(["logs", name]);
        match(logs.stderr, /Shutting down: received SIGTERM/);
      },
    });
  } finally {
    for (const name of containers) await podman(["rm", "--force", name]);
    if (built) await podman(["rmi", "--force", TAG]);
    await Deno.remove(server, { recursive: true });
    await Deno.remove(context.slice(0, context.lastIndexOf("/")), { recursive: true });
  }
});
