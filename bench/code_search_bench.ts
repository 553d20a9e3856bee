// deno-lint-ignore-file no-console -- a benchmark prints its figures for people
// What tool search costs (lib/code/search.ts, adr/0073 decision 1): building the index of
// star-trek.json's 120 tools and of 2,000 synthetic ones, and one query on each; beside it, the
// heap the index holds (the tools themselves not counted).
//
//   deno bench -A bench/code_search_bench.ts                          times
//   deno run -A --v8-flags=--expose-gc bench/code_search_bench.ts     heap held by each index
import { searchIndex } from "../lib/code/search.ts";
import type { Tool } from "../lib/primitives/tools.ts";
import { starTrekTools, syntheticTools } from "../tests/_tool_corpus.ts";

const catalogs: [string, readonly Tool[], string][] = [
  ["star-trek.json, 120 tools", await starTrekTools(), "find a spacecraft by name"],
  ["2,000 synthetic tools", syntheticTools(2_000), "archive a billing webhook"],
];

if (import.meta.main) {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run with --v8-flags=--expose-gc");
  const heap = () => {
    gc();
    gc();
    return Deno.memoryUsage().heapUsed;
  };
  for (const [label, tools] of catalogs) {
    const before = heap();
    const index = searchIndex(tools);
    const held = heap() - before;
    index.search("warm"); // keeps the index alive past the second measure
    console.log(`${label}: the index holds ${(held / 1024).toFixed(0)} KiB of heap`);
  }
} else {
  for (const [label, tools, query] of catalogs) {
    const index = searchIndex(tools);
    Deno.bench(`build the index, ${label}`, { group: "build" }, () => {
      searchIndex(tools);
    });
    Deno.bench(`search "${query}", ${label}`, { group: "search" }, () => {
      index.search(query);
    });
  }
}
