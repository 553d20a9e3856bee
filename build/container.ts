// deno task container: a container image for a server directory (adr/0066). It writes a build
// context, a Containerfile `FROM scratch` and the files it copies: a root file system holding the
// deno binary that runs this script with the shared libraries it needs (taken from this
// machine, as `ldd` lists them), toolshed's one-file bundle (adr/0018; its npm packages inside,
// so nothing downloads at run time), the server directory under /srv, /etc/passwd and
// /etc/group naming the unprivileged user it runs as, and the CA certificates when this machine
// has them. No base image is pulled. Then it builds the image with podman, else buildah, when
// one is on PATH (`--no-build` only writes the context).
//
//   deno run -A build/container.ts --dir DIR [--tag NAME] [--context PATH] [--no-build]
//
// The image serves Streamable HTTP on 0.0.0.0:8080 and, like toolshed anywhere off loopback,
// refuses to start without TOOLSHED_HTTP_TOKEN (or arguments saying --allow-unauthenticated).
import { relative } from "node:path";
import { parseArgs } from "../lib/host/args.ts";
import { SERVER_INFO } from "../lib/wire/protocol.ts";
import { bundle } from "./bundle.ts";
import { smokeTest, toolNames } from "./_smoke.ts";

/** The repository root. */
export const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);

/** Where the build context goes unless --context says otherwise (relative to the repository). */
export const DEFAULT_CONTEXT = "dist/container";

/** The user the image runs as: a number, so that Kubernetes' runAsNonRoot can verify it. */
export const USER = { name: "toolshed", id: 10001 } as const;

/** The port the image's default command serves on. */
export const HTTP_PORT = 8080;

/** Where things are inside the image. */
export const IMAGE_PATHS = {
  deno: "/app/deno",
  bundle: "/app/toolshed.js",
  server: "/srv",
  home: `/home/${USER.name}`,
} as const;

/** The image's ENTRYPOINT: toolshed serving the server directory; the arguments follow. */
export const ENTRYPOINT: readonly string[] = [
  IMAGE_PATHS.deno,
  "run",
  "-A",
  IMAGE_PATHS.bundle,
  "--dir",
  IMAGE_PATHS.server,
];

/**
 * The image's CMD, the arguments a Kubernetes container's `args` replace
 * (deploy/kubernetes.yaml passes its own --http and more).
 */
export const CMD: readonly string[] = ["--http", `0.0.0.0:${HTTP_PORT}`];

/** The environment the image sets (the token is not one of them: it is the operator's). */
export const ENV: Readonly<Record<string, string>> = {
  HOME: IMAGE_PATHS.home,
  DENO_DIR: `${IMAGE_PATHS.home}/.cache/deno`,
  // deno would otherwise look for a newer release on the network.
  DENO_NO_UPDATE_CHECK: "1",
};

/** Names left out of the copied server directory, at any depth. */
export function leftOut(name: string): boolean {
  // Dot files (.git, .env and its secrets) and installed packages are not the server.
  return name.startsWith(".") || name === "node_modules";
}

/** The Containerfile's text for a server directory named `name`. */
export function containerfile(name: string): string {
  const env = Object.entries(ENV).map(([key, value]) => `${key}=${value}`).join(" ");
  return `# A container image for the toolshed server "${name}", written by toolshed's
# build/container.ts (adr/0066). No base image: rootfs/ is the whole file system.
#   podman build -t NAME .     (or: buildah bud -t NAME .)
#   podman run -e TOOLSHED_HTTP_TOKEN=... -p 8080:${HTTP_PORT} NAME
# Without TOOLSHED_HTTP_TOKEN toolshed refuses to serve off loopback. Probes: GET /healthz
# (alive) and GET /readyz (503 once draining), no token needed.
FROM scratch
COPY rootfs/ /
COPY --chown=${USER.id}:${USER.id} home/ /home/
ENV ${env}
USER ${USER.id}:${USER.id}
WORKDIR ${IMAGE_PATHS.server}
EXPOSE ${HTTP_PORT}
LABEL org.opencontainers.image.title="${name}" org.opencontainers.image.version="${SERVER_INFO.version}"
ENTRYPOINT ${JSON.stringify(ENTRYPOINT)}
CMD ${JSON.stringify(CMD)}
`;
}

