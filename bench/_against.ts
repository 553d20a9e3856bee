// Side by side with another commit (`--against DIR`, DIR a checkout of it): its main.ts becomes
// one more contestant of the same interleaved rounds, and what changed is the median, over the
// rounds, of each round's ratio: this commit's figure ÷ that commit's. How adr/0025 and the
// notes of a change to the request path measure "before and after" on shared, noisy cores.

/** The checkout's main.ts and a label naming its commit. */
export async function againstCheckout(dir: string): Promise<{ main: string; label: string }> {
  const root = dir.replace(/\/+$/, "");
  const main = `${root}/main.ts`;
  await Deno.stat(main).catch(() => {
    throw new Error(`Cannot compare against "${dir}": it has no main.ts`);
  });
  const { code, stdout } = await new Deno.Command("git", {
    args: ["-C", root, "rev-parse", "--short", "HEAD"],
    stdout: "piped",
    stderr: "null",
  }).output();
  const revision = code === 0 ? new TextDecoder().decode(stdout).trim() : root;
  return { main, label: `toolshed at ${revision}` };
}

/** One figure of a round: a number, or undefined when the contestant gave none. */
export type Figure<Round> = (round: Round, key: string) => number | undefined;

/**
 * A Markdown table of what changed: for each figure, the median over `rounds` of
 * after ÷ before, and each round's ratio.
 */
export function changeTable<Round>(
  rounds: readonly Round[],
  pairs: readonly { label: string; after: string; before: string }[],
  figures: readonly { name: string; of: Figure<Round> }[],
): string {
  const lines = [
    "| figure | " + pairs.map((pair) => pair.label).join(" | ") + " |",
    "|---|" + pairs.map(() => "---|").join(""),
  ];
  for (const { name, of } of figures) {
    const cells = pairs.map(({ after, before }) => {
      const ratios = rounds.flatMap((round) => {
        const [a, b] = [of(round, after), of(round, before)];
        return a === undefined || b === undefined || b === 0 ? [] : [a / b];
      });
      if (ratios.length === 0) return "—";
      const sorted = [...ratios].sort((x, y) => x - y);
      const median = sorted[sorted.length >> 1];
      return `${median.toFixed(2)}× (${ratios.map((ratio) => ratio.toFixed(2)).join(", ")})`;
    });
    lines.push(`| ${name} | ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}
