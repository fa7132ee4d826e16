/**
 * A Gemini route's thought signatures through a Worker turn: the first answer's parts (a thought part and
 * a function call, each with its `thoughtSignature`) ride in the gateway's reasoning envelope — in a
 * thinking block's signature on /v1/messages, in a reasoning item's `encrypted_content` on /v1/responses —
 * and the second call's Gemini request carries those parts back byte-identical.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { gateway, gatewayEnv, TOKEN, type UpstreamCall } from "./helpers.ts";

const CONFIG = {
  routes: {
    flash: { protocol: "google-gemini", model: "gemini-2.5-flash", apiKeySecret: "OPENAI_API_KEY" },
  },
};

/** The model's first turn: a signed thought, then a signed call. */
const TOOL_PARTS = [
  {
    text: "The user wants Paris weather; call get_weather.",
    thought: true,
    thoughtSignature: "CiQB0e2Kb7Q+sig/A==",
  },
  { functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: "CmEB0e2Kb9x-sig/B==" },
];
const FINAL_PARTS = [{ text: "It is 18 °C and sunny in Paris." }];
const USAGE = { promptTokenCount: 12, candidatesTokenCount: 9, totalTokenCount: 21 };

/** Gemini's answer: the tool turn first, the final text once a functionResponse is in. */
function gemini(call: UpstreamCall): Response {
  const contents = call.body.contents as { parts: Record<string, unknown>[] }[];
  const answered = contents.some((content) => content.parts.some((part) => "functionResponse" in part));
  const parts = answered ? FINAL_PARTS : TOOL_PARTS;
  const answer = {
    candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
    usageMetadata: USAGE,
    responseId: answered ? "g2" : "g1",
  };
  if (call.url.endsWith(":streamGenerateContent?alt=sse")) {
    return new Response(`data: ${JSON.stringify(answer)}\r\n\r\n`, {
      headers: { "content-type": "text/event-stream" },
    });
  }
  return Response.json(answer);
}

function setup() {
  const { worker, calls } = gateway(gemini, { config: CONFIG, log: () => {} });
  const fetchImpl = (async (url: RequestInfo | URL, init?: RequestInit) =>
    worker.app.fetch(new Request(url, init), gatewayEnv)) as typeof fetch;
  return { fetch: fetchImpl, calls };
}

/** The model turn of the second Gemini request, as JSON text. */
function replayedModelTurn(call: UpstreamCall): string {
  const contents = call.body.contents as { role: string; parts: unknown[] }[];
  return JSON.stringify(contents.find((content) => content.role === "model")?.parts);
}

const WEATHER = {
  name: "get_weather",
  description: "Current weather in a city",
  input_schema: { type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] },
};

describe("a Gemini route's thought signatures survive a Worker turn", () => {
  for (const stream of [false, true]) {
    it(`/v1/messages (${stream ? "stream" : "create"}): back to Gemini byte-identical`, async () => {
      const { fetch, calls } = setup();
      const client = new Anthropic({ apiKey: TOKEN, baseURL: "http://gateway.test", fetch, maxRetries: 0 });
      const question = { role: "user" as const, content: "What is the weather in Paris?" };
      const request = { model: "flash", max_tokens: 256, tools: [WEATHER], messages: [question] };
      const first = stream
        ? await client.messages.stream(request).finalMessage()
        : await client.messages.create(request);
      const call = first.content.find((block) => block.type === "tool_use")!;
      expect(call).toMatchObject({ name: "get_weather", input: { city: "Paris" } });
      await client.messages.create({
        ...request,
        messages: [
          question,
          { role: "assistant", content: first.content },
          { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: "18 °C, sunny" }] },
        ],
      });
      expect(calls).toHaveLength(2);
      expect(replayedModelTurn(calls[1]!)).toBe(JSON.stringify(TOOL_PARTS));
    });

    it(`/v1/responses (${stream ? "stream" : "create"}): back to Gemini byte-identical`, async () => {
      const { fetch, calls } = setup();
      const client = new OpenAI({ apiKey: TOKEN, baseURL: "http://gateway.test/v1", fetch, maxRetries: 0 });
      const question: OpenAI.Responses.ResponseInputItem = {
        role: "user",
        content: "What is the weather in Paris?",
      };
      const tool: OpenAI.Responses.FunctionTool = {
        type: "function",
        name: "get_weather",
        description: "Current weather in a city",
        parameters: WEATHER.input_schema,
        strict: false,
      };
      const request = {
        model: "flash",
        input: [question],
        tools: [tool],
        include: ["reasoning.encrypted_content" as const],
      };
      const first = stream
        ? await client.responses.stream(request).finalResponse()
        : await client.responses.create(request);
      const call = first.output.find(
        (item) => item.type === "function_call",
      ) as OpenAI.Responses.ResponseFunctionToolCall;
      expect(call).toMatchObject({ name: "get_weather" });
      await client.responses.create({
        ...request,
        input: [
          question,
          ...(first.output as OpenAI.Responses.ResponseInputItem[]),
          { type: "function_call_output", call_id: call.call_id, output: "18 °C, sunny" },
        ],
      });
      expect(calls).toHaveLength(2);
      expect(replayedModelTurn(calls[1]!)).toBe(JSON.stringify(TOOL_PARTS));
    });
  }
});
