// An API in tools/ behind toolshed's OAuth (adr/0072 decisions 4 and 6): with
// `"scopesFromSecurity": true` in the sidecar, an operation whose `security` asks for an OAuth
// scope is a tool with that scope, so toolshed (`main.ts --http --auth-issuer`, against a real
// oidc-provider on loopback, tests/_oidc.ts) answers a caller whose token lacks it with its 403
// step-up before any request leaves for the API; with the scope, the call arrives, and the
// caller's own token never does.
import assert from "node:assert/strict";
import { type AuthServer, startAuthServer } from "./_oidc.ts";
import { serveEcho } from "./_openapi_echo.ts";
import { callWith, echoPetstore, toolsFolder } from "./_openapi_served.ts";
import { spawnHttpServer } from "./_server_process.ts";

Deno.test("openapi tools: an operation's security scope (scopesFromSecurity) is toolshed's 403 step-up naming it, before the API hears anything; with the scope the call arrives without the caller's token", async () => {
  const as: AuthServer = await startAuthServer({ scopes: "mcp pets:write" });
  const echo = serveEcho();
  const dir = await toolsFolder({
    "pets.openapi.json": echoPetstore(),
    "pets.api.json": {
      baseUrl: `${echo.origin}/v1`,
      operations: ["listPets", "createPet"],
      scopesFromSecurity: true,
    },
  });
  const server = await spawnHttpServer([
    "--dir",
    dir,
    "--auth-issuer",
    as.issuer,
    "--auth-scope",
    "mcp",
  ]);
  try {
    const metadata = `${new URL(server.url).origin}/.well-known/oauth-protected-resource/mcp`;
    const plain = await as.token({ scope: "mcp", resource: server.url });
    // An operation without security needs no more than the server's own scope.
    const listed = await callWith(server.url, plain, "listPets", {});
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.notEqual(listed.body.result?.isError, true, JSON.stringify(listed.body));
    assert.equal(echo.arrivals.length, 1);

    const refused = await callWith(server.url, plain, "createPet", { name: "Rex" });
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal(
      refused.challenge,
      `Bearer error="insufficient_scope", resource_metadata="${metadata}", scope="mcp pets:write"`,
    );
    assert.deepEqual(refused.body.error?.data, { requiredScopes: ["pets:write"] });
    assert.equal(echo.arrivals.length, 1, "the API heard a call toolshed refused");

    const stepped = await as.token({ scope: "mcp pets:write", resource: server.url });
    const created = await callWith(server.url, stepped, "createPet", { name: "Rex" });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.notEqual(created.body.result?.isError, true, JSON.stringify(created.body));
    assert.equal(echo.arrivals.length, 2);
    const arrival = echo.arrivals[1];
    assert.equal(arrival.method, "POST");
    assert.equal(arrival.path, "/v1/pets");
    // The sidecar gives no credential: nothing authorizes the request, least of all the caller.
    assert.equal(arrival.headers.authorization, undefined);
    for (const arrived of echo.arrivals) {
      for (const [header, value] of Object.entries(arrived.headers)) {
        assert.ok(
          !value.includes(plain) && !value.includes(stepped),
          `the caller's token in ${header}`,
        );
      }
    }
  } finally {
    await server.stop();
    await echo.close();
    await as.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
