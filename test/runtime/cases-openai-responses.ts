/** Shared runtime cases for the OpenAI Responses adapter: they run in Node, workerd, Deno and Bun (see ./cases.ts). */
import { collectStream, type MessageInput, ProviderError, type StreamEvent } from "../../src/index.ts";
import { openaiResponses } from "../../src/providers/openai-responses.ts";
import { equal, ok, rejects } from "./assert.ts";
import type { RuntimeCase } from "./case.ts";

type Json = Record<string, unknown>;

const encoder = new TextEncoder();

function sseBytes(events: readonly (Json | string)[]): Uint8Array {
  return encoder.encode(
    events
      .map((event) =>
        typeof event === "string"
          ? `data: ${event}\n\n`
          : `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`,
      )
      .join(""),
  );
}

/** A body delivering `bytes` a few bytes per read, one macrotask apart: events and characters split everywhere. */
function slowBody(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}

/** An in-process Responses server: a fetch handler that reads a real `Request` and answers from a script. */
function fakeServer(answer: (body: Json, count: number) => Response) {
  const requests: { url: string; authorization: string | null; body: Json }[] = [];
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    if (new URL(request.url).pathname !== "/v1/responses") return new Response("", { status: 404 });
    const body = (await request.json()) as Json;
    requests.push({ url: request.url, authorization: request.headers.get("authorization"), body });
    return answer(body, requests.length);
  }) as typeof fetch;
  return { fetch: fetchImpl, requests };
}

const reasoningItem = (id: string, text: string): Json => ({
  id,
  type: "reasoning",
  encrypted_content: `gAAAAfinal-${id}`,
  summary: [{ type: "summary_text", text }],
});
const callItem = (callId: string, city: string): Json => ({
  id: `fc_${callId}`,
  type: "function_call",
  status: "completed",
  arguments: `{"city":"${city}"}`,
  call_id: callId,
  name: "weather",
});

/** The events OpenAI streams for `items`: `encrypted_content` on `output_item.added` is not the final one. */
function streamEvents(id: string, items: Json[]): Json[] {
  const events: Json[] = [
    { type: "response.created", response: { id, model: "gpt-5", status: "in_progress" } },
  ];
  items.forEach((item, index) => {
    if (item.type === "reasoning") {
      events.push({
        type: "response.output_item.added",
        output_index: index,
        item: { ...item, encrypted_content: "gAAAAearly", summary: [] },
      });
      const text = ((item.summary as Json[])[0] as Json).text as string;
      for (const piece of [text.slice(0, 4), text.slice(4)])
        events.push({
          type: "response.reasoning_summary_text.delta",
          output_index: index,
          summary_index: 0,
          delta: piece,
        });
    } else {
      events.push({
        type: "response.output_item.added",
        output_index: index,
        item: { ...item, arguments: "" },
      });
      const args = item.arguments as string;
      for (const piece of [args.slice(0, 5), args.slice(5)])
        events.push({ type: "response.function_call_arguments.delta", output_index: index, delta: piece });
    }
    events.push({ type: "response.output_item.done", output_index: index, item });
  });
  events.push({
    type: "response.completed",
    response: {
      id,
      model: "gpt-5",
      status: "completed",
      output: items,
      usage: {
        input_tokens: 40,
        input_tokens_details: { cached_tokens: 32 },
        output_tokens: 70,
        output_tokens_details: { reasoning_tokens: 0 },
      },
    },
  });
  return events;
}

const TOOLS = [{ name: "weather", parameters: { type: "object", properties: { city: { type: "string" } } } }];

