// callOperation() (lib/openapi/call.ts) against a loopback echo server: results from 2xx
// answers, redirects within the origin only, non-2xx answers cut, answers past the limit
// refused while read, a stalled server ended by the signal, a network error as a result.
import assert from "node:assert/strict";
import { callOperation, ERROR_BODY_BYTES } from "../lib/openapi/call.ts";
import { buildRequest } from "../lib/openapi/request.ts";
import { serveEcho } from "./_openapi_echo.ts";

const LIMIT = 64 * 1024;

/** Calls `GET <path>` on a fresh echo server (base `<origin>/v1`), then closes it. */
async function call(
  path: string,
  options: { wrapResult?: boolean; signal?: AbortSignal; method?: string } = {},
) {
  const echo = serveEcho();
  try {
    const request = buildRequest(
      new URL(`${echo.origin}/v1`),
      options.method ?? "GET",
      path,
      {},
      {},
      undefined,
      {},
    );
    const result = await callOperation(request, {
      signal: options.signal ?? new AbortController().signal,
      maxBodyBytes: LIMIT,
      wrapResult: options.wrapResult ?? false,
    });
    return { result, arrivals: echo.arrivals };
  } finally {
    await echo.close();
  }
}

function textOf(result: Record<string, unknown>): string {
  return (result.content as { text: string }[])[0].text;
}

Deno.test("callOperation() answers a 2xx JSON object as structuredContent and its text", async () => {
  const { result } = await call("/pets/1");
  const echoed = { method: "GET", path: "/v1/pets/1", query: "", body: "" };
  assert.deepEqual(result, {
    content: [{ type: "text", text: JSON.stringify(echoed) }],
    structuredContent: echoed,
  });
});

Deno.test("callOperation() wraps the answer as {result} when the output schema does", async () => {
  const { result } = await call("/list", { wrapResult: true });
  assert.deepEqual(result.structuredContent, { result: [1, 2, 3] });
  const plain = await call("/text", { wrapResult: false });
  assert.deepEqual(plain.result, { content: [{ type: "text", text: "plain words" }] });
});

Deno.test("callOperation() follows a redirect within the origin", async () => {
  const { result, arrivals } = await call("/redirect/same");
  assert.equal(result.isError, undefined);
  assert.deepEqual(arrivals.map((arrival) => arrival.path), [
    "/v1/redirect/same",
    "/v1/pets/landed",
  ]);
});

Deno.test("callOperation() sends the body again after a 307 and turns a 303 into a GET without one", async () => {
  const echo = serveEcho();
  try {
    for (const path of ["/redirect/temporary", "/redirect/see-other"]) {
      const request = buildRequest(
        new URL(`${echo.origin}/v1`),
        "POST",
        path,
        { name: "Rex" },
        {},
        { mediaType: "application/json", shape: "properties", properties: ["name"] },
        {},
      );
      const result = await callOperation(request, {
        signal: new AbortController().signal,
        maxBodyBytes: LIMIT,
        wrapResult: false,
      });
      assert.equal(result.isError, undefined);
    }
    const seen = echo.arrivals.map((arrival) => [
      arrival.method,
      arrival.path,
      new TextDecoder().decode(arrival.body),
      arrival.headers["content-type"],
    ]);
    const json = "application/json";
    assert.deepEqual(seen, [
      ["POST", "/v1/redirect/temporary", '{"name":"Rex"}', json],
      ["POST", "/v1/pets/landed", '{"name":"Rex"}', json],
      ["POST", "/v1/redirect/see-other", '{"name":"Rex"}', json],
      ["GET", "/v1/pets/landed", "", undefined],
    ]);
  } finally {
    await echo.close();
  }
});

Deno.test("callOperation() refuses a redirect to another origin", async () => {
  const { result, arrivals } = await call("/redirect/cross");
  assert.equal(result.isError, true);
  assert.match(
    textOf(result),
    /^Cannot call "GET \/redirect\/cross": it was redirected to "http:\/\/evil\.example\/v1\/pets", another origin; redirects are followed only within "http:\/\/127\.0\.0\.1:\d+"$/,
  );
  assert.equal(arrivals.length, 1);
});

Deno.test("callOperation() stops after 5 redirects", async () => {
  const { result, arrivals } = await call("/redirect/loop");
  assert.equal(
    textOf(result),
    'Cannot call "GET /redirect/loop": it was redirected more than 5 times',
  );
  assert.equal(arrivals.length, 6);
});

Deno.test("callOperation() answers a 404 with its status and the body cut at 16 KiB", async () => {
  const { result } = await call("/missing");
  assert.equal(result.isError, true);
  const prefix = "HTTP 404 Not Found: ";
  const suffix = "… (cut at 16 KiB)";
  assert.equal(textOf(result), `${prefix}${"x".repeat(ERROR_BODY_BYTES)}${suffix}`);
});

Deno.test("callOperation() refuses a 2xx answer longer than maxBodyBytes, declared or streamed", async () => {
  for (const path of ["/huge", "/huge-declared"]) {
    const { result } = await call(path);
    assert.deepEqual(result, {
      isError: true,
      content: [{
        type: "text",
        text:
          `Cannot call "GET ${path}": its answer is longer than the ${LIMIT} bytes a result may have`,
      }],
    });
  }
});

Deno.test("callOperation() ends a stalled exchange when its signal aborts, with the signal's reason", async () => {
  const controller = new AbortController();
  const reason = new Error("the tool's timeout");
  const echo = serveEcho();
  try {
    const request = buildRequest(
      new URL(`${echo.origin}/v1`),
      "GET",
      "/stall",
      {},
      {},
      undefined,
      {},
    );
    const pending = callOperation(request, {
      signal: controller.signal,
      maxBodyBytes: LIMIT,
      wrapResult: false,
    });
    for (let tries = 0; echo.arrivals.length === 0 && tries < 500; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(echo.arrivals.length, 1);
    controller.abort(reason);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise((resolve) => {
      timer = setTimeout(() => resolve("the call did not end within 10 s of the abort"), 10_000);
    });
    try {
      const ended = await Promise.race([pending.then(() => "resolved", (error) => error), bound]);
      assert.equal(ended, reason);
    } finally {
      clearTimeout(timer);
    }
  } finally {
    await echo.close();
  }
});

Deno.test("callOperation() answers a network error as an isError result naming the operation", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const request = buildRequest(
    new URL(`http://127.0.0.1:${port}/v1`),
    "DELETE",
    "/pets/{petId}",
    { petId: 1 },
    {
      petId: {
        in: "path",
        name: "petId",
        style: "simple",
        explode: false,
        allowReserved: false,
        schema: {},
      },
    },
    undefined,
    {},
  );
  const result = await callOperation(request, {
    signal: new AbortController().signal,
    maxBodyBytes: LIMIT,
    wrapResult: false,
  });
  assert.equal(result.isError, true);
  assert.match(textOf(result), /^Cannot call "DELETE \/pets\/\{petId\}": /);
  assert.doesNotMatch(textOf(result), /\n\s+at /);
});
