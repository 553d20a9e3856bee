// The page of `toolshed dev` (lib/commands/dev_page.ts) in Debian's headless Chromium, against a
// real `main.ts dev` process serving a temporary copy of tests/fixtures/dev: the page lists what
// the directory serves; a form built from a tool's inputSchema calls it and shows the result; a
// call with progress shows its progress and log lines; the app a tool links to renders in a
// sandboxed iframe (read inside it over the DevTools protocol) and its button's call comes back
// through the page's host bridge; a tool file written on disk shows on the page with neither a
// page reload nor a server restart; and a bad edit shows the finding of `check`.
//
// Where /usr/bin/chromium is missing the test is ignored with a message, except under CI=true.
import { deepStrictEqual, match, ok, strictEqual } from "node:assert/strict";
import { type Browser, CHROMIUM, hasChromium, launchChromium, type Page } from "./_chromium.ts";
import { type DevProcess, spawnDev } from "./_dev_server.ts";

const UNDER_CI = Deno.env.get("CI") === "true";
const AVAILABLE = hasChromium();
if (!AVAILABLE && !UNDER_CI) {
  Deno.stderr.writeSync(new TextEncoder().encode(
    `tests: ${CHROMIUM} is missing, so the dev page's browser test is ignored ` +
      "(apt-get install chromium runs it)\n",
  ));
}

const FIXTURE = new URL("./fixtures/dev/", import.meta.url);
/** How often, and how many times, a wait looks at the page (bounded; never a time assertion). */
const POLL_MS = 50;
const POLLS = 1_200;

/** Copies the folder `from` into `to`, file by file. */
async function copyDir(from: URL, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyDir(new URL(`${entry.name}/`, from), `${to}/${entry.name}`);
    else await Deno.copyFile(new URL(entry.name, from), `${to}/${entry.name}`);
  }
}

