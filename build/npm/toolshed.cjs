#!/usr/bin/env node
// The `toolshed` command of the npm package (build/npm_package.ts, adr/0065): runs the
// bundled server, dist/bundle/toolshed.js, on the Deno that npm installed beside it with the
// `deno` package (pinned), with this command's arguments. Plain Node.js, no dependencies.
// Nothing here touches the network: no flag of Deno's that fetches, and Deno's own upgrade
// check is off (this Deno is pinned by the package, not upgraded by itself).
//
// Signals: SIGTERM, SIGINT and SIGHUP sent to this process go on to Deno's, and this process
// ends as Deno's did (its exit code, or the same signal), so that `kill PID` of the command a
// person or an MCP client started stops the server and leaves nothing holding a port. Ctrl+C
// in a terminal already reaches both processes (they share the foreground process group), and
// toolshed takes a second SIGINT as "stop now": then it is not sent again.
"use strict";

const childProcess = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const PACKAGE = path.join(__dirname, "..");
const BUNDLE = path.join(PACKAGE, "dist", "bundle", "toolshed.js");
/**
 * Deno's flags for the bundle, "{package}" standing for this package's folder (its import map):
 * build/npm_package.ts writes lib/commands/invocation.ts's npmBundleFlags in here.
 */
const BUNDLE_FLAGS = [];
const SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"];

/** The npm package that holds Deno's binary for this platform, as the `deno` package names it. */
function platformPackage() {
  const arch = os.arch();
  if (arch !== "x64" && arch !== "arm64") {
    throw new Error(`Deno has no binary for the architecture "${arch}" (only x64 and arm64)`);
  }
  const platform = os.platform();
  return `@deno/${platform}-${arch}${platform === "linux" ? "-glibc" : ""}`;
}

/**
 * The absolute path of the deno binary: where the `deno` package's install script links it
 * (inside that package), else inside the platform package it came in (as when npm ran no
 * install scripts, `--ignore-scripts`).
 */
function denoBinary() {
  const exe = os.platform() === "win32" ? "deno.exe" : "deno";
  const denoPackage = path.dirname(require.resolve("deno/package.json"));
  const linked = path.join(denoPackage, exe);
  if (fs.existsSync(linked)) return linked;
  const name = platformPackage();
  let found;
  try {
    found = require.resolve(`${name}/package.json`, { paths: [denoPackage] });
  } catch {
    throw new Error(
      `Cannot find Deno: neither ${linked} nor the package ${name} is installed ` +
        "(reinstall toolshed with npm, with its optional dependencies)",
    );
  }
  return path.join(path.dirname(found), exe);
}

/**
 * Whether this process is the foreground job of its terminal (Linux's /proc shows the
 * terminal's foreground process group beside our own): then Ctrl+C signalled Deno already.
 */
function foregroundOfTerminal() {
  try {
    const stat = fs.readFileSync("/proc/self/stat", "utf8");
    // After "pid (comm) ", the fields are: state ppid pgrp session tty_nr tpgid …
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const pgrp = Number(fields[2]);
    const tpgid = Number(fields[5]);
    return tpgid > 0 && tpgid === pgrp;
  } catch {
    return false;
  }
}

function main() {
  let deno;
  try {
    deno = denoBinary();
  } catch (error) {
    process.stderr.write(`toolshed: ${error.message}\n`);
    process.exit(1);
  }
  const env = { ...process.env };
  if (env.DENO_NO_UPDATE_CHECK === undefined) env.DENO_NO_UPDATE_CHECK = "1";
  const child = childProcess.spawn(deno, [
    "run",
    "-A",
    ...BUNDLE_FLAGS.map((flag) => flag.split("{package}").join(PACKAGE)),
    BUNDLE,
    ...process.argv.slice(2),
  ], {
    stdio: "inherit",
    env,
  });
  const forward = (signal) => {
    if (signal === "SIGINT" && foregroundOfTerminal()) return;
    try {
      child.kill(signal);
    } catch {
      // It has exited already; its exit ends this process.
    }
  };
  for (const signal of SIGNALS) {
    try {
      process.on(signal, forward);
    } catch {
      // Not every platform has every signal (Windows).
    }
  }
  child.on("error", (error) => {
    process.stderr.write(`toolshed: Cannot start Deno at ${deno}: ${error.message}\n`);
    process.exit(1);
  });
  child.on("exit", (code, signal) => {
    if (signal !== null) {
      // End as Deno did: by the same signal, with no handler of ours left to catch it.
      for (const name of SIGNALS) process.removeAllListeners(name);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 1);
  });
}

main();
