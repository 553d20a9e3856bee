// The hidden subcommand that runs code mode's sandbox child in a compiled toolshed (main.ts,
// code/sandbox_runner.ts). A module of its own so that main.ts can tell it at every start without
// loading the runner, which only a sandbox child needs.
export const CODE_RUNNER_COMMAND = "__code-runner";