export const responsesCases: RuntimeCase[] = [
  {
    name: "openaiResponses() streams reasoning + a function call from an in-process server, final encrypted_content kept",
    async run() {
      const items = [reasoningItem("rs_1", "Wetter in Zürich? ☀️"), callItem("call_1", "Zürich")];
      const server = fakeServer(
        () =>
          new Response(slowBody(sseBytes(streamEvents("resp_1", items)), 5), {
            headers: { "content-type": "text/event-stream" },
          }),
      );
      const provider = openaiResponses({
        apiKey: "runtime-test-key-1234",
        model: "gpt-5",
        fetch: server.fetch,
      });
      const seen: StreamEvent[] = [];
      const response = await collectStream(
        provider.stream([{ role: "user", content: "Weather in Zürich?" }], TOOLS, {
          thinking: { effort: "low" },
        }),
        { onEvent: (event) => seen.push(event) },
      );
      equal(server.requests.length, 1);
      equal(server.requests[0]!.url, "https://api.openai.com/v1/responses");
      equal(server.requests[0]!.authorization, "Bearer runtime-test-key-1234");
      equal(server.requests[0]!.body.store, false);
      equal(server.requests[0]!.body.include, ["reasoning.encrypted_content"]);
      equal(server.requests[0]!.body.reasoning, { effort: "low", summary: "auto" });
      equal(
        seen.flatMap((e) => (e.type === "reasoning-delta" ? [e.text] : [])).join(""),
        "Wetter in Zürich? ☀️",
      );
      equal(
        seen.flatMap((e) => (e.type === "tool-call-delta" ? [e.argumentsDelta] : [])).join(""),
        '{"city":"Zürich"}',
      );
      equal(
        seen.find((e) => e.type === "tool-call-start"),
        {
          type: "tool-call-start",
          index: 0,
          id: "call_1",
          name: "weather",
        },
      );
      equal(response.message.toolCalls, [
        { id: "call_1", name: "weather", arguments: { city: "Zürich" }, argumentsText: '{"city":"Zürich"}' },
      ]);
      equal(response.stopReason, "tool-calls");
      equal(response.reasoning, "Wetter in Zürich? ☀️");
      equal(response.usage, { inputTokens: 8, outputTokens: 70, cachedInputTokens: 32, reasoningTokens: 0 });
      equal(response.message.native, {
        protocol: "openai-responses",
        origin: "openai",
        model: "gpt-5",
        blocks: items,
      });
      ok(
        !JSON.stringify(response).includes("gAAAAearly"),
        "output_item.added's encrypted_content must not be kept",
      );
    },
  },
  {
    name: "openaiResponses() replays reasoning → call_a → reasoning → call_b in emission order, and no foreign reasoning",
    async run() {
      const items = [
        reasoningItem("rs_1", "first"),
        callItem("call_a", "Oslo"),
        reasoningItem("rs_2", "second"),
        callItem("call_b", "Rome"),
      ];
      const server = fakeServer((body, count) =>
        body.stream
          ? new Response(slowBody(sseBytes([...streamEvents(`resp_${count}`, items), "[DONE]"]), 64), {
              headers: { "content-type": "text/event-stream" },
            })
          : Response.json({ id: `resp_${count}`, model: "gpt-5", status: "completed", output: [] }),
      );
      const provider = openaiResponses({
        apiKey: "runtime-test-key-1234",
        model: "gpt-5",
        fetch: server.fetch,
      });
      const history: MessageInput[] = [{ role: "user", content: "Oslo and Rome?" }];
      const first = await collectStream(provider.stream(history, TOOLS));
      history.push(first.message, {
        role: "tool",
        toolResults: [
          { callId: "call_a", content: "rain" },
          { callId: "call_b", content: "sun" },
        ],
      });
      await provider.complete(history, TOOLS);
      const input = server.requests[1]!.body.input as Json[];
      equal(
        input.map((item) => item.id ?? item.call_id ?? item.role),
        ["user", "rs_1", "fc_call_a", "rs_2", "fc_call_b", "call_a", "call_b"],
      );
      equal(input.slice(1, 5), items);

      // The same turn sent to another model: rebuilt from its calls, its reasoning left out.
      const other = openaiResponses({ apiKey: "runtime-test-key-1234", model: "o3", fetch: server.fetch });
      const response = await other.complete(history, TOOLS);
      const rebuilt = server.requests[2]!.body.input as Json[];
      equal(
        rebuilt.map((item) => item.type ?? item.role),
        ["user", "function_call", "function_call", "function_call_output", "function_call_output"],
      );
      ok(!JSON.stringify(rebuilt).includes("encrypted_content"), "reasoning sent to another model");
      ok(response.warnings?.some((warning) => warning.includes("2 reasoning block(s) dropped")));
    },
  },
  {
    name: "openaiResponses() a 200 stream whose first event is an error fails before any output, key redacted",
    async run() {
      const key = "runtime-secret-key-98765";
      const server = fakeServer(
        () =>
          new Response(
            slowBody(
              sseBytes([
                {
                  type: "error",
                  error: {
                    type: "insufficient_quota",
                    code: "insufficient_quota",
                    message: `quota for ${key}`,
                  },
                },
              ]),
              7,
            ),
            { headers: { "content-type": "text/event-stream" } },
          ),
      );
      const provider = openaiResponses({ apiKey: key, model: "gpt-5", fetch: server.fetch });
      const seen: StreamEvent[] = [];
      const error = (await rejects(async () => {
        for await (const event of provider.stream([{ role: "user", content: "hi" }])) seen.push(event);
      }, ProviderError)) as ProviderError;
      equal(seen, []);
      equal(error.kind, "rate_limit");
      equal(error.retryable, false);
      equal(error.partialOutput, false);
      ok(!JSON.stringify(error.toJSON()).includes(key), "the key leaked into the error");
    },
  },
];
