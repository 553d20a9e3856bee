// Start-up failed because of what a server directory holds: one sentence per problem, each
// naming its file, all reported together so an author fixes them in one pass.

/**
 * What a folder whose files failed only in part still holds: the primitives of its good
 * files, and the failed files as messages show them, so that a reload can keep serving the
 * last good version of each failed file (discovery/reload.ts).
 */
export interface PartialLoad<T> {
  readonly loaded: T;
  readonly failed: ReadonlySet<string>;
}

export class DirectoryLoadError<T = unknown> extends Error {
  readonly problems: readonly string[];
  /** Undefined when the folder as a whole could not be loaded (it could not be read). */
  readonly partial: PartialLoad<T> | undefined;

  constructor(problems: readonly string[], partial?: PartialLoad<T>) {
    super(problems.join("\n"));
    this.name = "DirectoryLoadError";
    this.problems = problems;
    this.partial = partial;
  }
}
