// Start-up failed because of what a server directory holds: one sentence per problem, each
// naming its file, all reported together so an author fixes them in one pass.

export class DirectoryLoadError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(problems.join("\n"));
    this.name = "DirectoryLoadError";
    this.problems = problems;
  }
}
