// Touching Node's process.stdout, as guarding it directly would.
import process from "node:process";
process.stdout.write = (() => true) as never;
