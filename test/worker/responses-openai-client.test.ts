/**
 * The official `openai` client's `responses.create` and `responses.stream` against the gateway's
 * /v1/responses: passed through to a Responses upstream (its encrypted reasoning items replayed in order on
 * the second call), and converted for a first-party Anthropic upstream (its signed thinking carried in
 * `encrypted_content` and back to Anthropic byte-identical) — plus the refusals and errors the SDK raises.
 */
import OpenAI, { APIError, BadRequestError, NotFoundError, RateLimitError } from "openai";
import { describe, expect, it } from "vitest";
import { unwrapReasoning } from "../../src/worker/reasoning-envelope.ts";
import { ANTHROPIC_BASE, anthropicError, OPENAI_BASE, OPENAI_KEY, TOKEN } from "./helpers.ts";
import {
  anthropicThinkingUpstream,
  responsesGateway,
  responsesUpstream,
  SIGNATURE,
  THINKING,
  THINKING_BLOCK,
  TOOL_USE_ID,
  UPSTREAM_FINAL_TURN,
  UPSTREAM_TOOL_TURN,
  WEATHER_TOOL,
} from "./responses-upstreams.ts";

type Input = OpenAI.Responses.ResponseInputItem;

function client(fetch: typeof globalThis.fetch): OpenAI {
  return new OpenAI({ apiKey: TOKEN, baseURL: "http://gateway.test/v1", fetch, maxRetries: 0 });
}

const QUESTION: Input = { role: "user", content: "What is the weather in Paris?" };

/** The second turn's input: the question, the first output as the SDK returned it, the tool result. */
function secondInput(first: OpenAI.Responses.Response, callId: string): Input[] {
  return [
    QUESTION,
    ...(first.output as Input[]),
    { type: "function_call_output", call_id: callId, output: '{"temp_c":18,"sky":"sunny"}' },
  ];
}

describe("/v1/responses passed through to a Responses upstream", () => {
  it("responses.create: the upstream's answer as it came, its reasoning items replayed in order", async () => {
    const { fetch, calls } = responsesGateway(responsesUpstream);
    const openai = client(fetch);
    const first = await openai.responses.create({
      model: "gpt5",
      input: [QUESTION],
      tools: [WEATHER_TOOL],
      store: false,
      include: ["reasoning.encrypted_content"],
    });
    // The upstream's own answer: its ids, its model, its items.
    expect(first.id).toBe("resp_upstream_68af");
    expect(first.model).toBe("gpt-5-2025-08-07");
    expect(first.output).toEqual(UPSTREAM_TOOL_TURN);
    expect(calls[0]!.url).toBe(`${OPENAI_BASE}/responses`);
    expect(calls[0]!.headers.get("authorization")).toBe(`Bearer ${OPENAI_KEY}`);
    expect(calls[0]!.body).toMatchObject({ model: "gpt-5", stream: false, store: false });

    const input = secondInput(first, "call_Wq3AxDf9");
    const second = await openai.responses.create({
      model: "gpt5",
      input,
      tools: [WEATHER_TOOL],
      store: false,
      include: ["reasoning.encrypted_content"],
    });
    expect(second.output_text).toBe("It is 18 °C and sunny in Paris.");
    // The second request's input is the client's, byte for byte: the reasoning item before its call.
    expect(JSON.stringify(calls[1]!.body.input)).toBe(JSON.stringify(input));
    const sent = calls[1]!.body.input as Record<string, unknown>[];
    expect(sent.map((item) => item.type ?? item.role)).toEqual([
      "user",
      "reasoning",
      "function_call",
      "function_call_output",
    ]);
    expect(sent[1]!.encrypted_content).toBe("gAAAAABo-ENCRYPTED-FIRST-reasoning==");
  });

  it("responses.stream: every upstream event on, in order; finalResponse replays the same way", async () => {
    const { fetch, calls, call } = responsesGateway(responsesUpstream);
    const openai = client(fetch);
    const stream = openai.responses.stream({
      model: "gpt5",
      input: [QUESTION],
      tools: [WEATHER_TOOL],
      store: false,
      include: ["reasoning.encrypted_content"],
    });
    const types: string[] = [];
    stream.on("event", (event) => types.push(event.type));
    const first = await stream.finalResponse();
    // (The SDK adds `parsed_arguments` to a function call it streamed.)
    expect(first.output).toMatchObject(UPSTREAM_TOOL_TURN);
    expect(types[0]).toBe("response.created");
    expect(types.at(-1)).toBe("response.completed");
    expect(calls[0]!.body.stream).toBe(true);

    const input = secondInput(first, "call_Wq3AxDf9");
    const second = await openai.responses
      .stream({ model: "gpt5", input, tools: [WEATHER_TOOL], store: false })
      .finalResponse();
    expect(second.output).toMatchObject(UPSTREAM_FINAL_TURN);
    expect(JSON.stringify(calls[1]!.body.input)).toBe(JSON.stringify(input));

    // The frames are the upstream's: `event:` its type, `data:` its JSON text.
    const raw = await call("/v1/responses", { json: { model: "gpt5", input: "hi", stream: true } });
    const text = await raw.text();
    expect(text).toContain(
      `event: response.output_item.done\ndata: ${JSON.stringify({
        type: "response.output_item.done",
        output_index: 0,
        item: UPSTREAM_TOOL_TURN[0],
        sequence_number: 7,
      })}\n\n`,
    );
  });
});

