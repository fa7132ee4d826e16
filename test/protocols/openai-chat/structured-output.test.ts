/**
 * `responseFormat` → Chat Completions: native `response_format` (json_schema, json_object) where the
 * endpoint and model take it, the forced output tool where they do not, a refusal naming `responseFormat`
 * where neither works; and refusals in the answer (`refusal`, `delta.refusal`) → `response.refusal` with
 * `stopReason: "content-filter"`, the stream's `done` equal to `complete()`.
 */
import { describe, expect, it } from "vitest";
import type { PreparedResponseFormat } from "../../../src/core/structured-output.ts";
import {
  type CallOptions,
  collectStream,
  type OpenAIChatEndpoint,
  openaiChat,
  type StreamEvent,
  ValidationError,
} from "../../../src/index.ts";
import {
  buildOpenAIChatRequest,
  type OpenAIChatEndpointProfile,
} from "../../../src/protocols/openai-chat/index.ts";
import { openAIChatEndpointProfile } from "../../../src/providers/openai-chat.ts";

const SCHEMA = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
  additionalProperties: false,
};
const FORMAT: PreparedResponseFormat = {
  type: "json_schema",
  name: "result",
  schema: SCHEMA,
  strict: true,
  description: "The city",
};
const HISTORY = [{ role: "user" as const, content: "Largest city? Answer in JSON." }];
const WEATHER = { name: "weather", parameters: { type: "object", properties: {} } };

function build(
  format: PreparedResponseFormat | undefined,
  options: {
    model?: string;
    profile?: OpenAIChatEndpointProfile;
    tools?: (typeof WEATHER)[];
    call?: CallOptions;
  } = {},
) {
  return buildOpenAIChatRequest({
    messages: HISTORY,
    tools: options.tools ?? [],
    options: options.call ?? {},
    model: options.model ?? "gpt-4.1",
    profile: options.profile ?? openAIChatEndpointProfile("openai"),
    stream: false,
    format,
  });
}

const DEEPSEEK = openAIChatEndpointProfile({ kind: "deepseek", responseFormat: "json_object" });

