// The OAuth flags on the command line (issue 24): what they configure, and the one line each
// mistake gets before anything listens.
import assert from "node:assert/strict";
import { parseCommand, usage } from "../lib/host/cli.ts";

const ISSUER = "https://auth.example.com/realms/main";
const env = (values: Record<string, string>) => (name: string) => values[name];

Deno.test("parseCommand() takes --auth-issuer with --public-url, --auth-scope and --auth-lists", () => {
  assert.deepStrictEqual(
    parseCommand([
      "--http",
      "0.0.0.0:8080",
      "--auth-issuer",
      ISSUER,
      "--public-url",
      "https://mcp.example.com/mcp",
      "--auth-scope",
      "mcp:use",
      "--auth-scope",
      "mcp:use",
      "--auth-lists",
      "permitted",
    ]),
    {
      kind: "serve",
      options: {
        http: { hostname: "0.0.0.0", port: 8080 },
        publicUrl: "https://mcp.example.com/mcp",
        oauth: {
          issuer: ISSUER,
          publicUrl: "https://mcp.example.com/mcp",
          scopes: ["mcp:use"],
          lists: "permitted",
        },
      },
    },
  );
  // Loopback and http: development against a local authorization server.
  assert.deepStrictEqual(parseCommand(["--http", ":0", "--auth-issuer", "http://127.0.0.1:9000"]), {
    kind: "serve",
    options: {
      http: { hostname: "127.0.0.1", port: 0 },
      oauth: { issuer: "http://127.0.0.1:9000" },
    },
  });
});

Deno.test("parseCommand() takes the introspection client from the environment, both or neither", () => {
  const both = parseCommand(
    ["--http", ":0", "--auth-issuer", ISSUER],
    env({
      TOOLSHED_INTROSPECTION_CLIENT_ID: "toolshed",
      TOOLSHED_INTROSPECTION_CLIENT_SECRET: "s3cret",
    }),
  );
  assert.deepStrictEqual(
    (both as { options: { oauth: unknown } }).options.oauth,
    { issuer: ISSUER, introspection: { clientId: "toolshed", clientSecret: "s3cret" } },
  );
  assert.deepStrictEqual(
    parseCommand(
      ["--http", ":0", "--auth-issuer", ISSUER],
      env({ TOOLSHED_INTROSPECTION_CLIENT_ID: "toolshed" }),
    ),
    {
      kind: "usage-error",
      message: "TOOLSHED_INTROSPECTION_CLIENT_ID and TOOLSHED_INTROSPECTION_CLIENT_SECRET go " +
        "together: set both (to introspect opaque tokens) or neither",
    },
  );
});

Deno.test("parseCommand() takes --public-url without --auth-issuer, for the server card", () => {
  const parsed = parseCommand(
    ["--http", ":0", "--public-url", "https://mcp.example.com/mcp"],
    env({}),
  );
  assert.strictEqual(parsed.kind, "serve");
  const { options } = parsed as { options: { publicUrl?: string; oauth?: unknown } };
  assert.strictEqual(options.publicUrl, "https://mcp.example.com/mcp");
  assert.strictEqual(options.oauth, undefined);
});

Deno.test("parseCommand() refuses OAuth flags that cannot work, one line each", () => {
  const cases: [string[], RegExp][] = [
    [["--auth-issuer", ISSUER], /^--auth-issuer needs --http: over stdio/],
    [["--public-url", "https://x.example"], /^--public-url needs --http$/],
    [["--http", ":0", "--public-url", "ftp://x.example"], /^Invalid value for --public-url/],
    [["--http", ":0", "--auth-scope", "a"], /^--auth-scope needs --auth-issuer$/],
    [["--http", ":0", "--auth-lists", "all"], /^--auth-lists needs --auth-issuer$/],
    [["--http", ":0", "--auth-issuer", "auth.example.com"], /is not an http\(s\) URL$/],
    [["--http", ":0", "--auth-issuer", "http://auth.example.com"], /must be https/],
    [["--http", ":0", "--auth-issuer", "https://u:p@auth.example.com"], /has credentials/],
    [["--http", ":0", "--auth-issuer", `${ISSUER}#x`], /has a query or a fragment/],
    [
      ["--http", ":0", "--auth-issuer", ISSUER, "--public-url", "https://mcp.example.com/?a=1"],
      /^Invalid value for --public-url: .* has a query or a fragment$/,
    ],
    [
      ["--http", "0.0.0.0:80", "--auth-issuer", ISSUER],
      /wildcard address "0.0.0.0" needs --public-url/,
    ],
    [["--http", ":0", "--auth-issuer", ISSUER, "--auth-scope", "two words"], /not an OAuth scope/],
    [
      ["--http", ":0", "--auth-issuer", ISSUER, "--auth-scope", "offline_access"],
      /not an OAuth scope/,
    ],
    [
      ["--http", ":0", "--auth-issuer", ISSUER, "--auth-lists", "some"],
      /"some" is not "all" or "permitted"/,
    ],
  ];
  for (const [args, message] of cases) {
    const command = parseCommand(args);
    assert.strictEqual(command.kind, "usage-error", args.join(" "));
    assert.match((command as { message: string }).message, message, args.join(" "));
  }
});

Deno.test("parseCommand(): OAuth or a shared token, not both; OAuth is enough beyond loopback and for CORS *", () => {
  const token = env({ TOOLSHED_HTTP_TOKEN: "t0ken" });
  const both = parseCommand(["--http", ":0", "--auth-issuer", ISSUER], token);
  assert.deepStrictEqual(both, {
    kind: "refused",
    message: "Refusing --auth-issuer with TOOLSHED_HTTP_TOKEN set: callers are known by OAuth " +
      "or by one shared token, not both; unset one",
  });
  for (
    const args of [
      ["--http", "192.168.1.10:80", "--auth-issuer", ISSUER],
      ["--http", ":0", "--auth-issuer", ISSUER, "--cors-origin", "*"],
    ]
  ) {
    assert.strictEqual(parseCommand(args).kind, "serve", args.join(" "));
  }
});

Deno.test("USAGE lists the OAuth flags and the introspection variables", () => {
  const text = usage("");
  for (
    const flag of [
      "--auth-issuer URL",
      "--public-url URL",
      "--auth-scope SCOPE",
      "--auth-lists all|permitted",
      "TOOLSHED_INTROSPECTION_CLIENT_ID",
    ]
  ) {
    assert.ok(text.includes(flag), flag);
  }
});