/** The Anthropic requests' assistant turns. */
function assistantTurns(body: Record<string, unknown>) {
  return (body.messages as { role: string; content: unknown }[]).filter((m) => m.role === "assistant");
}

describe("/v1/responses converted for an Anthropic upstream", () => {
  for (const mode of ["create", "stream"] as const) {
    it(`responses.${mode}: the signed thinking rides in encrypted_content and reaches Anthropic byte-identical`, async () => {
      const { fetch, calls } = responsesGateway(anthropicThinkingUpstream);
      const openai = client(fetch);
      const request = {
        model: "claude",
        input: [QUESTION] as Input[],
        tools: [WEATHER_TOOL],
        reasoning: { effort: "low" as const },
        store: false,
        include: ["reasoning.encrypted_content" as const],
      };
      const run = (body: typeof request) =>
        mode === "create" ? openai.responses.create(body) : openai.responses.stream(body).finalResponse();
      const first = await run(request);
      expect(calls[0]!.url).toBe(`${ANTHROPIC_BASE}/messages`);
      expect(first.object).toBe("response");
      expect(first.id).toMatch(/^resp_/);
      expect(first.model).toBe("claude");
      expect(first.status).toBe("completed");
      expect(first.output.map((item) => item.type)).toEqual(["reasoning", "function_call"]);
      const [reasoning, functionCall] = first.output as [
        OpenAI.Responses.ResponseReasoningItem,
        OpenAI.Responses.ResponseFunctionToolCall,
      ];
      expect(reasoning.id).toMatch(/^rs_/);
      expect(reasoning.summary).toEqual([{ type: "summary_text", text: THINKING }]);
      expect(functionCall).toMatchObject({
        type: "function_call",
        call_id: TOOL_USE_ID,
        name: "get_weather",
        arguments: '{"city":"Paris"}',
        status: "completed",
      });
      expect(functionCall.id).toMatch(/^fc_/);
      // The envelope names the route and carries Anthropic's blocks as they came.
      const envelope = unwrapReasoning(reasoning.encrypted_content);
      expect(envelope?.route).toBe("claude");
      expect(envelope?.native).toMatchObject({
        protocol: "anthropic-messages",
        origin: "anthropic",
        model: "claude-sonnet-4-5",
      });
      expect(envelope?.native.blocks[0]).toEqual(THINKING_BLOCK);
      expect(first.usage).toEqual({
        input_tokens: 572,
        input_tokens_details: { cached_tokens: 100, cache_write_tokens: 0 },
        output_tokens: 89,
        total_tokens: 661,
      });

      const second = await run({ ...request, input: secondInput(first, TOOL_USE_ID) });
      expect(second.output_text).toBe("It is 18 °C and sunny in Paris.");
      const [turn] = assistantTurns(calls[1]!.body);
      const blocks = turn!.content as Record<string, unknown>[];
      // Byte-identical: the thinking text and its signature exactly as Anthropic sent them.
      expect(JSON.stringify(blocks[0])).toBe(JSON.stringify(THINKING_BLOCK));
      expect(blocks[0]!.signature).toBe(SIGNATURE);
      expect(blocks[1]).toMatchObject({ type: "tool_use", id: TOOL_USE_ID, name: "get_weather" });
      const results = (calls[1]!.body.messages as { content: unknown }[]).at(-1)!.content as Record<
        string,
        unknown
      >[];
      expect(results[0]).toMatchObject({ type: "tool_result", tool_use_id: TOOL_USE_ID });
      // Nothing of the turn was left out (the only warning is Anthropic's effort mapping).
      expect((second as { warnings?: string[] }).warnings).toEqual([
        "claude-sonnet-4-5 takes no effort setting; mapped to a thinking budget",
      ]);
    });
  }

  it("without include reasoning.encrypted_content, the reasoning item has only its summary", async () => {
    const { fetch } = responsesGateway(anthropicThinkingUpstream);
    const first = await client(fetch).responses.create({
      model: "claude",
      input: [QUESTION],
      tools: [WEATHER_TOOL],
      reasoning: { effort: "low" },
    });
    const reasoning = first.output[0] as OpenAI.Responses.ResponseReasoningItem;
    expect(reasoning.summary).toEqual([{ type: "summary_text", text: THINKING }]);
    expect(reasoning.encrypted_content).toBeUndefined();
  });

  it("carried reasoning from another route is left out, with a warning", async () => {
    const { fetch, calls } = responsesGateway(anthropicThinkingUpstream);
    const openai = client(fetch);
    const first = await openai.responses.create({
      model: "claude",
      input: [QUESTION],
      tools: [WEATHER_TOOL],
      include: ["reasoning.encrypted_content"],
    });
    // Same Anthropic upstream, but asked for through the route's alias: the same route, so it replays.
    await openai.responses.create({
      model: "claude-sonnet-4-5-20250929",
      input: secondInput(first, TOOL_USE_ID),
    });
    expect((assistantTurns(calls[1]!.body)[0]!.content as { type: string }[])[0]!.type).toBe("thinking");
    // A Responses upstream's own encrypted reasoning means nothing to Anthropic: dropped, said so.
    const response = await openai.responses.create({
      model: "claude",
      input: [
        QUESTION,
        ...(UPSTREAM_TOOL_TURN as unknown as Input[]),
        {
          type: "function_call_output",
          call_id: "call_Wq3AxDf9",
          output: "sunny",
        },
      ],
    });
    const blocks = assistantTurns(calls[2]!.body)[0]!.content as { type: string }[];
    expect(blocks.map((block) => block.type)).toEqual(["tool_use"]);
    expect((response as { warnings?: string[] }).warnings).toEqual([
      'input[1]: encrypted reasoning the gateway did not carry does not replay on route "claude"; left out',
    ]);
  });
});

