// Test helper: Debian's headless Chromium, driven over the Chrome DevTools Protocol on a
// WebSocket (Deno's own: no browser driver to install, no Node layer). `launchChromium()` starts
// one with a new empty profile and the flags this machine needs (no sandbox as root, no
// background networking on a closed network), on a DevTools port it picks itself on loopback;
// `open(url)` loads a page in a new tab and `evaluate` runs an expression there, awaiting a
// promise it returns. Every wait is under the hang guard; `close()` ends the browser and removes
// its profile.
import { withHangGuard } from "./_server_process.ts";

/** Where Debian's `chromium` package puts the browser. */
export const CHROMIUM = "/usr/bin/chromium";

/** Whether the browser is installed. */
export function hasChromium(): boolean {
  try {
    return Deno.statSync(CHROMIUM).isFile;
  } catch {
    return false;
  }
}

export interface Browser {
  /** Loads `url` in a new tab, once its load event has fired. */
  open(url: string): Promise<Page>;
  /** What the browser printed on stderr (its last 16 KiB), for a failure's message. */
  log(): string;
  close(): Promise<void>;
}

export interface Page {
  /** The value of `expression` in the page (a promise's, awaited), as JSON carries it. */
  evaluate(expression: string): Promise<unknown>;
  /**
   * As evaluate, in the page's first child frame (an iframe, even a sandboxed one the page's
   * own script cannot reach), in a world of its own over the frame's DOM.
   */
  evaluateInFrame(expression: string): Promise<unknown>;
  close(): Promise<void>;
}

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
  "--remote-debugging-address=127.0.0.1",
  "--remote-debugging-port=0",
];
const LOG_KEPT_CHARS = 16 * 1024;

interface CdpMessage {
  id?: number;
  method?: string;
  sessionId?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message: string };
}

