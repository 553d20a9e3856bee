// lib/code/search.ts (adr/0073 decision 1): the queries a model would write find the right tool of
// a real catalog (star-trek.json, 120 operations, served whole) in the first three hits; what the
// fields weigh; the bounds on a query and on the hits; ties; summaries.
import { deepStrictEqual, equal, ok, throws } from "node:assert/strict";
import {
  DEFAULT_HITS,
  MAX_HITS,
  MAX_QUERY_CHARS,
  searchIndex,
  SUMMARY_CHARS,
} from "../lib/code/search.ts";
import { starTrekTools, syntheticTools, toolOf } from "./_tool_corpus.ts";

const starTrek = searchIndex(await starTrekTools());

/** The names of the first `count` hits of `query` on star-trek's tools. */
function firstNames(query: string, count = 3): string[] {
  return starTrek.search(query, count).map((hit) => hit.name);
}

Deno.test('searchIndex() finds star-trek\'s spacecraft search for "find a spacecraft by name"', () => {
  // POST /spacecraft/search ("Searching spacecrafts") filters on one thing, `name` ("Spacecraft
  // name"); GET /spacecraft wants a uid, and a spacecraft class is another kind of thing.
  const names = firstNames("find a spacecraft by name");
  ok(names.includes("POST_spacecraftsearch"), names.join(", "));
});

Deno.test('searchIndex() finds star-trek\'s series for "episodes of a series"', () => {
  // GET /series answers SeriesFull, whose `episodes` lists the series' episodes; the episode
  // search (POST /episode/search) filters on title, season and episode numbers and dates, never
  // on a series, so a series' episodes come from GET /series.
  const names = firstNames("episodes of a series");
  ok(names.includes("GET_series"), names.join(", "));
});

Deno.test('searchIndex() finds star-trek\'s character search for "search characters"', () => {
  // POST /character/search ("Searching characters") filters on name, gender and more; GET
  // /character/search only pages through every character.
  const names = firstNames("search characters");
  ok(names.includes("POST_charactersearch"), names.join(", "));
});

Deno.test("searchIndex() answers no hit for words no tool has", () => {
  deepStrictEqual(starTrek.search("zyxwvut quuxbaz 4711"), []);
});

Deno.test("searchIndex() refuses a query with no word in it", () => {
  for (const query of ["", "   ", "?! … —"]) {
    throws(() => starTrek.search(query), {
      name: "RangeError",
      message: `The query "${query}" has no word to search for: ` +
        "give a few words that describe the tool",
    });
  }
});

Deno.test("searchIndex() refuses a query longer than MAX_QUERY_CHARS and answers one of that length", () => {
  const atCap = "spacecraft ".repeat(MAX_QUERY_CHARS).slice(0, MAX_QUERY_CHARS);
  ok(starTrek.search(atCap).some((hit) => hit.name === "POST_spacecraftsearch"));
  const huge = "spacecraft ".repeat(100_000);
  throws(() => starTrek.search(huge), {
    name: "RangeError",
    message: `The query is ${huge.length} characters long, more than ${MAX_QUERY_CHARS}: ` +
      "describe the tool in a few words",
  });
});

Deno.test("searchIndex() answers DEFAULT_HITS hits, or the limit, and refuses a limit outside 1 to MAX_HITS", async () => {
  // Star-trek's paging tools say "Pagination over …", its single reads "Retrival of a single …".
  const tools = await starTrekTools();
  const paging = tools.filter((tool) => /pagination/i.test(tool.definition.description));
  const either = tools.filter((tool) => /pagination|retrival/i.test(tool.definition.description));
  ok(DEFAULT_HITS < paging.length && paging.length < MAX_HITS && MAX_HITS < either.length);
  equal(starTrek.search("pagination").length, DEFAULT_HITS);
  equal(starTrek.search("pagination", 1).length, 1);
  deepStrictEqual(
    starTrek.search("pagination", MAX_HITS).map((hit) => hit.name).sort(),
    paging.map((tool) => tool.name).sort(),
  );
  equal(starTrek.search("pagination retrival", MAX_HITS).length, MAX_HITS);
  for (const limit of [0, -1, 1.5, MAX_HITS + 1, Number.NaN]) {
    throws(() => starTrek.search("pagination", limit), {
      name: "RangeError",
      message: `The limit "${limit}" is not an integer from 1 to ${MAX_HITS}`,
    });
  }
});