describe("/v1/responses passthrough stays stateless", () => {
  /** Anthropic's host answers as the thinking upstream, OpenAI's as the Responses upstream. */
  const both: Parameters<typeof responsesGateway>[0] = (call) =>
    call.host === new URL(ANTHROPIC_BASE).host ? anthropicThinkingUpstream(call) : responsesUpstream(call);

  for (const stream of [false, true]) {
    it(`${stream ? "stream" : "create"}: a reasoning item carrying the gateway's envelope is left out, said in x-modelwire-warnings`, async () => {
      const { fetch, calls } = responsesGateway(both);
      const openai = client(fetch);
      // Turn 1 on the converted Anthropic route: its thinking rides in an envelope.
      const first = await openai.responses.create({
        model: "claude",
        input: [QUESTION],
        tools: [WEATHER_TOOL],
        include: ["reasoning.encrypted_content"],
      });
      const input = secondInput(first, TOOL_USE_ID);
      expect(
        input.some((item) => item.type === "reasoning" && String(item.encrypted_content).startsWith("mw1.")),
      ).toBe(true);
      // Turn 2 on the Responses route (a pool's other member, a fallback): OpenAI never sees the envelope.
      const { response } = await (stream
        ? openai.responses.create({ model: "gpt5", input, tools: [WEATHER_TOOL], stream: true })
        : openai.responses.create({ model: "gpt5", input, tools: [WEATHER_TOOL] })
      ).withResponse();
      const sent = calls[1]!.body.input as Record<string, unknown>[];
      expect(sent.map((item) => item.type ?? item.role)).toEqual([
        "user",
        "function_call",
        "function_call_output",
      ]);
      expect(JSON.stringify(calls[1]!.body)).not.toContain("mw1.");
      expect(JSON.parse(response.headers.get("x-modelwire-warnings")!)).toEqual([
        "input[1]: reasoning the gateway carried for another route cannot be verified by a Responses upstream; left out",
      ]);
    });
  }

  it("store absent is sent as false; store the client set is kept", async () => {
    const { fetch, calls } = responsesGateway(responsesUpstream);
    const openai = client(fetch);
    await openai.responses.create({ model: "gpt5", input: [QUESTION] });
    await openai.responses.create({ model: "gpt5", input: [QUESTION], stream: true }).then(async (events) => {
      for await (const _ of events);
    });
    await openai.responses.create({ model: "gpt5", input: [QUESTION], store: true });
    expect(calls.map((call) => call.body.store)).toEqual([false, false, true]);
  });

  it("conversation and background: true are refused on passthrough too, naming them", async () => {
    const { fetch, calls } = responsesGateway(responsesUpstream);
    const error = (await client(fetch)
      .responses.create({ model: "gpt5", input: "hi", conversation: "conv_1", background: true })
      .catch((caught: unknown) => caught)) as BadRequestError;
    expect(error).toBeInstanceOf(BadRequestError);
    const issues = (error.error as { issues: { path: string }[] }).issues.map((issue) => issue.path);
    expect(issues).toEqual(["conversation", "background"]);
    expect(calls).toHaveLength(0);
  });
});