export async function launchChromium(): Promise<Browser> {
  const profile = await Deno.makeTempDir({ prefix: "toolshed_chromium_" });
  const child = new Deno.Command(CHROMIUM, {
    args: [...FLAGS, `--user-data-dir=${profile}`, "about:blank"],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let log = "";
  const endpoint = Promise.withResolvers<string>();
  // Read stderr to its end (a full pipe would stall the browser), keeping its tail.
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      log = (log + decoder.decode(chunk, { stream: true })).slice(-LOG_KEPT_CHARS);
      const url = /DevTools listening on (ws:\/\/\S+)/.exec(log)?.[1];
      if (url !== undefined) endpoint.resolve(url);
    }
  })();
  const exited = child.status.then(() => {
    throw new Error(`Chromium exited before it listened:\n${log}`);
  });
  let socket: WebSocket;
  try {
    const url = await withHangGuard(
      Promise.race([endpoint.promise, exited]),
      "Chromium's DevTools line",
    );
    socket = new WebSocket(url);
    await withHangGuard(
      new Promise((resolve, reject) => {
        socket.onopen = resolve;
        socket.onerror = () => reject(new Error(`Cannot reach Chromium's DevTools at ${url}`));
      }),
      "Chromium's DevTools socket",
    );
  } catch (error) {
    await stop();
    throw error;
  }
  exited.catch(() => {}); // from here on, an exit fails the command waiting for an answer

  let lastId = 0;
  const pending = new Map<number, { resolve(value: CdpMessage): void; reject(e: Error): void }>();
  const listeners = new Set<(message: CdpMessage) => void>();
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data) as CdpMessage;
    if (message.id !== undefined) {
      const waiting = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) waiting?.reject(new Error(`DevTools: ${message.error.message}`));
      else waiting?.resolve(message);
    } else for (const listener of listeners) listener(message);
  };
  socket.onclose = () => {
    for (const waiting of pending.values()) waiting.reject(new Error("DevTools socket closed"));
    pending.clear();
  };

  /** Sends one command (to a tab's session when given) and resolves with its result. */
  function send(
    method: string,
    params: Record<string, unknown> = {},
    sessionId?: string,
  ): Promise<Record<string, unknown>> {
    const id = ++lastId;
    const answer = new Promise<CdpMessage>((resolve, reject) => {
      pending.set(id, { resolve, reject });
    });
    socket.send(JSON.stringify({ id, method, params, ...sessionId ? { sessionId } : {} }));
    return withHangGuard(answer, `DevTools ${method}`).then((message) => message.result ?? {});
  }

  /** The value of `expression` in a session's page (a world of it, `contextId`), as JSON carries it. */
  async function evaluateIn(
    sessionId: string,
    expression: string,
    contextId?: number,
  ): Promise<unknown> {
    const { result, exceptionDetails } = await send("Runtime.evaluate", {
      expression,
      awaitPromise: true,
      returnByValue: true,
      ...contextId === undefined ? {} : { contextId },
    }, sessionId) as {
      result: { value?: unknown };
      exceptionDetails?: { text: string; exception?: { description?: string } };
    };
    if (exceptionDetails) {
      throw new Error(
        `The page threw: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`,
      );
    }
    return result.value;
  }

  async function stop(): Promise<void> {
    try {
      child.kill("SIGTERM");
    } catch {
      // exited already
    }
    await withHangGuard(child.status, "Chromium exiting");
    await reading.catch(() => {});
    await Deno.remove(profile, { recursive: true }).catch(() => {});
  }

  return {
    log: () => log,
    async open(url) {
      const { targetId } = await send("Target.createTarget", { url: "about:blank" });
      const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true }) as {
        sessionId: string;
      };
      await send("Page.enable", {}, sessionId);
      await send("Page.setLifecycleEventsEnabled", { enabled: true }, sessionId);
      // The load of this navigation's document (its loaderId), which may come before the answer
      // to Page.navigate does: about:blank's own events are not it.
      const loaded = new Set<unknown>();
      let heard = () => {};
      const listener = (message: CdpMessage) => {
        if (message.sessionId !== sessionId || message.method !== "Page.lifecycleEvent") return;
        if (message.params?.name !== "load") return;
        loaded.add(message.params.loaderId);
        heard();
      };
      listeners.add(listener);
      try {
        const navigated = await send("Page.navigate", { url }, sessionId);
        if (typeof navigated.errorText === "string") {
          throw new Error(`Chromium cannot load ${url}: ${navigated.errorText}`);
        }
        await withHangGuard(
          new Promise<void>((resolve) => {
            heard = () => {
              if (loaded.has(navigated.loaderId)) resolve();
            };
            heard();
          }),
          `the load of ${url}`,
        );
      } finally {
        listeners.delete(listener);
      }
      const evaluate = (expression: string, contextId?: number) =>
        evaluateIn(sessionId, expression, contextId);
      return {
        evaluate: (expression) => evaluate(expression),
        async evaluateInFrame(expression) {
          const { frameTree } = await send("Page.getFrameTree", {}, sessionId) as {
            frameTree: { childFrames?: { frame: { id: string } }[] };
          };
          const child = frameTree.childFrames?.[0];
          if (child !== undefined) {
            const { executionContextId } = await send("Page.createIsolatedWorld", {
              frameId: child.frame.id,
              worldName: "test",
            }, sessionId) as { executionContextId: number };
            return await evaluate(expression, executionContextId);
          }
          // Not in the tree: the frame runs in a process of its own (a sandboxed iframe is
          // isolated so), a target of its own to attach to.
          const { targetInfos } = await send("Target.getTargets") as {
            targetInfos: { targetId: string; type: string; parentFrameId?: string }[];
          };
          const frame = targetInfos.find((info) =>
            info.type === "iframe" && (info.parentFrameId ?? targetId) === targetId
          );
          if (frame === undefined) throw new Error("The page has no child frame");
          const { sessionId: frameSession } = await send("Target.attachToTarget", {
            targetId: frame.targetId,
            flatten: true,
          }) as { sessionId: string };
          return await evaluateIn(frameSession, expression);
        },
        async close() {
          await send("Target.closeTarget", { targetId });
        },
      };
    },
    async close() {
      // Asked to close, the browser ends its own helper processes; SIGTERM if it cannot be asked.
      await send("Browser.close").catch(() => {});
      socket.onclose = null;
      socket.close();
      await stop();
    },
  };
}
