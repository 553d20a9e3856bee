// DPoP replay protection that no one else's proofs can touch (issue 34, adr/0054), over a real
// `main.ts --http` against a real authorization server (oidc-provider, tests/_oidc.ts): a victim's
// captured token and proof, replayed with another body after a flood, are still refused. The
// floods: 10,050 proofs of an attacker's own key with a junk token (all 401; they pushed the
// victim's proof id out of the 10,000 the old memory kept), then more proofs than one key may
// have, with a token of the attacker's own bound to that key (the first PROOFS_PER_KEY answered,
// the rest 429 with Retry-After). Two requests racing with one proof are one. (The memory's
// bounds alone, with small ones: tests/proof_memory_test.ts.)
import { match, ok, strictEqual } from "node:assert/strict";
import { PROOFS_PER_KEY } from "../lib/auth/proof_memory.ts";
import { startAuthServer } from "./_oidc.ts";
import { dpopKey, dpopProof } from "./_dpop.ts";
import { modernBody, modernHeaders } from "./_http_server.ts";
import { FIXTURE_TOOLS, spawnHttpServer } from "./_server_process.ts";

/** Past the 10,000 proof ids the memory kept before (oldest out first). */
const JUNK_FLOOD = 10_050;
/** Requests in flight at once during a flood. */
const IN_FLIGHT = 8;

let nextId = 0;
/** A 2026-07-28 tools/call of echo with `text`, as DPoP `token` with `proof`. */
async function echo(url: string, token: string, proof: string, text: string) {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      ...modernHeaders("tools/call", "echo"),
      authorization: `DPoP ${token}`,
      dpop: proof,
    },
    body: modernBody(++nextId, "tools/call", { name: "echo", arguments: { text } }),
  });
  const body = await response.json();
  return {
    status: response.status,
    challenge: response.headers.get("www-authenticate") ?? "",
    retryAfter: response.headers.get("retry-after"),
    message: String(body.error?.message ?? ""),
    text: String(body.result?.content?.[0]?.text ?? ""),
  };
}

/** Runs `one(i)` for i in [0, count), IN_FLIGHT at a time; counts the statuses. */
async function flood(count: number, one: (i: number) => Promise<number>) {
  const statuses = new Map<number, number>();
  let next = 0;
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next < count) {
      const status = await one(next++);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  }));
  return statuses;
}

Deno.test("dpop: after floods of an attacker's proofs, junk-token and own-token, a victim's captured proof replayed with another body is still 401", async () => {
  const as = await startAuthServer({ scopes: "mcp" });
  const server = await spawnHttpServer(["--tools", FIXTURE_TOOLS, "--auth-issuer", as.issuer]);
  try {
    const { url } = server;
    const proofFor = (key: CryptoKeyPair, token: string) =>
      dpopProof(key, { method: "POST", url, token });
    const victimKey = await dpopKey();
    const victimToken = await as.token({ scope: "mcp", resource: url, dpop: victimKey });
    const captured = await proofFor(victimKey, victimToken);
    const first = await echo(url, victimToken, captured, "the victim's");
    strictEqual(first.status, 200, first.message);
    strictEqual(first.text, "the victim's");
    const before = await echo(url, victimToken, captured, "the attacker's");
    strictEqual(before.status, 401, "replayed before the flood");
    match(before.message, /used before/);

    // Proofs of the attacker's key with a junk token: refused, and never kept.
    const attackerKey = await dpopKey();
    const junk = await flood(JUNK_FLOOD, async (i) => {
      const token = `junk-${i}`;
      const answer = await echo(url, token, await proofFor(attackerKey, token), "flood");
      return answer.status;
    });
    strictEqual(junk.get(401), JUNK_FLOOD, JSON.stringify([...junk]));
    const afterJunk = await echo(url, victimToken, captured, "the attacker's");
    strictEqual(afterJunk.status, 401, `replayed after the junk flood: ${afterJunk.text}`);
    match(afterJunk.message, /used before/);

    // Proofs of the attacker's key with a token of its own: past the key's quota, 429.
    const ownToken = await as.token({ scope: "mcp", resource: url, dpop: attackerKey });
    let refusal: Awaited<ReturnType<typeof echo>> | undefined;
    const own = await flood(PROOFS_PER_KEY + 50, async () => {
      const answer = await echo(url, ownToken, await proofFor(attackerKey, ownToken), "flood");
      if (answer.status === 429) refusal = answer;
      return answer.status;
    });
    strictEqual(own.get(200), PROOFS_PER_KEY, JSON.stringify([...own]));
    strictEqual(own.get(429), 50, JSON.stringify([...own]));
    match(refusal!.message, /The DPoP key has 2000 proofs within their window already/);
    ok(Number(refusal!.retryAfter) >= 1, `Retry-After: ${refusal!.retryAfter}`);

    const replayed = await echo(url, victimToken, captured, "the attacker's");
    strictEqual(replayed.status, 401, `replayed after both floods: ${replayed.text}`);
    match(replayed.message, /used before/);
    match(replayed.challenge, /^DPoP error="invalid_dpop_proof"/);

    // The victim goes on with new proofs; two requests racing with one are one.
    const fresh = await echo(url, victimToken, await proofFor(victimKey, victimToken), "again");
    strictEqual(fresh.status, 200, fresh.message);
    const racing = await proofFor(victimKey, victimToken);
    const raced = await Promise.all([
      echo(url, victimToken, racing, "one"),
      echo(url, victimToken, racing, "two"),
    ]);
    strictEqual(raced.map((answer) => answer.status).sort().join(), "200,401");
    ok(server.alive());
  } finally {
    await server.stop();
    await as.stop();
  }
});
