// The built-in middleware of the ways a request reaches back to its client besides its
// answer (adr/0025): progress notifications, log messages, and a 2025-era client's requests
// (sampling, elicitation, roots). A request that has no use for them (no progress token, no log
// level, no client to ask: most) gets shared channels that do nothing, and allocates nothing.
// Before the answer leaves, the last progress report is sent and dropped log messages told.
import type { JsonObject } from "../util/json.ts";
import { isThenable } from "../util/maybe.ts";
import { LOG_LEVELS } from "../wire/protocol.ts";
import type { Channels, ClientRequestMethod, LogLevel } from "../primitives/types.ts";
import type { MethodCall } from "../methods/call.ts";
import { CLIENT_CAPABILITY, refusal } from "../rounds/input_rounds.ts";
import type { CoreMiddleware } from "./chain.ts";

/** Log levels by severity, least severe first. */
const LEVEL_RANK = new Map([...LOG_LEVELS].map((level, rank) => [level, rank]));

/**
 * A 2026-07-28 request has no way back but its result (a method that may answer
 * input_required gets a `request` of its own, core/rounds.ts). Shared: costs a call nothing.
 */
export const STATELESS_CHANNELS: Channels = Object.freeze({
  progress() {},
  log() {},
  closeStream: () => false,
  request: (method: string) =>
    Promise.reject(
      new Error(
        `Cannot send ${method}: only tools/call, prompts/get and resources/read may ask the ` +
          `client, by answering input_required`,
      ),
    ),
});

/** A 2025-era request whose client declared nothing to ask and wants no progress or logs. */
export const SESSION_CHANNELS: Channels = Object.freeze({
  progress() {},
  log() {},
  closeStream: () => false,
  request: (method: string) => Promise.reject(new Error(refusal(method as ClientRequestMethod))),
});

/** At most one progress notification per request this often; reports between are merged. */
const PROGRESS_INTERVAL_MS = 20;
/** Log messages one request may send at once, and per second after that; the rest are counted. */
export const LOG_BURST = 100;

export function channels(): CoreMiddleware {
  return (next) => (call) => {
    const live = channelsFor(call);
    if (live === undefined) return next(call);
    call.channels = live.channels;
    let result;
    try {
      result = next(call);
    } catch (error) {
      live.finish();
      throw error;
    }
    if (!isThenable(result)) {
      live.finish();
      return result;
    }
    return (result as Promise<JsonObject>).then((ready) => {
      live.finish();
      return ready;
    }, (error) => {
      live.finish();
      throw error;
    });
  };
}

/**
 * The channels of a request that has a use for them (a progress token, a log level, a
 * client to ask), or undefined: most requests have none and allocate nothing.
 */
function channelsFor(call: MethodCall): { channels: Channels; finish(): void } | undefined {
  const { ctx, client, capabilities } = call;
  const era = call.features.era;
  const token = ctx.request.progressToken;
  const level = era === "stateless" ? ctx.request.envelope?.logLevel : ctx.session?.logLevel;
  const threshold = level !== undefined && "logging" in capabilities
    ? LEVEL_RANK.get(level)
    : undefined;
  const declared = client.clientCapabilities;
  const outbound = era === "session" &&
      ("sampling" in declared || "elicitation" in declared || "roots" in declared)
    ? ctx.outlet.outbound
    : undefined;
  if (token === undefined && threshold === undefined && outbound === undefined) return undefined;

  let finished = false;
  const sending = () => !finished && !ctx.controller.signal.aborted;
  const fallback = era === "stateless" ? STATELESS_CHANNELS : SESSION_CHANNELS;

  // Progress: growing values only, at most one notification per PROGRESS_INTERVAL_MS; a
  // report in between waits (replacing any older waiting one) and goes out when the
  // interval is over, or just before the response, so the last value always arrives.
  let last = -Infinity;
  let sentAt = -Infinity;
  let waiting: JsonObject | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const sendProgress = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (waiting === undefined || !sending()) return;
    ctx.outlet.notify({ jsonrpc: "2.0", method: "notifications/progress", params: waiting });
    waiting = undefined;
    sentAt = performance.now();
  };
  // Logs: a bucket of LOG_BURST messages that refills at LOG_BURST a second; what does not
  // fit is counted and told once, before the response.
  let tokens = LOG_BURST;
  // Full until the first message (every 2025-era request has a level now: adr/0024).
  let filledAt = -Infinity;
  let dropped = 0;
  const sendLog = (params: JsonObject) =>
    ctx.outlet.notify({ jsonrpc: "2.0", method: "notifications/message", params });

  const channels: Channels = {
    progress: token === undefined ? fallback.progress : (progress, total, message) => {
      // Progress must grow; a report that does not, or is not a number, is dropped.
      if (!sending() || !(Number.isFinite(progress) && progress > last)) return;
      last = progress;
      const params: JsonObject = { progressToken: token, progress };
      if (typeof total === "number" && Number.isFinite(total)) params.total = total;
      if (typeof message === "string") params.message = message;
      waiting = params;
      const wait = sentAt + PROGRESS_INTERVAL_MS - performance.now();
      if (wait <= 0) sendProgress();
      else timer ??= setTimeout(sendProgress, wait);
    },
    log: threshold === undefined ? fallback.log : (level: LogLevel, data, logger) => {
      const rank = LEVEL_RANK.get(level);
      if (!sending() || rank === undefined || rank < threshold) return;
      const now = performance.now();
      tokens = Math.min(LOG_BURST, tokens + (now - filledAt) * LOG_BURST / 1000);
      filledAt = now;
      if (tokens < 1) {
        dropped++;
        return;
      }
      tokens--;
      const params: JsonObject = { level, data };
      if (typeof logger === "string") params.logger = logger;
      sendLog(params);
    },
    request: outbound === undefined ? fallback.request : (method, params, _options) => {
      if (!(CLIENT_CAPABILITY[method] in declared)) {
        return Promise.reject(new Error(refusal(method)));
      }
      return outbound.request(method, params, ctx.controller.signal);
    },
    closeStream: () => sending() && (ctx.outlet.closeStream?.() ?? false),
  };
  const finish = () => {
    sendProgress();
    if (dropped > 0 && sending() && LEVEL_RANK.get("warning")! >= threshold!) {
      sendLog({
        level: "warning",
        logger: "toolshed",
        data: `toolshed dropped ${dropped} log message(s) of this request: ` +
          `more than ${LOG_BURST} a second`,
      });
    }
    finished = true;
  };
  return { channels, finish };
}