describe("/v1/responses refusals and errors, as the SDK raises them", () => {
  it("previous_response_id is a 400 naming it, on every route", async () => {
    const { fetch, calls } = responsesGateway(responsesUpstream);
    for (const model of ["gpt5", "claude"]) {
      const error = await client(fetch)
        .responses.create({ model, input: "hi", previous_response_id: "resp_123" })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(BadRequestError);
      const bad = error as BadRequestError;
      expect(bad.status).toBe(400);
      expect(bad.param).toBe("previous_response_id");
      expect(bad.message).toContain("does not store responses");
    }
    expect(calls).toHaveLength(0);
  });

  it("an unknown model is a 404 model_not_found: NotFoundError", async () => {
    const { fetch } = responsesGateway(responsesUpstream);
    const error = await client(fetch)
      .responses.create({ model: "gpt-99", input: "hi" })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).code).toBe("model_not_found");
    expect((error as NotFoundError).message).toContain("The model `gpt-99` does not exist");
  });

  it("a converted route refuses what it cannot honour, naming each field", async () => {
    const { fetch, calls } = responsesGateway(anthropicThinkingUpstream);
    const error = (await client(fetch)
      .responses.create({
        model: "claude",
        input: [QUESTION, { type: "item_reference", id: "msg_1" }],
        tools: [{ type: "web_search" }],
        store: true,
      })
      .catch((caught: unknown) => caught)) as BadRequestError;
    expect(error).toBeInstanceOf(BadRequestError);
    const issues = (error.error as { issues: { path: string }[] }).issues.map((issue) => issue.path);
    expect(issues).toEqual(["store", "input[1].type", "tools[0].type"]);
    expect(calls).toHaveLength(0);
  });

  it("an upstream 429 is a RateLimitError with retry-after, in OpenAI's shape", async () => {
    const { fetch } = responsesGateway(() =>
      anthropicError(429, "rate_limit_error", "Number of request tokens has exceeded your rate limit", {
        "retry-after": "7",
      }),
    );
    const error = (await client(fetch)
      .responses.create({ model: "claude", input: "hi" })
      .catch((caught: unknown) => caught)) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.headers?.get("retry-after")).toBe("7");
    expect(error.type).toBe("requests");
  });

  it("the HTTP error's code is the stream frame's: context_length_exceeded, rate_limit_exceeded", async () => {
    const answers = [
      () =>
        anthropicError(400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"),
      () => anthropicError(429, "rate_limit_error", "Number of request tokens has exceeded your rate limit"),
    ];
    let next = 0;
    const { fetch } = responsesGateway(() => answers[next++ % answers.length]!());
    for (const code of ["context_length_exceeded", "rate_limit_exceeded"]) {
      const error = (await client(fetch)
        .responses.create({ model: "claude", input: "hi" })
        .catch((caught: unknown) => caught)) as APIError;
      expect(error).toBeInstanceOf(APIError);
      expect(error.code).toBe(code);
    }
  });

  it("a stream that fails after it started ends with error and response.failed: the SDK throws", async () => {
    const { fetch } = responsesGateway(
      () =>
        new Response(
          new ReadableStream({
            start(controller) {
              const encoder = new TextEncoder();
              controller.enqueue(
                encoder.encode(
                  `event: message_start\ndata: ${JSON.stringify({
                    type: "message_start",
                    message: {
                      id: "msg_1",
                      type: "message",
                      role: "assistant",
                      model: "claude-sonnet-4-5",
                      content: [],
                      stop_reason: null,
                      usage: { input_tokens: 3, output_tokens: 1 },
                    },
                  })}\n\nevent: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\nevent: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}\n\n`,
                ),
              );
              setTimeout(() => controller.error(new TypeError("Network connection lost.")), 5);
            },
          }),
          { headers: { "content-type": "text/event-stream" } },
        ),
    );
    const stream = client(fetch).responses.stream({ model: "claude", input: "hi" });
    const deltas: string[] = [];
    stream.on("response.output_text.delta", (event) => deltas.push(event.delta));
    const error = await stream.finalResponse().catch((caught: unknown) => caught);
    expect(deltas).toEqual(["Hel"]);
    expect(error).toBeInstanceOf(APIError);
  });
});
