// middleware/_redact.ts: a helper, not a middleware (its name starts with "_"). A copy of a
// tool's arguments fit for a log or a trace: every value under a key that names a secret, and
// every string that looks like a credential wherever it is, becomes "[redacted]". The tool itself
// still receives the arguments as they were sent.

/** Keys whose values are secrets, whatever they hold. */
const SECRET_KEY = /pass(word|phrase)?|secret|token|api[-_]?key|auth|credential|private[-_]?key/i;

/** Strings that are credentials, wherever they are. */
const CREDENTIAL = [
  /^eyJ[\w-]+\.eyJ[\w-]+\.[\w-]*$/, // a JWT
  /^(bearer|basic|dpop) \S+$/i, // an Authorization header's value
  /^(sk|pk|rk)-[\w-]{16,}$/, // API keys of the sk-… kind
  /^(ghp|gho|ghu|ghs|ghr|github_pat)_\w{20,}$/, // GitHub tokens
  /^xox[abposr]-[\w-]{10,}$/, // Slack tokens
  /^AKIA[0-9A-Z]{16}$/, // AWS access key ids
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/, // a PEM private key
];

export const REDACTED = "[redacted]";

/** How deep a log's copy goes; below, a value is left out rather than read. */
const DEPTH = 8;

export function redacted(value: unknown, depth = 0): unknown {
  if (typeof value === "string") {
    return CREDENTIAL.some((pattern) => pattern.test(value)) ? REDACTED : value;
  }
  if (typeof value !== "object" || value === null) return value;
  if (depth >= DEPTH) return "[too deep]";
  if (Array.isArray(value)) return value.map((item) => redacted(item, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    copy[key] = SECRET_KEY.test(key) ? REDACTED : redacted(item, depth + 1);
  }
  return copy;
}