/** What the command line asks for, or why it cannot be done. */
export type ContainerRequest =
  | { kind: "container"; dir: string; context: string; tag: string; build: boolean }
  | { kind: "help"; text: string }
  | { kind: "usage-error"; message: string };

const USAGE =
  `Usage: deno run -A build/container.ts --dir DIR [--tag NAME] [--context PATH] [--no-build]

Writes a build context for a container image serving the server directory DIR into PATH
(default ${DEFAULT_CONTEXT}): a Containerfile FROM scratch, the deno binary and the shared
libraries it needs, toolshed's bundle and DIR. Then builds the image NAME (default
toolshed-<DIR's name>:${SERVER_INFO.version}) with podman, else buildah, unless --no-build.
The image serves Streamable HTTP on 0.0.0.0:${HTTP_PORT} as user ${USER.id}; run it with
TOOLSHED_HTTP_TOKEN set (it refuses to start without).`;

/** Reads the command line; relative paths are taken from `cwd`. */
export function parseContainerArgs(args: string[], cwd: string): ContainerRequest {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        dir: { type: "string" },
        tag: { type: "string" },
        context: { type: "string" },
        "no-build": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    return { kind: "usage-error", message: (error as Error).message };
  }
  if (values.help) return { kind: "help", text: USAGE };
  const absolute = (path: string) => path.startsWith("/") ? path : `${cwd}/${path}`;
  if (values.dir === undefined || values.dir === "") {
    return { kind: "usage-error", message: 'Option "--dir" is required: the server directory' };
  }
  const dir = absolute(values.dir).replace(/\/+$/, "") || "/";
  const name = dir.slice(dir.lastIndexOf("/") + 1).toLowerCase().replace(/[^a-z0-9._-]/g, "-");
  const tag = values.tag ?? `toolshed-${name || "server"}:${SERVER_INFO.version}`;
  if (tag === "") return { kind: "usage-error", message: 'Option "--tag" needs a name' };
  const context = absolute(values.context ?? `${ROOT}${DEFAULT_CONTEXT}`).replace(/\/+$/, "");
  if (context === "") return { kind: "usage-error", message: 'Option "--context" needs a path' };
  return { kind: "container", dir, context, tag, build: values["no-build"] !== true };
}

/** The shared libraries `binary` loads, as `ldd` lists them (absolute paths); none if static. */
export async function sharedLibraries(binary: string): Promise<string[]> {
  const { code, stdout, stderr } = await new Deno.Command("ldd", {
    args: [binary],
    env: { LC_ALL: "C" },
    stdin: "null",
  }).output();
  const text = new TextDecoder();
  const said = `${text.decode(stdout)}${text.decode(stderr)}`;
  if (said.includes("not a dynamic executable") || said.includes("statically linked")) return [];
  if (code !== 0) throw new Error(`Cannot list the shared libraries of "${binary}": ${said}`);
  return parseLdd(said);
}

/** The absolute paths in `ldd` output (`name => /path (0x…)` and `/path (0x…)`). */
export function parseLdd(output: string): string[] {
  const found: string[] = [];
  for (const line of output.split("\n")) {
    if (line.includes("=> not found")) {
      throw new Error(`A shared library is missing on this machine: ${line.trim()}`);
    }
    const path = line.match(/(?:=>\s*)?(\/\S+)\s+\(0x[0-9a-f]+\)/)?.[1];
    if (path !== undefined && !found.includes(path)) found.push(path);
  }
  return found;
}

/** What went into a build context. */
export interface ContextSummary {
  context: string;
  /** Paths inside the image of every file copied into it. */
  files: string[];
  /** Their bytes, all told. */
  bytes: number;
  /** The tools the server directory serves. */
  tools: string[];
}

/** Creates `path`'s parent folders and copies `from` to it (a symlink's target, as a file). */
async function copyInto(from: string, path: string): Promise<void> {
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  await Deno.copyFile(from, path);
}

/**
 * Copies the folder `from` (under the server directory whose real path is `top`) into `to`,
 * leaving out what {@link leftOut} names and `skip` (the context itself, when it lies inside). A
 * symbolic link stays a link (made relative), so that toolshed in the image meets what it meets
 * on this machine, where a link to a folder is no toolset and a link out of its folder is refused
 * (adr/0059); a link to outside the server directory, or to nothing, would dangle in the image
 * and is refused.
 */
