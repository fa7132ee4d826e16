/**
 * The AI SDK's Anthropic provider (`@ai-sdk/anthropic`, baseURL = the gateway) against /v1/messages:
 * `generateText` and `streamText` with a tool over two steps (`stopWhen: stepCountIs(2)`), on a native
 * first-party route (the signed thinking block goes back byte-identical) and on a converted OpenAI Chat
 * route (the AI SDK's strict stream schema accepts every event the gateway writes).
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { generateText, stepCountIs, streamText, tool } from "ai";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import {
  anthropicEvents,
  anthropicMessage,
  openaiCompletion,
  openaiFrames,
  TOKEN,
  type UpstreamCall,
} from "./helpers.ts";
import {
  anthropicSse,
  messagesGateway,
  SIGNATURE,
  sse,
  thinkingToolEvents,
  thinkingToolMessage,
} from "./messages-fixtures.ts";

const weather = tool({
  description: "Current weather in a city",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }: { city: string }) => ({ city, sky: "sunny" }),
});

function provider(fetchImpl: typeof fetch) {
  return createAnthropic({ baseURL: "http://gateway.test/v1", apiKey: TOKEN, fetch: fetchImpl });
}

/** First-party: think and call the tool, then answer once the result is in. */
function claudeUpstream(call: UpstreamCall): Response {
  const messages = call.body.messages as unknown[];
  if (messages.length === 1) {
    return call.body.stream ? sse(anthropicSse(thinkingToolEvents())) : Response.json(thinkingToolMessage());
  }
  return call.body.stream
    ? sse(anthropicSse(anthropicEvents(["Sunny in Paris."])))
    : Response.json(anthropicMessage("Sunny in Paris."));
}

/** Chat: the tool call first, the answer once the tool message is in. */
function chatUpstream(call: UpstreamCall): Response {
  const messages = call.body.messages as { role: string }[];
  const first = messages.at(-1)!.role === "user";
  if (call.body.stream) {
    return sse(
      openaiFrames(
        "gpt-4o",
        first ? [] : ["Sunny ", "in Paris."],
        first ? { tool: { id: "call_W1", name: "weather", pieces: ['{"city":', '"Paris"}'] } } : {},
      ).join(""),
    );
  }
  return Response.json(
    first
      ? openaiCompletion("gpt-4o", null, { id: "call_W1", name: "weather", arguments: '{"city":"Paris"}' })
      : openaiCompletion("gpt-4o", "Sunny in Paris."),
  );
}

describe("@ai-sdk/anthropic through /v1/messages", () => {
  for (const streamed of [false, true]) {
    const run = (model: ReturnType<ReturnType<typeof provider>>) => {
      const settings = {
        model,
        tools: { weather },
        stopWhen: stepCountIs(2),
        prompt: "Weather in Paris?",
      };
      if (!streamed)
        return generateText(settings).then((result) => ({ text: result.text, steps: result.steps }));
      const result = streamText(settings);
      return Promise.all([result.text, result.steps]).then(([text, steps]) => ({ text, steps }));
    };

    it(`${streamed ? "streamText" : "generateText"} on a native route: two steps, the signed thinking sent back as it came`, async () => {
      const { fetch, calls } = messagesGateway(claudeUpstream);
      const { text, steps } = await run(provider(fetch)("claude"));
      expect(text).toBe("Sunny in Paris.");
      expect(steps).toHaveLength(2);
      expect(steps[0]!.toolCalls.map((call) => call.input)).toEqual([{ city: "Paris" }]);
      expect(calls).toHaveLength(2);
      const assistant = (calls[1]!.body.messages as { role: string; content: unknown[] }[])[1]!;
      expect(assistant.role).toBe("assistant");
      expect(JSON.stringify(assistant.content[0])).toBe(
        JSON.stringify({ type: "thinking", thinking: "The user wants the weather.", signature: SIGNATURE }),
      );
      expect(assistant.content).toContainEqual(
        expect.objectContaining({ type: "tool_use", id: "toolu_01Weather", input: { city: "Paris" } }),
      );
    });

    it(`${streamed ? "streamText" : "generateText"} on an OpenAI Chat route: the tool call, its result, the answer`, async () => {
      const { fetch, calls } = messagesGateway(chatUpstream);
      const { text, steps } = await run(provider(fetch)("gpt"));
      expect(text).toBe("Sunny in Paris.");
      expect(steps).toHaveLength(2);
      expect(steps[0]!.finishReason).toBe("tool-calls");
      expect(steps[0]!.toolResults.map((result) => result.output)).toEqual([{ city: "Paris", sky: "sunny" }]);
      expect(steps[1]!.usage.inputTokens).toBe(82);
      expect(steps[1]!.usage.outputTokens).toBe(17);
      expect(calls).toHaveLength(2);
      expect(calls[1]!.body.messages).toMatchObject([
        { role: "user" },
        { role: "assistant", tool_calls: [{ id: "call_W1", function: { name: "weather" } }] },
        { role: "tool", tool_call_id: "call_W1" },
      ]);
      const toolMessage = (calls[1]!.body.messages as { role: string; content: string }[])[2]!;
      expect(JSON.parse(toolMessage.content)).toEqual({ city: "Paris", sky: "sunny" });
    });
  }
});