describe("response_format", () => {
  it("json_schema → { type: json_schema, json_schema: { name, schema, strict, description } }", () => {
    const built = build(FORMAT);
    expect(built.body.response_format).toStrictEqual({
      type: "json_schema",
      json_schema: { name: "result", schema: SCHEMA, strict: true, description: "The city" },
    });
    expect(built.outputTool).toBeUndefined();
    expect(built.body.tools).toBeUndefined();
    expect(built.warnings).toStrictEqual([]);
  });

  it("json → { type: json_object }; no format, no response_format", () => {
    expect(build({ type: "json" }).body.response_format).toStrictEqual({ type: "json_object" });
    expect(build(undefined).body.response_format).toBeUndefined();
  });

  it("vLLM and Ollama take both natively", () => {
    for (const kind of ["vllm", "ollama"] as const) {
      const profile = openAIChatEndpointProfile(kind);
      expect(build(FORMAT, { profile, model: "qwen" }).body.response_format?.type).toBe("json_schema");
      expect(build({ type: "json" }, { profile, model: "qwen" }).body.response_format?.type).toBe(
        "json_object",
      );
    }
  });

  it("a JSON-mode-only endpoint: json stays native, a schema goes as the forced output tool", () => {
    expect(
      build({ type: "json" }, { profile: DEEPSEEK, model: "deepseek-chat" }).body.response_format,
    ).toStrictEqual({ type: "json_object" });
    const built = build(FORMAT, { profile: DEEPSEEK, model: "deepseek-chat" });
    expect(built.body.response_format).toBeUndefined();
    expect(built.outputTool).toBe("result");
    expect(built.body.tools).toStrictEqual([
      { type: "function", function: { name: "result", description: "The city", parameters: SCHEMA } },
    ]);
    expect(built.body.tool_choice).toStrictEqual({ type: "function", function: { name: "result" } });
    expect(built.warnings).toStrictEqual([
      "responseFormat sent as the forced output tool result: the deepseek endpoint takes JSON mode only, no json_schema",
    ]);
  });

  it("with the call's own tools the choice is any tool (required); a named tool is called first; none allows only the output tool", () => {
    const built = build(FORMAT, { profile: DEEPSEEK, tools: [WEATHER] });
    expect(built.body.tools?.map((tool) => tool.function.name)).toStrictEqual(["weather", "result"]);
    expect(built.body.tool_choice).toBe("required");
    const named = build(FORMAT, {
      profile: DEEPSEEK,
      tools: [WEATHER],
      call: { toolChoice: { name: "weather" } },
    });
    expect(named.body.tool_choice).toStrictEqual({ type: "function", function: { name: "weather" } });
    // "none" forbids the caller's tools: only the output tool may be called, never "required".
    const none = build(FORMAT, { profile: DEEPSEEK, tools: [WEATHER], call: { toolChoice: "none" } });
    expect(none.body.tool_choice).toStrictEqual({ type: "function", function: { name: "result" } });
  });

  it("hosted models older than Structured Outputs take JSON mode only", () => {
    for (const model of ["gpt-4-turbo", "gpt-4-0613", "gpt-3.5-turbo", "gpt-4o-2024-05-13"]) {
      const built = build(FORMAT, { model });
      expect(built.outputTool, model).toBe("result");
      expect(built.warnings[0]).toBe(
        `responseFormat sent as the forced output tool result: ${model} takes JSON mode only, no json_schema`,
      );
      expect(build({ type: "json" }, { model }).body.response_format).toStrictEqual({ type: "json_object" });
    }
    for (const model of ["gpt-4o", "gpt-4o-2024-08-06", "gpt-4.1-mini", "gpt-5", "o3"])
      expect(build(FORMAT, { model }).body.response_format?.type, model).toBe("json_schema");
  });

  it("an endpoint with no response_format: json too goes as the output tool, of any object", () => {
    const profile = openAIChatEndpointProfile({ kind: "plain", responseFormat: "none" });
    const built = build({ type: "json" }, { profile });
    expect(built.outputTool).toBe("output");
    expect(built.body.tools?.[0]?.function.parameters).toStrictEqual({ type: "object" });
    expect(built.warnings).toStrictEqual([
      "responseFormat sent as the forced output tool output: the plain endpoint takes no response_format",
    ]);
  });

  it("refused, naming responseFormat, where no tool can be forced (tool calls read from text)", () => {
    const profile = openAIChatEndpointProfile({
      kind: "vllm",
      responseFormat: "none",
      textToolCalls: "hermes",
    });
    const built = build(FORMAT, { profile });
    expect(built.refused).toHaveLength(1);
    expect(built.refused?.[0]?.path).toBe("responseFormat");
    expect(built.refused?.[0]?.message).toMatch(/takes no response_format.*no output tool can be forced/);
    expect(built.outputTool).toBeUndefined();
  });

  it("an output tool named like one of the call's tools is refused, naming responseFormat.name", () => {
    const built = build({ ...FORMAT, name: "weather" }, { profile: DEEPSEEK, tools: [WEATHER] });
    expect(built.refused?.map((issue) => issue.path)).toStrictEqual(["responseFormat.name"]);
  });
});

// ---------------------------------------------------------------------------------------------------

function sse(chunks: object[]): string {
  return `${chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join("")}data: [DONE]\n\n`;
}

/** A provider answering every request with `json` (or `chunks` as SSE when streaming); bodies kept. */
function provider(answer: { json: object; chunks: object[] }, endpoint: OpenAIChatEndpoint = "openai") {
  const bodies: Record<string, unknown>[] = [];
  const chat = openaiChat({
    apiKey: "k",
    model: "gpt-4.1",
    endpoint,
    baseURL: "https://api.example/v1",
    fetch: async (_url, init) => {
      const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
      bodies.push(body);
      return body.stream
        ? new Response(sse(answer.chunks), { headers: { "content-type": "text/event-stream" } })
        : new Response(JSON.stringify(answer.json), { headers: { "content-type": "application/json" } });
    },
  });
  return { chat, bodies };
}

async function both(chat: ReturnType<typeof openaiChat>, options: CallOptions) {
  const complete = await chat.complete(HISTORY, [], options);
  const events: StreamEvent[] = [];
  for await (const event of chat.stream(HISTORY, [], options)) events.push(event);
  const done = events.at(-1);
  if (done?.type !== "done") throw new Error("no done event");
  return { complete, streamed: done.response, events };
}

const JSON_FORMAT: CallOptions["responseFormat"] = { type: "json_schema", name: "result", schema: SCHEMA };

