// The `requestState` of a 2026-07-28 `input_required` result (SEP-2322): the answers a
// request has collected over its rounds, bound to the request it belongs to (method, name,
// arguments) and to an expiry, sealed with HMAC-SHA-256 so that any instance holding the key
// can continue the request and none accepts state a client made up or changed. The client
// sees it as an opaque string: `<payload>.<mac>`, both base64url. The payload names the key
// that sealed it by a fingerprint (not the key), so that state sealed by an instance with
// another key is told apart from state that was changed: several instances without a shared
// key is a deployment mistake worth saying so.
import { isObject, type JsonObject } from "../util/json.ts";

/** How long a requestState stays good: a person may take a while to answer an elicitation. */
export const REQUEST_STATE_TTL_MS = 15 * 60 * 1000;

/** What a request is, for binding its state: the method, the name or URI, the arguments. */
export interface StateBinding {
  readonly method: string;
  readonly name: string;
  /**
   * As the client sent them, unchanged by the call: each round sends them again as they were
   * (a tool's defaults are filled into a copy, tool_call.ts).
   */
  readonly args: unknown;
  /**
   * Whose request it is, when its caller was verified (methods/caller.ts): a state sealed for
   * one caller is refused to another, who could otherwise continue their call.
   */
  readonly caller?: string;
}

/** The key every instance shares (TOOLSHED_STATE_KEY), or a random one per process. */
export async function stateKey(secret?: string): Promise<CryptoKey> {
  const raw = secret === undefined
    ? crypto.getRandomValues(new Uint8Array(32))
    : new TextEncoder().encode(secret);
  return await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
    "verify",
  ]);
}

/** Seals `answers` for the request `binding` describes, good for REQUEST_STATE_TTL_MS. */
export async function sealState(
  key: CryptoKey,
  binding: StateBinding,
  answers: JsonObject,
  now = Date.now(),
): Promise<string> {
  const payload = JSON.stringify({
    v: 1,
    k: await fingerprintOf(key),
    b: bindingOf(binding),
    ...(binding.caller === undefined ? {} : { c: binding.caller }),
    e: now + REQUEST_STATE_TTL_MS,
    a: answers,
  });
  const bytes = new TextEncoder().encode(payload);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, bytes));
  return `${base64url(bytes)}.${base64url(mac)}`;
}

/** Why state that fails its check is refused: changed, or not sealed by these keys at all. */
export const TAMPERED = "requestState failed its integrity check";
export const SEALED_ELSEWHERE =
  "requestState was sealed with a key this server does not hold: by another instance (every " +
  "instance behind a load balancer must share TOOLSHED_STATE_KEY, or use --redis), or with a " +
  "key rotated out since";

/**
 * The answers sealed in `state`, or a sentence saying why it cannot be trusted: not a
 * string toolshed made, changed, sealed with another key, expired, or made for another
 * request.
 */
export async function openState(
  keys: readonly CryptoKey[],
  state: unknown,
  binding: StateBinding,
  now = Date.now(),
): Promise<JsonObject | string> {
  if (typeof state !== "string") return "requestState must be a string";
  const [payloadText, macText, extra] = state.split(".");
  const payload = fromBase64url(payloadText);
  const mac = fromBase64url(macText);
  if (extra !== undefined || payload === undefined || mac === undefined) {
    return "requestState is not one this server issued";
  }
  // The signing key first; older keys of a rotation after it (a few HMACs at most).
  let verified = false;
  for (const key of keys) {
    verified = await crypto.subtle.verify("HMAC", key, mac, payload);
    if (verified) break;
  }
  if (!verified) return await sealedElsewhere(keys, payload) ? SEALED_ELSEWHERE : TAMPERED;
  const sealed: unknown = JSON.parse(new TextDecoder().decode(payload));
  if (!isObject(sealed) || sealed.v !== 1 || !isObject(sealed.a)) {
    return "requestState is not one this server issued";
  }
  if (typeof sealed.e !== "number" || sealed.e < now) return "requestState has expired";
  if (sealed.b !== bindingOf(binding)) return "requestState belongs to another request";
  if (sealed.c !== binding.caller) return "requestState was issued to another caller";
  return sealed.a;
}

/**
 * Whether a payload whose MAC none of `keys` verifies names a key that is not one of them.
 * Read only to choose the message: nothing in an unverified payload is trusted.
 */
async function sealedElsewhere(keys: readonly CryptoKey[], payload: Uint8Array): Promise<boolean> {
  let named: unknown;
  try {
    named = JSON.parse(new TextDecoder().decode(payload))?.k;
  } catch {
    return false;
  }
  if (typeof named !== "string") return false;
  const ours = await Promise.all(keys.map(fingerprintOf));
  return !ours.includes(named);
}

/** Fingerprints by key, computed once each. */
const fingerprints = new WeakMap<CryptoKey, Promise<string>>();

/**
 * A key's public name: the first 8 bytes of its HMAC over a fixed label, base64url. It says
 * which key sealed a state and nothing of the key.
 */
function fingerprintOf(key: CryptoKey): Promise<string> {
  let fingerprint = fingerprints.get(key);
  if (fingerprint === undefined) {
    const label = new TextEncoder().encode("toolshed requestState key");
    fingerprint = crypto.subtle.sign("HMAC", key, label).then((mac) =>
      base64url(new Uint8Array(mac, 0, 8))
    );
    fingerprints.set(key, fingerprint);
  }
  return fingerprint;
}

/** The binding as one string: method, name and the arguments as canonical JSON. */
function bindingOf({ method, name, args }: StateBinding): string {
  return `${method}\n${name}\n${canonical(args ?? {})}`;
}

/** JSON with object keys sorted, so that a client may resend the arguments in any order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isObject(value)) {
    return `{${
      Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
        .join(",")
    }}`;
  }
  return JSON.stringify(value) ?? "null";
}

function base64url(bytes: Uint8Array): string {
  return bytes.toBase64({ alphabet: "base64url", omitPadding: true });
}

function fromBase64url(text: string | undefined): Uint8Array<ArrayBuffer> | undefined {
  if (text === undefined || !/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = Uint8Array.fromBase64(text, { alphabet: "base64url" });
  } catch {
    return undefined;
  }
  // Only the one spelling toolshed writes: a last character whose unused bits are set decodes
  // to the same bytes, and a state changed that way must not pass as the original.
  return base64url(bytes) === text ? bytes : undefined;
}