async function copyTree(from: string, to: string, skip: string, top: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    const source = `${from}/${entry.name}`;
    if (leftOut(entry.name) || source === skip) continue;
    const target = `${to}/${entry.name}`;
    if (entry.isSymlink) {
      const real = await Deno.realPath(source).catch(() => undefined);
      if (real === undefined) {
        throw new Error(
          `Cannot copy the server directory: the symbolic link "${source}" points to nothing ` +
            "that can be read: remove it or point it at a file or folder",
        );
      }
      if (real !== top && !real.startsWith(`${top}/`)) {
        throw new Error(
          `Cannot copy the server directory: the symbolic link "${source}" points to "${real}", ` +
            "outside the directory, which the image does not hold: copy the file in instead",
        );
      }
      await Deno.symlink(relative(await Deno.realPath(from), real) || ".", target);
    } else if (entry.isDirectory) await copyTree(source, target, skip, top);
    else if (entry.isFile) await Deno.copyFile(source, target);
  }
}

/** Every file under `dir`, as paths relative to it, and their bytes. */
async function filesUnder(dir: string, prefix = ""): Promise<{ files: string[]; bytes: number }> {
  const files: string[] = [];
  let bytes = 0;
  for await (const entry of Deno.readDir(`${dir}${prefix}`)) {
    const path = `${prefix}/${entry.name}`;
    if (entry.isDirectory) {
      const inner = await filesUnder(dir, path);
      files.push(...inner.files);
      bytes += inner.bytes;
    } else {
      files.push(path);
      bytes += (await Deno.lstat(`${dir}${path}`)).size;
    }
  }
  return { files: files.sort(), bytes };
}

/** The CA bundle of this machine (Debian's path), when it has one. */
const CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";

/**
 * Writes the build context for the server directory `dir` into `context` (replacing an earlier
 * one, but refusing a folder that holds anything else), then runs what it wrote (on this
 * machine's libraries) and checks it serves `dir`'s tools.
 */
export async function writeContext(
  dir: string,
  context: string,
  deno: string = Deno.execPath(),
): Promise<ContextSummary> {
  if (!(await Deno.stat(dir).catch(() => undefined))?.isDirectory) {
    throw new Error(`Cannot find the server directory "${dir}"`);
  }
  const existing = await Deno.stat(context).catch(() => undefined);
  if (existing !== undefined) {
    const names = existing.isDirectory
      ? (await Array.fromAsync(Deno.readDir(context))).map((entry) => entry.name)
      : ["(a file)"];
    const ours = ["Containerfile", "rootfs", "home"];
    if (names.some((name) => !ours.includes(name))) {
      throw new Error(
        `Cannot write the build context into "${context}": it holds other things (${
          names.filter((name) => !ours.includes(name)).join(", ")
        }); name an empty or new folder with --context`,
      );
    }
    await Deno.remove(context, { recursive: true });
  }
  const rootfs = `${context}/rootfs`;
  const name = dir.slice(dir.lastIndexOf("/") + 1) || "server";
  await Deno.mkdir(`${rootfs}/tmp`, { recursive: true });
  await Deno.chmod(`${rootfs}/tmp`, 0o1777);
  await Deno.mkdir(`${context}/home/${USER.name}/.cache`, { recursive: true });

  await copyTree(dir, `${rootfs}${IMAGE_PATHS.server}`, context, await Deno.realPath(dir));
  await copyInto(deno, `${rootfs}${IMAGE_PATHS.deno}`);
  for (const library of await sharedLibraries(deno)) {
    await copyInto(library, `${rootfs}${library}`);
  }
  await bundle(`${rootfs}${IMAGE_PATHS.bundle}`);

  const etc = `${rootfs}/etc`;
  await Deno.mkdir(etc, { recursive: true });
  await Deno.writeTextFile(
    `${etc}/passwd`,
    `root:x:0:0:root:/root:/sbin/nologin\n` +
      `${USER.name}:x:${USER.id}:${USER.id}:${USER.name}:${IMAGE_PATHS.home}:/sbin/nologin\n`,
  );
  await Deno.writeTextFile(`${etc}/group`, `root:x:0:\n${USER.name}:x:${USER.id}:\n`);
  // glibc's default without this file tries DNS before /etc/hosts.
  await Deno.writeTextFile(`${etc}/nsswitch.conf`, "hosts: files dns\n");
  if ((await Deno.stat(CA_BUNDLE).catch(() => undefined))?.isFile) {
    await copyInto(CA_BUNDLE, `${rootfs}${CA_BUNDLE}`);
  }
  await Deno.writeTextFile(`${context}/Containerfile`, containerfile(name));

  // What was written runs: the image's deno and bundle serve the copied directory's tools.
  const tools = await toolNames(
    new URL(`file://${rootfs}${IMAGE_PATHS.server}/tools/`),
    false,
  ).catch(() => []);
  await smokeTest(
    [`${rootfs}${IMAGE_PATHS.deno}`, "run", "-A", `${rootfs}${IMAGE_PATHS.bundle}`],
    tools,
    { args: ["--dir", `${rootfs}${IMAGE_PATHS.server}`] },
  );
  const { files, bytes } = await filesUnder(rootfs);
  return { context, files, bytes, tools };
}

