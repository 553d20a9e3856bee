// toolshed compile: a server directory into one executable that serves it (adr/0067), staged as
// `toolshed publish` stages it (adr/0059): what start-up refuses is refused, dot files are left
// out unless asked, and the binary serves what the directory serves. `deno task compile --dir
// DIR` runs this too (build/compile.ts).
import { EXIT, type Io } from "./command.ts";
import {
  absolute,
  type Compile,
  compiledFor,
  embeddedFolderHolding,
  loadedAsStartUp,
  refuser,
  stageChecked,
  STAGING_FLAGS,
  STAGING_HELP,
  stagingFlags,
  withoutDenoCompile,
} from "./publish_stage.ts";
import { compileBinary } from "./compile_binary.ts";
import { TARGET } from "./denort.ts";
import { TARGETS, unknownTarget } from "./mcpb.ts";

const FLAGS = {
  dir: { type: "string" },
  output: { type: "string", short: "o" },
  target: { type: "string" },
  ...STAGING_FLAGS,
  help: { type: "boolean", short: "h" },
} as const;

export const command = {
  usage: `Usage: toolshed compile [--dir DIR] [--output PATH] [--target TRIPLE]

Compiles the server directory into one executable that serves it: its tools/, resources/,
prompts/, skills/, ui/, middleware/ and server.meta.json embedded, started as toolshed starts
(stdio, or --http and every other serve flag). Executable tools (programs with a JSON sidecar)
are left out: a compiled binary cannot run programs it embeds.

Options:
  --dir DIR              The server directory (default: the working directory)
  -o, --output PATH      The executable to write (default: DIR/dist/ and DIR's name; .exe
                         for Windows)
  --target TRIPLE        A Deno target to build for (default: this machine's, ${TARGET}).
                         Known: ${Object.keys(TARGETS).join(", ")}
${STAGING_HELP}

DENORT_BIN names Deno's standalone runtime (denort) for this machine's target where Deno
cannot download it.

Example: toolshed compile --dir my-server --output ./weather`,

  run(args: string[], io: Io): Promise<number> {
    return compileServer(args, io);
  },
};

/** The command, with the compile step replaceable (the tests look at what it is handed). */
export async function compileServer(
  args: string[],
  io: Io,
  compile: Compile = compileBinary,
): Promise<number> {
  const values = stagingFlags(args, FLAGS, io, "compile", command.usage, [
    "dir",
    "output",
    "target",
  ]);
  if (typeof values === "number") return values;
  const refuse = refuser(io);
  const target = values.target ?? TARGET;
  const unknown = unknownTarget(target);
  if (unknown !== undefined) return refuse(unknown);
  if (values.output?.endsWith("/")) {
    return refuse(`--output "${values.output}" names a folder: give the executable's path`);
  }
  const noDenoCompile = withoutDenoCompile("compile");
  if (noDenoCompile !== undefined) return refuse(noDenoCompile);
  const dir = absolute(values.dir ?? ".", io.cwd);
  let name: string;
  try {
    if (!(await Deno.stat(dir)).isDirectory) {
      return refuse(`Cannot compile "${dir}": it is not a directory`, EXIT.failed);
    }
    const real = await Deno.realPath(dir);
    name = real.slice(real.lastIndexOf("/") + 1) || "server";
  } catch {
    return refuse(`Cannot compile "${dir}": there is no such directory`, EXIT.failed);
  }
  const exe = TARGETS[target] === "win32" ? ".exe" : "";
  const output = values.output === undefined
    ? `${dir}/dist/${name}${exe}`
    : absolute(values.output, io.cwd);
  const embeddedOut = await embeddedFolderHolding(output, dir);
  if (embeddedOut !== undefined) {
    return refuse(
      `--output "${output}" is inside ${embeddedOut}/, which the binary embeds: the next ` +
        "compile would embed this binary. Choose a path outside it (default: DIR/dist/)",
    );
  }

  const fromDir = await loadedAsStartUp(
    dir,
    values["allow-outside-symlinks"] === true,
    io,
    "compile",
  );
  if (typeof fromDir === "number") return fromDir;
  const staging = await Deno.makeTempDir({ prefix: "toolshed_compile_" });
  try {
    const checked = await stageChecked(dir, staging, fromDir, {
      includeDotfiles: values["include-dotfiles"] === true,
      verb: "compile",
    }, io);
    if (typeof checked === "number") return checked;
    const { server, staged } = checked;
    const { tools, resources, prompts } = server.loaded;
    await server.close();
    // Compiled into the staging directory and copied out once it succeeded: a failed compile
    // leaves nothing at --output.
    const binary = `${staging}/bin/${name}${exe}`;
    const problem = await compiledFor(compile, staging, staged.includes, target, binary, io);
    if (problem !== undefined) return refuse(problem, EXIT.failed);
    await Deno.mkdir(output.slice(0, output.lastIndexOf("/")) || "/", { recursive: true });
    await Deno.copyFile(binary, output);
    if (Deno.build.os !== "windows") await Deno.chmod(output, 0o755);
    io.out(
      `Built "${output}" for ${target}: ${tools.tools.length} tool(s), ${
        resources.length + server.loaded.templates.length
      } resource(s) and template(s), ${prompts.length} prompt(s) from "${dir}"\n` +
        `Run it as a server over stdio: ${output}; over HTTP: ${output} --http\n`,
    );
    return EXIT.ok;
  } finally {
    await Deno.remove(staging, { recursive: true }).catch(() => {});
  }
}
