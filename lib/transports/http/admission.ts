// What one POSTed body becomes, before the core sees it: a request to dispatch, an
// accepted notification, or a refusal with its HTTP status. The steps run in the order
// of the 2026-07-28 validation ladder, which decides the code a request gets when it has
// several faults (SEP-2243, SEP-2575; the order the official conformance suite checks):
// parse → shape → `_meta` → headers that disagree with the body → the version → headers
// that are missing. Method lookup (404) and everything after it are the core's.
//
// A message without a claim and without a 2026-07-28 `MCP-Protocol-Version` is 2025-era
// traffic (HTTP.md §3.6: body first, never the header alone): a request, a notification
// sent with a session id, or a response. It is handed on as "session" traffic for its session to
// take (server.ts), and its `Mcp-Method` and `Mcp-Name` are never looked at.
import { META_PROTOCOL_VERSION } from "../../wire/protocol.ts";
import { ErrorCode, invalidParams, unsupportedVersion } from "../../wire/errors.ts";
import { extract, type Request } from "../../wire/extract.ts";
import { STATELESS_VERSIONS, VERSIONS } from "../../wire/versions.ts";
import type { RequestId, RpcError } from "../../wire/types.ts";
import { headerMismatch } from "./errors.ts";
import type { Admission, AdmissionRow, HttpStep } from "./exchange.ts";
import { refuse as answerRefusal } from "./statuses.ts";

import { SESSION_ID_HEADER } from "./sessions.ts";
import {
  disagreeingHeader,
  METHOD_HEADER,
  type MirroredArgument,
  missingOrWrongHeader,
  paramHeaderProblem,
  PROTOCOL_VERSION_HEADER,
} from "./headers.ts";

/** The arguments a tool mirrors into `Mcp-Param-*` headers; undefined for an unknown tool. */
export type MirroredArguments = (tool: string) => readonly MirroredArgument[] | undefined;

const NONE_MIRRORED: MirroredArguments = () => undefined;

function admit(
  body: Uint8Array,
  headers: Headers,
  mirroredOf: MirroredArguments = NONE_MIRRORED,
): Admission {
  if (isBlank(body)) {
    return refuse("badMessage", undefined, {
      code: ErrorCode.ParseError,
      message: "Parse error: the body is empty",
    });
  }
  const message = extract(body);
  switch (message.kind) {
    case "rejected":
      return refuse("badMessage", message.id ?? undefined, message.error);
    case "ignored": // with the blank body handled above: a notification whose params are wrong
      return refuse("badMessage", undefined, {
        code: ErrorCode.InvalidParams,
        message: "Invalid params: params must be an object",
      });
    case "response":
      if (!hasStatelessHeader(headers)) return { kind: "session", message };
      return refuse("badMessage", undefined, {
        code: ErrorCode.InvalidRequest,
        message: "Invalid request: a 2026-07-28 server sends no requests, so it takes no responses",
      });
    case "notification": {
      if (headers.has(SESSION_ID_HEADER) && !hasStatelessHeader(headers)) {
        return { kind: "session", message };
      }
      // Header rules for notifications are not defined; only a present Mcp-Method that
      // names another method is refused (as the TypeScript SDK does).
      const named = headers.get(METHOD_HEADER);
      return named !== null && named !== message.method
        ? refuse("headerMismatch", undefined, headerMismatch(METHOD_HEADER, named, message.method))
        : { kind: "accepted", method: message.method };
    }
    case "request":
      return admitRequest(message, headers, mirroredOf);
  }
}

