/**
 * The one overflow-pattern table, and that every protocol's error mapping reads a `bad_request` through it:
 * a phrase one vendor sends counts on every protocol the same model answers through.
 */
import { describe, expect, it } from "vitest";
import { mapAnthropicError } from "../../src/protocols/anthropic-messages/index.ts";
import { mapBedrockException, mapBedrockHttpError } from "../../src/protocols/bedrock-converse/index.ts";
import { isContextOverflow } from "../../src/protocols/context-overflow.ts";
import { mapOpenAIChatError } from "../../src/protocols/openai-chat/index.ts";

/** One message per phrase of the table, as the vendors word them. */
const OVERFLOWS = [
  "prompt is too long: 210000 tokens > 200000 maximum",
  "Input is too long for requested model.",
  "input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000",
  "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
  "Your input exceeds the context window of this model.",
  "context_length_exceeded",
  "Too many input tokens.",
  "too many tokens in the request",
  "input tokens exceed the configured limit",
  "Please reduce the length of the messages.",
];

const OTHERS = [
  "messages: field required",
  "Malformed input request: tool name",
  "Request exceeds the maximum size",
  "invalid x-api-key",
];

describe("isContextOverflow", () => {
  it.each(OVERFLOWS)("%s → overflow", (message) => {
    expect(isContextOverflow(message)).toBe(true);
  });

  it.each(OTHERS)("%s → not an overflow", (message) => {
    expect(isContextOverflow(message)).toBe(false);
  });

  it("every protocol's error mapping turns each phrase into context_length, on a 400 only", () => {
    for (const message of OVERFLOWS) {
      const anthropic = mapAnthropicError(400, {
        type: "error",
        error: { type: "invalid_request_error", message },
      });
      const openai = mapOpenAIChatError(400, { error: { message, type: "invalid_request_error" } });
      const bedrockHttp = mapBedrockHttpError(
        400,
        { message },
        new Headers({ "x-amzn-errortype": "ValidationException" }),
      );
      const bedrockStream = mapBedrockException({ exceptionType: "validationException", message });
      expect([anthropic.kind, openai.kind, bedrockHttp.kind, bedrockStream.kind], message).toEqual([
        "context_length",
        "context_length",
        "context_length",
        "context_length",
      ]);
      // A rate limit that speaks of tokens stays a rate limit.
      expect(mapOpenAIChatError(429, { error: { message } }).kind).toBe("rate_limit");
      expect(mapBedrockHttpError(429, { message }).kind).toBe("rate_limit");
    }
  });

  it("Anthropic's request_too_large is about bytes, not tokens: it stays bad_request", () => {
    expect(
      mapAnthropicError(413, {
        type: "error",
        error: { type: "request_too_large", message: "prompt is too long for this request size" },
      }).kind,
    ).toBe("bad_request");
  });
});
