// What a caller starts stays theirs, in the core (issue 24): a listen following task ids hears
// only its own caller's tasks, whoever names them. (Sessions, task reads and requestState over
// real HTTP: tests/oauth_http_test.ts; across instances: tests/scale.ts, check i.)
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { createServer } from "../lib/server/create_server.ts";
import { IN_PROCESS } from "../lib/methods/context.ts";
import type { AuthInfo } from "../lib/primitives/types.ts";
import type { JsonObject } from "../lib/util/json.ts";
import { recorder } from "./_diagnostics.ts";
import { withHangGuard } from "./_server_process.ts";
import { callerNamed, JOB_TOOL } from "./_oauth_tools.ts";

const TASKS = "io.modelcontextprotocol/tasks";

const caller = (subject: string): AuthInfo => callerNamed(subject);

Deno.test("a listen following a task hears it only when the task is its caller's", async () => {
  const server = await createServer({ primitives: { tools: [JOB_TOOL] }, diagnostics: recorder() });
  let id = 0;
  const handle = (
    method: string,
    params: JsonObject,
    auth: AuthInfo,
    heard: JsonObject[] = [],
    controller = new AbortController(),
  ) =>
    server.core.handle({
      request: {
        kind: "request",
        id: ++id,
        method,
        params,
        envelope: {
          protocolVersion: "2026-07-28",
          clientCapabilities: { extensions: { [TASKS]: {} } },
          clientInfo: undefined,
          logLevel: undefined,
        },
        progressToken: undefined,
      },
      controller,
      closing: undefined,
      session: undefined,
      outlet: { notify: (message) => heard.push(message), outbound: undefined },
      origin: IN_PROCESS,
      facts: { caller: auth },
    });
  const alice = caller("alice");
  const bob = caller("bob");
  const started = await handle("tools/call", { name: "job", arguments: {} }, alice);
  const { taskId } = (started as { result: { taskId: string } }).result;
  strictEqual(typeof taskId, "string", JSON.stringify(started));

  const listen = (who: AuthInfo) => {
    const heard: JsonObject[] = [];
    const controller = new AbortController();
    const done = handle(
      "subscriptions/listen",
      { notifications: { taskIds: [taskId] } },
      who,
      heard,
      controller,
    );
    return { heard, controller, done };
  };
  const alices = listen(alice);
  const bobs = listen(bob);
  const cancelled = await handle("tasks/cancel", { taskId }, alice);
  ok("result" in cancelled, JSON.stringify(cancelled));
  // The change travels through the bus: wait until alice's listen has heard it (bounded).
  await withHangGuard(
    (async () => {
      while (!alices.heard.some((message) => message.method === "notifications/tasks")) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })(),
    "alice's listen hearing her task",
  );
  const methods = (heard: JsonObject[]) => heard.map((message) => message.method);
  deepStrictEqual(methods(bobs.heard), ["notifications/subscriptions/acknowledged"]);
  ok(methods(alices.heard).includes("notifications/tasks"));
  const last = alices.heard.at(-1)!.params as JsonObject;
  strictEqual(last.taskId, taskId);
  strictEqual(last.status, "cancelled");
  alices.controller.abort();
  bobs.controller.abort();
  await Promise.all([alices.done, bobs.done]);
  await server.close();
});
