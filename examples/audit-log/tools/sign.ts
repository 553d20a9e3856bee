// tools/sign.ts: signs a message with a secret the caller sends (HMAC-SHA-256, hex). The secret
// is an argument the tool needs, and one the audit log must not hold: it writes "[redacted]".
export default {
  description:
    "Signs a message with HMAC-SHA-256 under the secret given; answers the hex signature",
  inputSchema: {
    type: "object",
    properties: { message: { type: "string" }, secret: { type: "string", minLength: 1 } },
    required: ["message", "secret"],
  },
  annotations: { readOnlyHint: true },
  handler: async ({ message, secret }: { message: string; secret: string }) => {
    const encoder = new TextEncoder();
    const key = await crypto.subtle.importKey(
      "raw",
      encoder.encode(secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    const signature = await crypto.subtle.sign("HMAC", key, encoder.encode(message));
    return Array.from(new Uint8Array(signature), (byte) => byte.toString(16).padStart(2, "0"))
      .join("");
  },
};