function admitRequest(
  request: Request,
  headers: Headers,
  mirroredOf: MirroredArguments,
): Admission {
  const { id, envelope } = request;
  if (envelope === undefined) {
    if (!hasStatelessHeader(headers)) return { kind: "session", message: request };
    return request.method === "initialize"
      ? refuse("headerMismatch", id, claimless(request, headers))
      : refuse("badMessage", id, claimless(request, headers));
  }
  const claim = envelope.protocolVersion;
  const mirroring = {
    version: headers.get(PROTOCOL_VERSION_HEADER),
    method: headers.get(METHOD_HEADER),
  };
  const disagreeing = disagreeingHeader(mirroring, request.method, claim);
  if (disagreeing) return refuse("headerMismatch", id, disagreeing);
  if (VERSIONS.get(claim)?.era !== "stateless") {
    return refuse(
      "unsupportedVersion",
      id,
      unsupportedVersion(STATELESS_VERSIONS, claim).toRpcError(),
    );
  }
  const missing = missingOrWrongHeader(headers, mirroring, request);
  if (missing) return refuse("headerMismatch", id, missing);
  // Last (the ladder's step 9): the `Mcp-Param-*` headers of the tool's marked arguments.
  // An unknown tool has none; the core answers for it.
  if (request.method === "tools/call" && typeof request.params.name === "string") {
    const mirrored = mirroredOf(request.params.name);
    const problem = mirrored && mirrored.length > 0
      ? paramHeaderProblem(headers, mirrored, request.params.arguments)
      : undefined;
    if (problem) return refuse("headerMismatch", id, problem);
  }
  return { kind: "dispatch", request };
}

/** Whether `MCP-Protocol-Version` names a 2026-07-28 (stateless) version. */
export function hasStatelessHeader(headers: Headers): boolean {
  const header = headers.get(PROTOCOL_VERSION_HEADER);
  return header !== null && VERSIONS.get(header)?.era === "stateless";
}

/**
 * A request without a version claim but with a 2026-07-28 `MCP-Protocol-Version`: the
 * header contradicts an `initialize` (-32020), and any other request lacks its `_meta`.
 */
function claimless(request: Request, headers: Headers): RpcError {
  if (request.method !== "initialize") {
    return invalidParams(`Missing required _meta field: ${META_PROTOCOL_VERSION}`).toRpcError();
  }
  return headerMismatch(
    PROTOCOL_VERSION_HEADER,
    headers.get(PROTOCOL_VERSION_HEADER)!,
    String(request.params.protocolVersion ?? "(none)"),
  );
}

/** Nothing but JSON's whitespace, after an optional UTF-8 byte order mark. */
function isBlank(body: Uint8Array): boolean {
  const start = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
  for (let i = start; i < body.length; i++) {
    const byte = body[i];
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return false;
  }
  return true;
}

function refuse(row: AdmissionRow, id: RequestId | undefined, error: RpcError): Admission {
  return { kind: "refused", row, id, error };
}

/**
 * The endpoint's step that reads the body as a message, in the order of the validation ladder:
 * a refusal answers with its status, a notification with 202 (the only core one,
 * notifications/cancelled, is stdio's: over HTTP a client cancels by closing the stream), and
 * what is to be dispatched goes on. The body's bytes are given back unless it goes on.
 */
export function admissionStep(mirroredOf: MirroredArguments): HttpStep {
  return (next) => (exchange) => {
    const body = exchange.body!;
    const admission = admit(body.bytes, exchange.request.headers, mirroredOf);
    if (exchange.note) {
      exchange.note.rpcMethod = methodOf(admission);
      exchange.note.tool = toolOf(admission);
    }
    switch (admission.kind) {
      case "refused":
        body.release();
        return answerRefusal(admission.row, admission.id, admission.error);
      case "accepted":
        body.release();
        return new Response(null, { status: 202 });
      default:
        exchange.admission = admission;
        return next(exchange);
    }
  };
}

/** The tool a `tools/call` names, for the request log; undefined for anything else. */
function toolOf(admission: Admission): string | undefined {
  const message = admission.kind === "dispatch"
    ? admission.request
    : admission.kind === "session" && admission.message.kind !== "response"
    ? admission.message
    : undefined;
  if (message?.method !== "tools/call") return undefined;
  const name = message.params?.name;
  return typeof name === "string" ? name : undefined;
}

/** The JSON-RPC method an admitted message names, for the request log. */
function methodOf(admission: Admission): string | undefined {
  switch (admission.kind) {
    case "dispatch":
      return admission.request.method;
    case "accepted":
      return admission.method;
    case "session":
      return admission.message.kind === "response" ? "(response)" : admission.message.method;
    case "refused":
      return undefined;
  }
}
