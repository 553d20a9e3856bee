// A model on loopback that speaks the Gemini API (POST /v1beta/models/MODEL:generateContent,
// :streamGenerateContent?alt=sse, :countTokens), for hosts pointed at it with
// GOOGLE_GEMINI_BASE_URL: each request for text or calls is answered with the parts a script of
// the test's gives for it. A request for JSON (responseJsonSchema: the host's own helpers, such
// as Gemini CLI's model router) gets the plainest value its schema allows, and is counted.

/** A part of the model's answer: text, or a call of one of the request's functions. */
export type AnswerPart =
  | { text: string }
  | { functionCall: { name: string; args: Record<string, unknown> } };

/** A part of a turn the host sent: text, the model's calls, the results it sends back. */
export type SentPart = {
  text?: string;
  functionCall?: { name: string; args?: Record<string, unknown>; id?: string };
  functionResponse?: { name: string; id?: string; response?: Record<string, unknown> };
};

/** What the host sent, as far as a script reads it. */
export interface GenerateRequest {
  contents: { role: string; parts: SentPart[] }[];
  tools?: {
    functionDeclarations?: {
      name: string;
      parametersJsonSchema?: { properties?: Record<string, unknown> };
    }[];
  }[];
  generationConfig?: { responseJsonSchema?: unknown };
}

/** A stub model serving on 127.0.0.1: its base URL, what it was asked, and close. */
export interface GeminiStub {
  readonly baseUrl: string;
  readonly paths: string[];
  readonly jsonRequests: () => number;
  close(): Promise<void>;
}

/** Serves `answer` as a model on 127.0.0.1 at a free port. */
export function serveGeminiStub(answer: (request: GenerateRequest) => AnswerPart[]): GeminiStub {
  const paths: string[] = [];
  let jsonRequests = 0;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      const { pathname } = new URL(request.url);
      paths.push(`${request.method} ${pathname}`);
      const method = pathname.match(/^\/v1beta\/models\/[^/:]+:([A-Za-z]+)$/)?.[1];
      if (request.method !== "POST" || method === undefined) return notFound(pathname);
      const body = await request.json() as GenerateRequest;
      if (method === "countTokens") {
        return Response.json({ totalTokens: JSON.stringify(body).length >> 2 });
      }
      if (method !== "generateContent" && method !== "streamGenerateContent") {
        return notFound(pathname);
      }
      const schema = body.generationConfig?.responseJsonSchema;
      if (schema !== undefined) jsonRequests++;
      const parts = schema === undefined
        ? answer(body)
        : [{ text: JSON.stringify(plainestOf(schema)) }];
      const response = {
        candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
        usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
      };
      return method === "generateContent"
        ? Response.json(response)
        : new Response(`data: ${JSON.stringify(response)}\r\n\r\n`, {
          headers: { "content-type": "text/event-stream" },
        });
    },
  );
  return {
    baseUrl: `http://127.0.0.1:${server.addr.port}`,
    paths,
    jsonRequests: () => jsonRequests,
    close: () => server.shutdown(),
  };
}

function notFound(pathname: string): Response {
  return Response.json(
    { error: { code: 404, message: `No route "${pathname}"`, status: "NOT_FOUND" } },
    { status: 404 },
  );
}

/** The plainest value `schema` allows: its first enum value, 1, false, "", [], or an object. */
function plainestOf(schema: unknown): unknown {
  const { type, enum: choices, properties } = (schema ?? {}) as {
    type?: string;
    enum?: unknown[];
    properties?: Record<string, unknown>;
  };
  if (Array.isArray(choices) && choices.length > 0) return choices[0];
  switch (String(type).toUpperCase()) {
    case "OBJECT":
      return Object.fromEntries(
        Object.entries(properties ?? {}).map(([key, value]) => [key, plainestOf(value)]),
      );
    case "INTEGER":
    case "NUMBER":
      return 1;
    case "BOOLEAN":
      return false;
    case "ARRAY":
      return [];
    default:
      return "";
  }
}
