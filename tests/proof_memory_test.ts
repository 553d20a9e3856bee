// The DPoP proof memory (lib/auth/proof_memory.ts, adr/0054) with small bounds: ids kept per key,
// nothing unexpired ever forgotten to make room, a key over its quota or a full memory refused
// (saying when to come back) rather than a replay let through, and the checker keeping a proof's
// id only when it is spent. (Over a real main.ts and a real issuer: tests/dpop_replay_test.ts.)
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { proofMemory } from "../lib/auth/proof_memory.ts";
import { proofChecker } from "../lib/auth/dpop.ts";
import { DEFAULT_ALGORITHMS } from "../lib/auth/algorithms.ts";
import { dpopKey, dpopProof } from "./_dpop.ts";

const NOW = 1_800_000_000;
const UNTIL = NOW + 300;

Deno.test("proofMemory() refuses a key over its quota and a full memory, and never forgets an unexpired id under a flood", () => {
  const memory = proofMemory({ perKey: 3, total: 10 });
  for (const id of ["v1", "v2"]) strictEqual(memory.take("victim", id, UNTIL, NOW), undefined);
  deepStrictEqual(memory.take("victim", "v1", UNTIL, NOW), { kind: "used" });

  // An attacker's key: three ids, then 429's refusal, however many more it tries.
  for (let i = 0; i < 1_000; i++) {
    const refused = memory.take("attacker", `a${i}`, UNTIL + i, NOW);
    if (i < 3) strictEqual(refused, undefined, `a${i}`);
    else deepStrictEqual(refused, { kind: "key-full", limit: 3, retryAfter: 300 }, `a${i}`);
  }
  // Many attacker keys: the memory fills, then every new id is refused, none forgotten.
  for (let i = 0; i < 1_000; i++) {
    const refused = memory.take(`key${i}`, "x", UNTIL, NOW + 0.5);
    strictEqual(refused?.kind, i < 5 ? undefined : "full", `key${i}`);
    ok(memory.size <= 10, `${memory.size} ids kept`);
  }
  deepStrictEqual(memory.take("someone", "new", UNTIL, NOW + 0.5), {
    kind: "full",
    limit: 10,
    retryAfter: 300,
  });
  // A replay is refused as one, full or not.
  for (const id of ["v1", "v2"]) {
    deepStrictEqual(memory.take("victim", id, UNTIL, NOW + 1), { kind: "used" }, id);
    ok(memory.seen("victim", id, NOW + 1), id);
  }
  // Another key's id of the same name is another proof.
  ok(!memory.seen("attacker", "v1", NOW + 1));
});

Deno.test("proofMemory() forgets an id when its window closes, and frees the key and the memory then", () => {
  const memory = proofMemory({ perKey: 2, total: 3 });
  strictEqual(memory.take("a", "1", NOW + 10, NOW), undefined);
  strictEqual(memory.take("a", "2", NOW + 20, NOW), undefined);
  deepStrictEqual(memory.take("a", "3", NOW + 30, NOW), {
    kind: "key-full",
    limit: 2,
    retryAfter: 10,
  });
  strictEqual(memory.take("b", "1", NOW + 30, NOW), undefined);
  deepStrictEqual(memory.take("c", "1", NOW + 30, NOW + 2), {
    kind: "full",
    limit: 3,
    retryAfter: 8,
  });
  ok(memory.seen("a", "1", NOW + 9));
  ok(!memory.seen("a", "1", NOW + 10), "the window of a1 closed");
  // a1 expired: the key has room again, and so has the memory.
  strictEqual(memory.take("a", "3", NOW + 40, NOW + 10), undefined);
  strictEqual(memory.size, 3);
  strictEqual(memory.take("c", "1", NOW + 40, NOW + 21), undefined, "a2 expired too");
  strictEqual(memory.size, 3);
});

Deno.test("proofChecker() keeps a proof's id only when it is spent, once", async () => {
  const checker = proofChecker(DEFAULT_ALGORITHMS, proofMemory({ perKey: 10, total: 10 }));
  const key = await dpopKey();
  const url = "https://mcp.example.com/mcp";
  const request = { method: "POST", url, token: "a-token", now: Date.now() / 1000 };
  const proof = await dpopProof(key, { method: "POST", url, token: "a-token" });
  // Checked without being spent (its token refused, say): checked again, it is still good.
  for (let i = 0; i < 3; i++) {
    const checked = await checker.check(proof, request);
    ok("spend" in checked, JSON.stringify(checked));
  }
  const checked = await checker.check(proof, request);
  ok("spend" in checked);
  // Two requests racing with one proof both got this far: the first spends it, the second cannot.
  const racing = await checker.check(proof, request);
  ok("spend" in racing);
  strictEqual(checked.spend(), undefined);
  deepStrictEqual(racing.spend(), {
    status: 401,
    problem: "The DPoP proof was used before: each request needs a new one",
  });
  deepStrictEqual(await checker.check(proof, request), {
    problem: "The DPoP proof was used before: each request needs a new one",
  });
});

Deno.test("proofChecker() answers 429 for a key over its quota and 503 for a full memory, with when to come back", async () => {
  const checker = proofChecker(DEFAULT_ALGORITHMS, proofMemory({ perKey: 1, total: 2 }));
  const url = "https://mcp.example.com/mcp";
  const now = Math.floor(Date.now() / 1000);
  const request = { method: "POST", url, token: "a-token", now };
  const spend = async (key: CryptoKeyPair) => {
    const checked = await checker.check(
      await dpopProof(key, { method: "POST", url, token: "a-token", iat: now }),
      request,
    );
    if (!("spend" in checked)) throw new Error(checked.problem);
    return checked.spend();
  };
  const [one, two, three] = await Promise.all([dpopKey(), dpopKey(), dpopKey()]);
  strictEqual(await spend(one), undefined);
  deepStrictEqual(await spend(one), {
    status: 429,
    problem: "The DPoP key has 1 proofs within their window already, as many as this server " +
      "keeps for one key",
    retryAfter: 300,
  });
  strictEqual(await spend(two), undefined);
  deepStrictEqual(await spend(three), {
    status: 503,
    problem: "This server keeps 2 DPoP proofs within their window already, as many as it can",
    retryAfter: 300,
  });
});
