// A model on loopback that speaks Anthropic's Messages API (POST /v1/messages, streamed as
// server-sent events or not, and /v1/messages/count_tokens), for hosts pointed at it with
// ANTHROPIC_BASE_URL: each request is answered with the blocks a script of the test's gives
// for it, so a host runs a conversation the test wrote, through its own tool loop.

/** A block of an assistant's answer: text, or a call of one of the request's tools. */
export type AnswerBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

/** A block of a message the host sent: its text, its tool calls, the results it sends back. */
export type SentBlock = Record<string, unknown> & { type: string };

/** What the host sent to /v1/messages, as far as a script reads it. */
export interface MessagesRequest {
  model: string;
  system?: unknown;
  messages: { role: string; content: string | SentBlock[] }[];
  tools?: { name: string; description?: string; defer_loading?: boolean }[];
  stream?: boolean;
}

/** A stub model serving on 127.0.0.1: its base URL, the paths it was asked for, and close. */
export interface AnthropicStub {
  readonly baseUrl: string;
  readonly paths: string[];
  close(): Promise<void>;
}

/** Serves `answer` as a model on 127.0.0.1 at a free port. */
export function serveAnthropicStub(
  answer: (request: MessagesRequest) => AnswerBlock[],
): AnthropicStub {
  const paths: string[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      const { pathname } = new URL(request.url);
      paths.push(`${request.method} ${pathname}`);
      if (request.method !== "POST") return notFound(pathname);
      const body = await request.json() as MessagesRequest;
      if (pathname === "/v1/messages/count_tokens") {
        return Response.json({ input_tokens: JSON.stringify(body).length >> 2 });
      }
      if (pathname !== "/v1/messages") return notFound(pathname);
      const message = messageOf(body.model, answer(body));
      return body.stream === true
        ? new Response(eventsOf(message), { headers: { "content-type": "text/event-stream" } })
        : Response.json(message);
    },
  );
  return {
    baseUrl: `http://127.0.0.1:${server.addr.port}`,
    paths,
    close: () => server.shutdown(),
  };
}

function notFound(pathname: string): Response {
  return Response.json(
    { type: "error", error: { type: "not_found_error", message: `No route "${pathname}"` } },
    { status: 404 },
  );
}

let messages = 0;

/** A whole assistant message holding `content`. */
function messageOf(model: string, content: AnswerBlock[]) {
  return {
    id: `msg_stub_${++messages}`,
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: content.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  };
}

/** `message` as the stream of events a streamed request gets. */
function eventsOf(message: ReturnType<typeof messageOf>): string {
  const event = (data: Record<string, unknown> & { type: string }) =>
    `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
  const { content, stop_reason, ...rest } = message;
  const blocks = content.flatMap((block, index) => [
    event({
      type: "content_block_start",
      index,
      content_block: block.type === "text"
        ? { type: "text", text: "" }
        : { type: "tool_use", id: block.id, name: block.name, input: {} },
    }),
    event({
      type: "content_block_delta",
      index,
      delta: block.type === "text"
        ? { type: "text_delta", text: block.text }
        : { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
    }),
    event({ type: "content_block_stop", index }),
  ]);
  return [
    event({ type: "message_start", message: { ...rest, content: [], stop_reason: null } }),
    ...blocks,
    event({
      type: "message_delta",
      delta: { stop_reason, stop_sequence: null },
      usage: { output_tokens: 1 },
    }),
    event({ type: "message_stop" }),
  ].join("");
}