Deno.test("searchIndex() orders tools of equal score by name, whatever order they come in", () => {
  const same = { description: "Counts the words of a text." };
  const names = ["b_count", "a_count", "c_count"];
  for (const order of [names, [...names].reverse()]) {
    const index = searchIndex(order.map((name) => toolOf(name, same)));
    deepStrictEqual(index.search("words").map((hit) => hit.name), [
      "a_count",
      "b_count",
      "c_count",
    ]);
  }
});

Deno.test("searchIndex() splits names at _, -, . and camelCase humps", () => {
  const index = searchIndex([
    toolOf("list_open-issues.v2", { description: "One." }),
    toolOf("getHTTPStatus", { description: "Two." }),
    toolOf("other", { description: "Three." }),
  ]);
  deepStrictEqual(index.search("open issues").map((hit) => hit.name), ["list_open-issues.v2"]);
  deepStrictEqual(index.search("v2").map((hit) => hit.name), ["list_open-issues.v2"]);
  deepStrictEqual(index.search("http status").map((hit) => hit.name), ["getHTTPStatus"]);
});

Deno.test("searchIndex() matches words of any alphabet, and digits", () => {
  const index = searchIndex([
    toolOf("resize", {
      description: "Ändert die Größe eines Bildes.",
      inputSchema: { type: "object", properties: { breite: { description: "Breite in Pixeln" } } },
    }),
    toolOf("lookup", { description: "Finds the owner of an IPv6 address." }),
  ]);
  deepStrictEqual(index.search("ÄNDERT größe").map((hit) => hit.name), ["resize"]);
  deepStrictEqual(index.search("pixeln").map((hit) => hit.name), ["resize"]);
  deepStrictEqual(index.search("ipv6").map((hit) => hit.name), ["lookup"]);
});

Deno.test("searchIndex() ranks a word in the name above the same word in a parameter's description", () => {
  const index = searchIndex([
    toolOf("forecast", {
      description: "Tells what is coming.",
      inputSchema: {
        type: "object",
        properties: { place: { type: "string", description: "Where to give the weather for" } },
      },
    }),
    toolOf("weather", { description: "Tells what is coming." }),
  ]);
  deepStrictEqual(index.search("weather").map((hit) => hit.name), ["weather", "forecast"]);
});

Deno.test("searchIndex() matches a word's plural and -ing forms, the exact form first", () => {
  const index = searchIndex([
    toolOf("a_stemmed", { description: "Search a spacecraft class." }),
    toolOf("b_exact", { description: "Searching spacecrafts classes." }),
  ]);
  deepStrictEqual(index.search("searching spacecrafts classes").map((hit) => hit.name), [
    "b_exact",
    "a_stemmed",
  ]);
  deepStrictEqual(index.search("search spacecraft class").map((hit) => hit.name), [
    "a_stemmed",
    "b_exact",
  ]);
});

Deno.test("searchIndex() hits carry the title and the first sentence of the description, at most SUMMARY_CHARS characters", () => {
  const long = "word ".repeat(100).trim();
  const index = searchIndex([
    toolOf("titled", {
      title: "A Titled Tool",
      description: "Finds things. Then says more about them.",
    }),
    toolOf("annotated", {
      annotations: { title: "From Annotations" },
      description: "Finds things on one line\nand more on the next",
    }),
    toolOf("long", { description: `Finds things ${long}. The rest.` }),
    toolOf("unbroken", { description: `Finds things ${"x".repeat(300)}` }),
  ]);
  const hits = Object.fromEntries(index.search("finds").map((hit) => [hit.name, hit]));
  ok(Object.isFrozen(hits.titled), "a caller cannot change what the next search answers");
  deepStrictEqual(hits.titled, {
    name: "titled",
    title: "A Titled Tool",
    summary: "Finds things.",
  });
  deepStrictEqual(hits.annotated, {
    name: "annotated",
    title: "From Annotations",
    summary: "Finds things on one line",
  });
  const summary = hits.long.summary;
  ok(summary.endsWith(" word…") && [...summary].length <= SUMMARY_CHARS, summary);
  equal("title" in hits.long, false);
  equal([...hits.unbroken.summary].length, SUMMARY_CHARS);
  ok(hits.unbroken.summary.endsWith("x…"));
});

Deno.test("searchIndex() of 2,000 tools finds a tool by the words of its name and description", () => {
  const tools = syntheticTools(2_000);
  const index = searchIndex(tools);
  // Each noun and qualifier makes 8 tools, one per verb: the verb, the noun and the qualifier
  // together name one of them.
  const [first] = index.search("archive a billing webhook");
  equal(first.name.startsWith("archive_webhookBilling_"), true, first.name);
});