describe("structured output end to end", () => {
  it("native: the object parsed on complete and on done, the text streamed as it comes", async () => {
    const text = '{"city":"Mexico City"}';
    const { chat, bodies } = provider({
      json: { id: "c", choices: [{ message: { role: "assistant", content: text }, finish_reason: "stop" }] },
      chunks: [
        { id: "c", choices: [{ delta: { role: "assistant", content: '{"city":' } }] },
        { id: "c", choices: [{ delta: { content: '"Mexico City"}' }, finish_reason: "stop" }] },
      ],
    });
    const { complete, streamed, events } = await both(chat, { responseFormat: JSON_FORMAT });
    expect(bodies[0]?.response_format).toStrictEqual({
      type: "json_schema",
      json_schema: { name: "result", schema: SCHEMA, strict: true },
    });
    expect(complete.object).toStrictEqual({ city: "Mexico City" });
    expect(streamed).toStrictEqual(complete);
    // The JSON is streamed as text (pieces of one network read come out together).
    const deltas = events.filter((e) => e.type === "text-delta").map((e) => (e as { text: string }).text);
    expect(deltas.join("")).toBe(text);
  });

  it("forced tool: the output tool's call is the answer, its arguments streamed as text", async () => {
    const args = '{"city":"Lima"}';
    const call = { id: "call_1", type: "function", function: { name: "result", arguments: args } };
    const { chat, bodies } = provider(
      {
        json: {
          id: "c",
          choices: [
            {
              message: { role: "assistant", content: null, tool_calls: [call] },
              finish_reason: "tool_calls",
            },
          ],
        },
        chunks: [
          {
            id: "c",
            choices: [
              {
                delta: {
                  tool_calls: [
                    { index: 0, id: "call_1", type: "function", function: { name: "result", arguments: "" } },
                  ],
                },
              },
            ],
          },
          {
            id: "c",
            choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] } }],
          },
          {
            id: "c",
            choices: [
              {
                delta: { tool_calls: [{ index: 0, function: { arguments: '"Lima"}' } }] },
                finish_reason: "tool_calls",
              },
            ],
          },
        ],
      },
      { kind: "deepseek", responseFormat: "json_object" },
    );
    const { complete, streamed, events } = await both(chat, { responseFormat: JSON_FORMAT });
    expect(bodies[0]?.tool_choice).toStrictEqual({ type: "function", function: { name: "result" } });
    expect(complete.object).toStrictEqual({ city: "Lima" });
    expect(complete.message.content).toBe(args);
    expect(complete.message.toolCalls).toStrictEqual([]);
    expect(complete.stopReason).toBe("stop");
    expect(streamed).toStrictEqual(complete);
    expect(events.some((e) => e.type === "tool-call-start")).toBe(false);
  });

  it("a refused responseFormat is a ValidationError before any request", async () => {
    const { chat, bodies } = provider(
      { json: {}, chunks: [] },
      { kind: "vllm", responseFormat: "none", textToolCalls: "hermes" },
    );
    await expect(chat.complete(HISTORY, [], { responseFormat: JSON_FORMAT })).rejects.toBeInstanceOf(
      ValidationError,
    );
    expect(bodies).toHaveLength(0);
  });
});

describe("refusals", () => {
  const REFUSAL = "I'm sorry, I can't help with that.";

  it("message.refusal and delta.refusal → response.refusal, content-filter; stream equals complete", async () => {
    const { chat } = provider({
      json: {
        id: "r",
        choices: [{ message: { role: "assistant", content: null, refusal: REFUSAL }, finish_reason: "stop" }],
      },
      chunks: [
        { id: "r", choices: [{ delta: { role: "assistant", refusal: "I'm sorry, " } }] },
        { id: "r", choices: [{ delta: { refusal: "I can't help with that." }, finish_reason: "stop" }] },
      ],
    });
    for (const options of [{}, { responseFormat: JSON_FORMAT }] as CallOptions[]) {
      const { complete, streamed } = await both(chat, options);
      expect(complete.refusal).toBe(REFUSAL);
      expect(complete.stopReason).toBe("content-filter");
      expect(complete.rawStopReason).toBe("stop");
      // Not a parse failure under structured output: no object, no error.
      expect(complete.object).toBeUndefined();
      expect(complete.message.native).toMatchObject({ blocks: [{ refusal: REFUSAL }] });
      expect(streamed).toStrictEqual(complete);
    }
  });

  it("no refusal field (or null) sets no refusal", async () => {
    const { chat } = provider({
      json: {
        choices: [{ message: { role: "assistant", content: "{}", refusal: null }, finish_reason: "stop" }],
      },
      chunks: [{ choices: [{ delta: { content: "{}", refusal: null }, finish_reason: "stop" }] }],
    });
    const { complete, streamed } = await both(chat, {});
    expect(complete.refusal).toBeUndefined();
    expect(complete.stopReason).toBe("stop");
    expect(streamed).toStrictEqual(complete);
    expect((await collectStream(chat.stream(HISTORY))).refusal).toBeUndefined();
  });
});