/** The value of `expression` in the page once it is truthy; fails naming `what` if it never is. */
async function waitFor(page: Page, expression: string, what: string): Promise<unknown> {
  let last: unknown;
  for (let poll = 0; poll < POLLS; poll++) {
    last = await page.evaluate(expression);
    if (last) return last;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new Error(`The page never showed ${what} (last: ${JSON.stringify(last)})`);
}

/**
 * evaluateInFrame, again while the frame's document is not yet the app's (`expression` gives
 * null) or the browser has not yet attached the frame where DevTools finds it.
 */
async function inFrame(page: Page, expression: string): Promise<unknown> {
  let last: unknown;
  for (let attempt = 0; attempt < POLLS; attempt++) {
    try {
      last = await page.evaluateInFrame(expression);
      if (last !== null) return last;
    } catch (error) {
      last = error;
      if (!/No frame for given id|has no child frame|Cannot find context/.test(String(error))) {
        throw error;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new Error(`The app's frame never answered: ${last}`);
}

/** The keys of the entries of one list of the page's side bar (`tools`, `apps`, …). */
function listed(page: Page, section: string): Promise<unknown> {
  return page.evaluate(
    `[...document.querySelectorAll("#list-${section} li[data-key]")].map((li) => li.dataset.key)`,
  );
}

/** Clicks the entry `key` of the list `section`. */
async function pick(page: Page, section: string, key: string): Promise<void> {
  const clicked = await page.evaluate(`(() => {
    const entry = document.querySelector(${
    JSON.stringify(`#list-${section} li[data-key="${key}"] button`)
  });
    if (entry === null) return false;
    entry.click();
    return true;
  })()`);
  strictEqual(clicked, true, `the page lists "${key}" under ${section}`);
}

Deno.test({
  name: "toolshed dev's page lists, calls, hosts an app and follows edits in Chromium",
  ignore: !AVAILABLE && !UNDER_CI,
  async fn(t) {
    if (!AVAILABLE) throw new Error(`${CHROMIUM} is missing: .ci/run installs chromium`);
    const dir = await Deno.makeTempDir({ prefix: "toolshed_dev_page_" });
    await copyDir(FIXTURE, dir);
    let server: DevProcess | undefined;
    let browser: Browser | undefined;
    try {
      server = await spawnDev(dir);
      const url = `${server.origin}/`;
      const pid = server.pid;
      const started = server;
      /** A step whose failure says what toolshed and the browser wrote. */
      const step = (name: string, fn: () => Promise<void>) =>
        t.step(name, async () => {
          try {
            await fn();
          } catch (error) {
            if (error instanceof Error) {
              error.message += `\n--- toolshed's stderr ---\n${started.stderr().join("\n")}` +
                `\n--- Chromium's ---\n${browser?.log() ?? ""}`;
            }
            throw error;
          }
        });
      browser = await launchChromium();
      const page = await browser.open(url);
      await waitFor(page, "document.body.dataset.ready", "that it had listed everything");
      // A mark in the page's global scope: still there later, the page was never reloaded.
      await page.evaluate("globalThis.notReloaded = true");

      await step(
        "the page lists the directory's tools, apps, resources, prompts and skills",
        async () => {
          deepStrictEqual(await listed(page, "tools"), [
            "approve",
            "ask",
            "board",
            "brew",
            "count",
            "order",
            "picture",
            "reset",
          ]);
          deepStrictEqual(await listed(page, "apps"), ["board"]);
          // One file: everything the page fetched came from its own origin.
          deepStrictEqual(
            await page.evaluate(
              `[...new Set(performance.getEntriesByType("resource").map((entry) => new URL(entry.name).origin))]`,
            ),
            [server!.origin],
          );
          deepStrictEqual(await listed(page, "prompts"), ["summarize"]);
          deepStrictEqual(await listed(page, "skills"), ["skill://release-notes/SKILL.md"]);
          const resources = await listed(page, "resources") as string[];
          ok(resources.includes("ui://board"), `ui://board among ${resources}`);
          ok(resources.some((uri) => uri.endsWith("notes.md")), `notes.md among ${resources}`);
        },
      );

      await step(
        "a form built from the inputSchema calls the tool and shows its result",
        async () => {
          await pick(page, "tools", "order");
          const fields = await page.evaluate(
            `Object.fromEntries([...document.querySelectorAll("#detail [data-field]")]
            .map((input) => [input.dataset.field, input.dataset.kind + (input.required ? "!" : "")]))`,
          );
          deepStrictEqual(fields, {
            item: "text!",
            quantity: "integer",
            price: "number",
            gift: "boolean",
            flavour: "enum!",
            notes: "json",
          });
          await page.evaluate(`(() => {
          const field = (name) => document.querySelector('#detail [data-field="' + name + '"]');
          field("item").value = "scone <b>";
          field("price").value = "2.5";
          field("gift").value = "true";
          field("flavour").value = [...field("flavour").options].find((o) => o.text === "lemon").value;
          field("notes").value = '["warm"]';
          document.getElementById("call").click();
        })()`);
          const text = await waitFor(
            page,
            `document.querySelector("#run .result .block-text")?.textContent`,
            "the result of order",
          );
          strictEqual(text, "1 × scone <b> (lemon), as a gift");
          strictEqual(
            await page.evaluate(`document.querySelector("#run b")`),
            null,
            "the result's markup is shown as text",
          );
          deepStrictEqual(
            JSON.parse(
              await page.evaluate(
                `document.querySelector("#run .structured").textContent`,
              ) as string,
            ),
            {
              item: "scone <b>",
              quantity: 1,
              price: 2.5,
              gift: true,
              flavour: "lemon",
              notes: ["warm"],
            },
          );
          // The traffic panel holds the request and its answer, raw.
          const traffic = await page.evaluate(
            `[...document.querySelectorAll("#traffic-list pre")].map((pre) => JSON.parse(pre.textContent))`,
          ) as { method?: string; params?: { name?: string }; result?: unknown }[];
          ok(
            traffic.some((message) =>
              message.method === "tools/call" && message.params?.name === "order"
            ),
          );
        },
      );

      await step("an image block is shown as an image, and a tool error as isError", async () => {
        await pick(page, "tools", "picture");
        await page.evaluate(`document.getElementById("call").click()`);
        strictEqual(
          await waitFor(
            page,
            `(() => {
              const image = document.querySelector("#run img.block-image");
              return image?.complete && image.naturalWidth;
            })()`,
            "the pixel",
          ),
          1,
        );
        await page.evaluate(`(() => {
          document.querySelector('#detail [data-field="fail"]').value = "true";
          document.getElementById("call").click();
        })()`);
        const failed = await waitFor(
          page,
          `document.querySelector("#run.is-error .block-text")?.textContent`,
          "the tool error",
        ) as string;
        ok(failed.includes("Asked to fail"), failed);
        strictEqual(
          await page.evaluate(`document.querySelector("#run .outcome").textContent`),
          "isError: true",
        );
      });

      await step("a call with progress shows the progress and the log lines", async () => {
        await pick(page, "tools", "count");
        await page.evaluate(`(() => {
          document.querySelector('#detail [data-field="to"]').value = "3";
          document.getElementById("call").click();
        })()`);
        strictEqual(
          await waitFor(
            page,
            `document.querySelector("#run .result .block-text")?.textContent`,
            "count's result",
          ),
          "Counted to 3",
        );
        deepStrictEqual(
          await page.evaluate(`(() => {
          const run = document.getElementById("run");
          return {
            progress: [run.querySelector(".progress").value, run.querySelector(".progress").max],
            message: run.querySelector(".progress-message").textContent,
            logs: [...run.querySelectorAll(".logs li")].map((li) => li.textContent),
          };
        })()`),
          {
            progress: [3, 3],
            message: "3 / 3 Step 3 of 3",
            logs: ["[info] counted 1", "[info] counted 2", "[info] counted 3"],
          },
        );
      });

      await step(
        "a question the tool asks is answered on the page, and the call goes on",
        async () => {
          await pick(page, "tools", "ask");
          await page.evaluate(`document.getElementById("call").click()`);
          const question = await waitFor(
            page,
            `document.querySelector("#run .question .message")?.textContent`,
            "ask's question",
          );
          strictEqual(question, "Which colour?");
          await page.evaluate(`(() => {
          const colour = document.querySelector('#run .question [data-field="colour"]');
          colour.value = [...colour.options].find((o) => o.text === "green").value;
          document.querySelector("#run .send-answers").click();
        })()`);
          strictEqual(
            await waitFor(
              page,
              `document.querySelector("#run .result .block-text")?.textContent`,
              "ask's result",
            ),
            "You chose green",
          );
          // Two rounds on the wire: input_required, then the call again with the answer.
          const rounds = await page.evaluate(
            `[...document.querySelectorAll("#traffic-list pre")].map((pre) => JSON.parse(pre.textContent))
            .filter((message) => message.method === "tools/call" && message.params.name === "ask")
            .map((message) => message.params.inputResponses ?? null).reverse()`,
          );
          deepStrictEqual(rounds, [null, {
            input_1: { action: "accept", content: { colour: "green" } },
          }]);
        },
      );

      await step("a call as a task shows its status, and Cancel task cancels it", async () => {
        await pick(page, "tools", "count");
        await page.evaluate(`(() => {
          document.querySelector('#detail [data-field="to"]').value = "50";
          document.querySelector('#detail [data-field="stepMs"]').value = "1000";
          document.getElementById("as-task").checked = true;
          document.getElementById("call").click();
        })()`);
        strictEqual(
          await waitFor(
            page,
            `document.querySelector("#run .task-status")?.textContent`,
            "the task's status",
          ),
          "working",
        );
        await page.evaluate(`document.getElementById("cancel-task").click()`);
        strictEqual(
          await waitFor(
            page,
            `document.querySelector("#run .task-status").textContent === "cancelled" &&
              document.querySelector("#run .result").textContent`,
            "the cancelled task",
          ),
          "The task was cancelled.",
        );
        const methods = await page.evaluate(
          `[...document.querySelectorAll("#traffic-list pre")].map((pre) => JSON.parse(pre.textContent).method)`,
        ) as string[];
        ok(methods.includes("tasks/get") && methods.includes("tasks/cancel"), methods.join(" "));
      });

      await step(
        "a plain call that becomes a job is followed to its result, and Cancel job cancels one",
        async () => {
          // brew becomes a job after 200 ms (its jobAfterMs) for a call without tasks declared.
          await pick(page, "tools", "brew");
          await page.evaluate(`(() => {
          document.querySelector('#detail [data-field="cups"]').value = "4";
          document.getElementById("call").click();
        })()`);
          strictEqual(
            await waitFor(
              page,
              `document.querySelector("#run .result .block-text")?.textContent`,
              "brew's result, through its job",
            ),
            "Brewed 4 cups",
          );
          strictEqual(
            await page.evaluate(`document.querySelector("#run .task-status").textContent`),
            "done",
          );
          const followed = await page.evaluate(
            `[...document.querySelectorAll("#traffic-list pre")].map((pre) => JSON.parse(pre.textContent))
          .filter((message) => message.method === "tools/call" && message.params.name === "toolshed_job")
          .map((message) => Object.keys(message.params.arguments).sort().join(","))`,
          ) as string[];
          ok(
            followed.length >= 1 && followed.every((keys) => keys.startsWith("id")),
            followed.join(" "),
          );

          await page.evaluate(`(() => {
          document.querySelector('#detail [data-field="cups"]').value = "50";
          document.querySelector('#detail [data-field="stepMs"]').value = "1000";
          document.getElementById("call").click();
        })()`);
          strictEqual(
            await waitFor(
              page,
              `document.querySelector("#run .task-status")?.textContent`,
              "the job's status",
            ),
            "working",
          );
          await page.evaluate(`document.getElementById("cancel-job").click()`);
          match(
            await waitFor(
              page,
              `document.querySelector("#run .task-status").textContent === "ended with an error" &&
              document.querySelector("#run .result").textContent`,
              "the cancelled job",
            ) as string,
            /was cancelled/,
          );
        },
      );

      await step("a task that asks is answered on the page, with tasks/update", async () => {
        await pick(page, "tools", "approve");
        await page.evaluate(`(() => {
          document.getElementById("as-task").checked = true;
          document.getElementById("call").click();
        })()`);
        strictEqual(
          await waitFor(
            page,
            `document.querySelector("#run .task .question .message")?.textContent`,
            "the task's question",
          ),
          "Apply the change?",
        );
        strictEqual(
          await page.evaluate(`document.querySelector("#run .task-status").textContent`),
          "input_required",
        );
        await page.evaluate(`(() => {
          document.querySelector('#run .task .question [data-field="apply"]').checked = true;
          document.querySelector("#run .task .send-answers").click();
        })()`);
        strictEqual(
          await waitFor(
            page,
            `document.querySelector("#run .result .block-text")?.textContent`,
            "approve's result",
          ),
          "Applied",
        );
        strictEqual(
          await page.evaluate(`document.querySelector("#run .task-status").textContent`),
          "completed",
        );
        const update = await page.evaluate(
          `[...document.querySelectorAll("#traffic-list pre")].map((pre) => JSON.parse(pre.textContent))
            .find((message) => message.method === "tasks/update").params.inputResponses`,
        );
        deepStrictEqual(update, { input_1: { action: "accept", content: { apply: true } } });
      });

      await step(
        "a resource reads, a template's variable fills its URI, and a prompt's arguments get its messages",
        async () => {
          await pick(page, "resources", "toolshed:///notes.md");
          await page.evaluate(`document.getElementById("read").click()`);
          const read = await waitFor(
            page,
            `document.querySelector("#read-result pre")?.textContent`,
            "notes.md",
          );
          strictEqual(read, await Deno.readTextFile(`${dir}/resources/notes.md`));
          // A template's variable filled in: skills/ files are served through skill://{+path}.
          await pick(page, "templates", "skill://{+path}");
          await page.evaluate(`(() => {
          const path = document.querySelector('#detail [data-field="path"]');
          path.value = "release-notes/SKILL.md";
          path.dispatchEvent(new Event("input"));
          document.getElementById("read").click();
        })()`);
          strictEqual(
            await waitFor(
              page,
              `document.querySelector("#read-result pre")?.textContent`,
              "SKILL.md",
            ),
            await Deno.readTextFile(`${dir}/skills/release-notes/SKILL.md`),
          );
          await pick(page, "prompts", "summarize");
          await page.evaluate(`(() => {
          document.querySelector('#detail [data-field="text"]').value = "<i>hi</i>";
          document.querySelector('#detail [data-field="tone"]').value = "dry";
          document.getElementById("get").click();
        })()`);
          strictEqual(
            await waitFor(
              page,
              `document.querySelector("#prompt-result .block-text")?.textContent`,
              "the prompt",
            ),
            "Summarize this in a dry tone: <i>hi</i>",
          );
          strictEqual(await page.evaluate(`document.querySelector("#prompt-result i")`), null);
        },
      );

      await step(
        "the app renders in a sandboxed iframe and its call comes back through the bridge",
        async () => {
          await pick(page, "apps", "board");
          await page.evaluate(`(() => {
          document.querySelector('#detail [data-field="message"]').value = "first";
          document.getElementById("call").click();
        })()`);
          await waitFor(
            page,
            `document.querySelector("#run .result .block-text")`,
            "board's result",
          );
          strictEqual(
            await page.evaluate(`document.getElementById("app-frame").getAttribute("sandbox")`),
            "allow-scripts",
          );
          // In the frame, each wait bounded (10 s) within one DevTools answer: shown once the
          // app has its result; the CSP's refusal of an image from elsewhere; the button's call.
          const frameWait = (ready: string, value: string) =>
            `(async () => {
              if (document.getElementById("again") === null) return null; // not the app's yet
              // By the clock, not by count: a frame out of sight may have its timers slowed.
              const end = performance.now() + 10_000;
              while (!(${ready}) && performance.now() < end) await new Promise((r) => setTimeout(r, 25));
              return ${value};
            })()`;
          const byId = (id: string) => `document.getElementById("${id}")`;
          deepStrictEqual(
            await inFrame(
              page,
              frameWait(
                `!${byId("again")}.disabled && ${byId("result")}.textContent !== ""`,
                `({ host: ${byId("host")}.textContent, result: ${byId("result")}.textContent })`,
              ),
            ),
            { host: "toolshed dev", result: "Board: first" },
          );
          strictEqual(
            await inFrame(
              page,
              frameWait(`${byId("csp")}.textContent !== ""`, `${byId("csp")}.textContent`),
            ),
            "img-src",
            "the app's CSP refused the image",
          );
          strictEqual(
            await inFrame(
              page,
              frameWait(`${byId("refused")}.textContent !== ""`, `${byId("refused")}.textContent`),
            ),
            "tools/call -32602, ui/open-link -32601",
            "the host refuses a tool for the model only, and a method it does not serve",
          );
          await inFrame(page, `${byId("again")} ? (${byId("again")}.click(), true) : null`);
          strictEqual(
            await inFrame(
              page,
              frameWait(`${byId("answer")}.textContent !== ""`, `${byId("answer")}.textContent`),
            ),
            "Board: again",
          );
        },
      );

      await step(
        "a tool written on disk shows without a page reload or a server restart",
        async () => {
          await Deno.writeTextFile(
            `${dir}/tools/shout.ts`,
            `export default {
  description: "Says it louder",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  annotations: { readOnlyHint: true },
  handler: ({ text }: { text: string }) => text.toUpperCase(),
};
`,
          );
          await waitFor(
            page,
            `document.querySelector('#list-tools li[data-key="shout"]')`,
            "the new tool shout",
          );
          await pick(page, "tools", "shout");
          await page.evaluate(`(() => {
          document.querySelector('#detail [data-field="text"]').value = "psst";
          document.getElementById("call").click();
        })()`);
          strictEqual(
            await waitFor(
              page,
              `document.querySelector("#run .result .block-text")?.textContent`,
              "shout's result",
            ),
            "PSST",
          );
          strictEqual(
            await page.evaluate("globalThis.notReloaded"),
            true,
            "the page was not reloaded",
          );
          strictEqual(server!.alive(), true, `the dev process (pid ${pid}) still runs`);
        },
      );

      await step("a bad edit shows the findings of check and the refused reload", async () => {
        // Two faults: a schema whose root is not an object (start-up refuses it, so the reload
        // is refused) and a handler whose type is wrong on line 4 (the type check finds it).
        await Deno.writeTextFile(
          `${dir}/tools/broken.ts`,
          `export default {
  description: "Has a list for a schema",
  inputSchema: { type: "array" },
  handler: (): number => "never",
};
`,
        );
        const findings = await waitFor(
          page,
          `(() => {
            const texts = [...document.querySelectorAll("#findings-list li.error")].map((li) => li.textContent);
            const load = texts.find((text) => text.startsWith("tools/broken.ts ") && text.includes('"object"'));
            const types = texts.find((text) => text.startsWith("tools/broken.ts:4:"));
            return load && types && { load, types };
          })()`,
          "the check findings about tools/broken.ts",
        );
        ok(findings, "findings of both steps");
        const banner = await waitFor(
          page,
          `document.getElementById("banner").className === "refused" && document.getElementById("banner").textContent`,
          "the refused reload",
        ) as string;
        ok(banner.includes("tools/broken.ts"), banner);
        // The last good version keeps serving.
        deepStrictEqual(await listed(page, "tools"), [
          "approve",
          "ask",
          "board",
          "brew",
          "count",
          "order",
          "picture",
          "reset",
          "shout",
        ]);
        strictEqual(server!.alive(), true, `the dev process (pid ${pid}) still runs`);
      });
    } catch (error) {
      if (error instanceof Error) {
        error.message +=
          `\n--- Chromium's stderr ---\n${browser?.log() ?? ""}\n--- toolshed's ---\n` +
          (server?.stderr().join("\n") ?? "");
      }
      throw error;
    } finally {
      await browser?.close();
      await server?.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