/** The first image builder on PATH: podman, else buildah; undefined when neither is. */
export async function imageBuilder(): Promise<"podman" | "buildah" | undefined> {
  for (const tool of ["podman", "buildah"] as const) {
    try {
      const command = new Deno.Command(tool, {
        args: ["--version"],
        stdout: "null",
        stderr: "null",
      });
      if ((await command.output()).success) return tool;
    } catch {
      // Not on PATH: the next one.
    }
  }
  return undefined;
}

/** The arguments of `builder` that build the image `tag` from `context` (OCI format). */
export function buildArgs(builder: "podman" | "buildah", context: string, tag: string): string[] {
  return [
    ...(builder === "podman" ? ["build"] : ["bud"]),
    "--format",
    "oci",
    "--tag",
    tag,
    "--file",
    `${context}/Containerfile`,
    context,
  ];
}

/** Builds the image `tag` from `context` with `builder`; throws saying why it failed. */
export async function buildImage(
  builder: "podman" | "buildah",
  context: string,
  tag: string,
): Promise<void> {
  const { code, stdout, stderr } = await new Deno.Command(builder, {
    args: buildArgs(builder, context, tag),
    stdin: "null",
  }).output();
  if (code !== 0) {
    const text = new TextDecoder();
    throw new Error(
      `Cannot build the image: ${builder} ${buildArgs(builder, context, tag).join(" ")} exited ` +
        `with ${code}: ${text.decode(stderr).trim() || text.decode(stdout).trim()}`,
    );
  }
}

if (import.meta.main) {
  const request = parseContainerArgs(Deno.args, Deno.cwd());
  const say = (line: string) => Deno.stderr.writeSync(new TextEncoder().encode(`${line}\n`));
  if (request.kind === "help") {
    say(request.text);
    Deno.exit(0);
  }
  if (request.kind === "usage-error") {
    say(`${request.message}\n(build/container.ts --help shows the usage)`);
    Deno.exit(2);
  }
  try {
    const summary = await writeContext(request.dir, request.context);
    say(
      `Wrote the build context "${summary.context}": ${summary.files.length} files, ` +
        `${Math.round(summary.bytes / 1024)} KiB in the image; it serves ${summary.tools.length} ` +
        `tool(s) from "${request.dir}"`,
    );
    if (!request.build) Deno.exit(0);
    const builder = await imageBuilder();
    if (builder === undefined) {
      say(
        `Neither podman nor buildah is on PATH: build the image where one is, with\n` +
          `  podman build -t ${request.tag} ${request.context}`,
      );
      Deno.exit(1);
    }
    await buildImage(builder, request.context, request.tag);
    say(
      `Built the image "${request.tag}" with ${builder}. Run it with\n` +
        `  podman run -e TOOLSHED_HTTP_TOKEN=... ` +
        `-p 8080:${HTTP_PORT} ${request.tag}`,
    );
  } catch (error) {
    say((error as Error).message);
    Deno.exit(1);
  }
}
