// Diagnostics for tests: recorded instead of printed, so a green run shows only its results,
// and a test can assert on what the server would have told a person.
import type { Diagnostics } from "../lib/util/diagnostics.ts";
import { diagnosticText } from "../lib/util/diagnostics.ts";

export interface Recorder extends Diagnostics {
  /** Everything reported so far, in order: diagnostic lines and forwarded program stderr. */
  readonly entries: string[];
  /** The entries as one text. */
  text(): string;
}

export function recorder(): Recorder {
  const entries: string[] = [];
  return {
    entries,
    error(message, error) {
      entries.push(diagnosticText(message, error));
    },
    forward(text) {
      entries.push(text);
      return undefined;
    },
    text: () => entries.join(""),
  };
}
