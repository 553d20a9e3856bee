// The operator's credentials for an API in tools/ (adr/0072 decision 6): the sidecar's
// `credentials` name the document's security schemes and take their secrets from the
// environment (`${NAME}`); a real toolshed process sends each only on the operations whose
// `security` names its scheme (an apiKey in a header, the query or a cookie; an http bearer
// token; an OAuth 2 scheme's token), and a caller signed in with toolshed's OAuth
// (oidc-provider on loopback, tests/_oidc.ts) never has its own token sent in their place; with
// `"auth": {"exchange": …}` each caller's token is traded (RFC 8693,
// tests/_token_exchange_issuer.ts) for one of the API's audience, and that one is sent.
import assert from "node:assert/strict";
import * as jose from "npm:jose@6.2.18";
import { startAuthServer } from "./_oidc.ts";
import { startExchangeIssuer } from "./_token_exchange_issuer.ts";
import { type Arrival, serveEcho } from "./_openapi_echo.ts";
import {
  call,
  callWith,
  echoPath,
  onlyArrival,
  overStdio,
  servedFolder,
} from "./_openapi_served.ts";
import { spawnHttpServer } from "./_server_process.ts";

Deno.test("openapi tools: the operator's apiKey (header, query, cookie) and bearer token from the environment reach only the operations whose security names their scheme", async () => {
  const echo = serveEcho();
  const secrets = {
    PETS_HEADER_KEY: crypto.randomUUID(),
    PETS_QUERY_KEY: crypto.randomUUID(),
    PETS_COOKIE_KEY: crypto.randomUUID(),
    PETS_BEARER: crypto.randomUUID(),
  };
  const dir = await servedFolder(echo, {
    credentials: {
      keyHeader: "${PETS_HEADER_KEY}",
      keyQuery: "${PETS_QUERY_KEY}",
      keyCookie: "${PETS_COOKIE_KEY}",
      bearer: "${PETS_BEARER}",
    },
  });
  /** Where each secret showed in a request: the header, query or cookie that carried it. */
  const carried = (arrival: Arrival) => {
    const found: string[] = [];
    for (const [name, secret] of Object.entries(secrets)) {
      for (const [header, value] of Object.entries(arrival.headers)) {
        if (value.includes(secret)) found.push(`${name} in ${header}: ${value}`);
      }
      if (arrival.query.includes(secret)) found.push(`${name} in the query: ${arrival.query}`);
    }
    return found;
  };
  try {
    await overStdio(dir, secrets, async (client) => {
      const expected: Record<string, string[]> = {
        keyed_header: [`PETS_HEADER_KEY in x-api-key: ${secrets.PETS_HEADER_KEY}`],
        keyed_query: [`PETS_QUERY_KEY in the query: api_key=${secrets.PETS_QUERY_KEY}`],
        keyed_cookie: [`PETS_COOKIE_KEY in cookie: session=${secrets.PETS_COOKIE_KEY}`],
        keyed_bearer: [`PETS_BEARER in authorization: Bearer ${secrets.PETS_BEARER}`],
        open: [],
        getPet: [],
      };
      for (const [name, found] of Object.entries(expected)) {
        const before = echo.arrivals.length;
        const result = await call(client, name, name === "getPet" ? { petId: "1" } : {});
        assert.notEqual(result.isError, true, `${name}: ${JSON.stringify(result)}`);
        assert.deepEqual(carried(onlyArrival(echo, before, name)), found, name);
        // Nor does the answer the model reads show a secret it was not given.
        const text = JSON.stringify(result);
        for (const secret of Object.values(secrets)) {
          if (!found.some((line) => line.includes(secret))) assert.ok(!text.includes(secret));
        }
      }
    });
  } finally {
    await echo.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openapi tools: an OAuth caller's call carries the operator's token for the operation's scheme, never the caller's own", async () => {
  const as = await startAuthServer({ scopes: "mcp" });
  const echo = serveEcho();
  const operator = crypto.randomUUID();
  const dir = await servedFolder(echo, { credentials: { petsAuth: "${PETS_TOKEN}" } });
  const server = await spawnHttpServer(
    ["--dir", dir, "--auth-issuer", as.issuer, "--auth-scope", "mcp"],
    { PETS_TOKEN: operator },
  );
  try {
    const token = await as.token({ scope: "mcp", resource: server.url });
    const created = await callWith(server.url, token, "createPet", { name: "Rex" });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.notEqual(created.body.result?.isError, true, JSON.stringify(created.body));
    const listed = await callWith(server.url, token, "listPets", {});
    assert.notEqual(listed.body.result?.isError, true, JSON.stringify(listed.body));
    assert.deepEqual(
      echo.arrivals.map((arrival) => [arrival.method, arrival.headers.authorization]),
      [["POST", `Bearer ${operator}`], ["GET", undefined]],
    );
    for (const arrival of echo.arrivals) {
      assert.ok(!Object.values(arrival.headers).some((value) => value.includes(token)));
    }
  } finally {
    await server.stop();
    await echo.close();
    await as.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openapi tools: with an exchange in the sidecar, the API receives a token of its own audience for the caller, never the caller's token", async () => {
  const audience = "https://pets.example/api";
  const as = await startExchangeIssuer({ upstreams: [audience], scopes: "mcp pets:read" });
  const echo = serveEcho();
  const dir = await servedFolder(echo, {
    auth: {
      exchange: {
        audience,
        scopes: ["pets:read"],
        clientId: "${PETS_EXCHANGE_CLIENT}",
        clientSecret: "${PETS_EXCHANGE_SECRET}",
      },
    },
  });
  const server = await spawnHttpServer(
    ["--dir", dir, "--auth-issuer", as.issuer, "--auth-scope", "mcp"],
    {
      PETS_EXCHANGE_CLIENT: as.exchanger.clientId,
      PETS_EXCHANGE_SECRET: as.exchanger.clientSecret,
    },
  );
  try {
    as.server.signInAs("alice");
    const token =
      (await as.server.login({ scope: "mcp pets:read", resource: server.url })).accessToken;
    const answered = await callWith(server.url, token, "getPet", { petId: "1" });
    assert.equal(answered.status, 200, JSON.stringify(answered.body));
    assert.notEqual(answered.body.result?.isError, true, JSON.stringify(answered.body));
    assert.equal(as.exchanges, 1);
    const [arrival] = echo.arrivals;
    assert.equal(echo.arrivals.length, 1);
    const sent = arrival.headers.authorization?.replace(/^Bearer /, "") ?? "";
    assert.notEqual(sent, token);
    assert.ok(!Object.values(arrival.headers).some((value) => value.includes(token)));
    const claims = jose.decodeJwt(sent);
    assert.deepEqual([claims.sub, claims.aud, claims.scope], ["alice", audience, "pets:read"]);
  } finally {
    await server.stop();
    await echo.close();
    await as.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openapi tools: of an operation's alternative security requirements, only the first the operator has credentials for is sent; one requirement's schemes all are", async () => {
  const echo = serveEcho();
  const secrets = { PETS_HEADER_KEY: crypto.randomUUID(), PETS_BEARER: crypto.randomUUID() };
  const dir = await servedFolder(
    echo,
    { credentials: { keyHeader: "${PETS_HEADER_KEY}", bearer: "${PETS_BEARER}" } },
    {
      // OpenAPI: any one requirement of the list authorizes the request.
      "/either": echoPath("either", undefined, {
        security: [{ keyQuery: [] }, { bearer: [] }, { keyHeader: [] }],
      }),
      // One requirement: every scheme it names, together.
      "/both": echoPath("both", undefined, { security: [{ keyHeader: [], bearer: [] }] }),
    },
  );
  try {
    await overStdio(dir, secrets, async (client) => {
      let before = echo.arrivals.length;
      assert.notEqual((await call(client, "either", {})).isError, true);
      const either = onlyArrival(echo, before, "either").headers;
      assert.deepEqual([either.authorization, either["x-api-key"]], [
        `Bearer ${secrets.PETS_BEARER}`,
        undefined,
      ]);
      before = echo.arrivals.length;
      assert.notEqual((await call(client, "both", {})).isError, true);
      const both = onlyArrival(echo, before, "both").headers;
      assert.deepEqual([both.authorization, both["x-api-key"]], [
        `Bearer ${secrets.PETS_BEARER}`,
        secrets.PETS_HEADER_KEY,
      ]);
    });
  } finally {
    await echo.close();
    await Deno.remove(dir, { recursive: true });
  }
});
