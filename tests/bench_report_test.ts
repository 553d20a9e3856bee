// The benchmarks' writer (bench/e2e/report.ts, `--write-docs` of bench/e2e.ts, bench/http.ts and
// bench/floor.ts) puts each benchmark's tables into docs/performance.md between its markers and
// nowhere else; the page holds every pair of markers, so a run of several minutes cannot fail at
// its end.
import assert from "node:assert/strict";
import { markers, PERFORMANCE_PAGE, writeDocs } from "../bench/e2e/report.ts";

const PAGE = new URL(`../${PERFORMANCE_PAGE}`, import.meta.url);

Deno.test("docs/performance.md holds the markers of the e2e, http and floor tables, each pair in order", async () => {
  const page = await Deno.readTextFile(PAGE);
  for (const name of ["e2e", "http", "floor"]) {
    const { begin, end } = markers(name);
    const from = page.indexOf(begin);
    assert.ok(from !== -1 && page.indexOf(begin, from + 1) === -1, `one "${begin}"`);
    assert.ok(page.indexOf(end) > from, `"${end}" after "${begin}"`);
  }
});

Deno.test("writeDocs() replaces what is between one benchmark's markers and leaves the rest", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_report_" });
  try {
    const path = `${dir}/performance.md`;
    const page = await Deno.readTextFile(PAGE);
    await Deno.writeTextFile(path, page);
    await writeDocs(path, "e2e", "| a | b |\n| - | - |\n| 1 | 2 |");
    const written = await Deno.readTextFile(path);
    const { begin, end } = markers("e2e");
    const between = written.slice(written.indexOf(begin) + begin.length, written.indexOf(end));
    assert.equal(between, "\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n");
    const outside = (text: string) =>
      text.slice(0, text.indexOf(begin)) + text.slice(text.indexOf(end));
    assert.equal(outside(written), outside(page));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("writeDocs() refuses a page without the markers, naming it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_report_" });
  try {
    const path = `${dir}/page.md`;
    await Deno.writeTextFile(path, "# No tables here\n");
    await assert.rejects(
      () => writeDocs(path, "http", "| x |"),
      new Error(
        `Cannot write the "http" tables: "${path}" has no ${markers("http").begin} … ${
          markers("http").end
        }`,
      ),
    );
    assert.equal(await Deno.readTextFile(path), "# No tables here\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
