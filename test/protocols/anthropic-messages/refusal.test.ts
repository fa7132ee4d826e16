/**
 * `stop_reason: "refusal"` → `Response.refusal` + `stopReason: "content-filter"`, the same whole and
 * streamed (on the recorded vercel-ai refusal stream and on made-up answers), and left alone by
 * structured output (no parse failure).
 */
import { describe, expect, it } from "vitest";
import { anthropic, type Response as ModelResponse, type StreamEvent } from "../../../src/index.ts";
import {
  type AnthropicMessage,
  DEFAULT_REFUSAL,
  parseAnthropicResponse,
} from "../../../src/protocols/anthropic-messages/index.ts";
import { loadFixture } from "../../helpers/fixtures.ts";

const CONTEXT = { provider: "anthropic", model: "claude-fable-5", origin: "anthropic" };
const USAGE = { input_tokens: 18, output_tokens: 5 };
const SCHEMA = { type: "object", properties: { a: { type: "string" } }, additionalProperties: false };

/** The SSE of `message` streamed: its blocks as one delta each, then the stop. */
function sseOf(message: AnthropicMessage): string {
  const { content, stop_reason, stop_details, ...rest } = message;
  const events: object[] = [{ type: "message_start", message: { ...rest, content: [], stop_reason: null } }];
  content.forEach((block, index) => {
    events.push({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
    events.push({ type: "content_block_delta", index, delta: { type: "text_delta", text: block.text } });
    events.push({ type: "content_block_stop", index });
  });
  events.push({
    type: "message_delta",
    delta: { stop_reason, stop_sequence: null, stop_details },
    usage: USAGE,
  });
  events.push({ type: "message_stop" });
  return events
    .map((event) => `event: ${(event as { type: string }).type}\ndata: ${JSON.stringify(event)}\n\n`)
    .join("");
}

function provider(respond: () => Response) {
  return anthropic({
    apiKey: "sk-ant-test",
    model: "claude-fable-5",
    fetch: (async () => respond()) as typeof fetch,
  });
}

async function streamDone(body: string, options = {}): Promise<ModelResponse> {
  const claude = provider(() => new Response(body, { headers: { "content-type": "text/event-stream" } }));
  let done: ModelResponse | undefined;
  for await (const event of claude.stream(
    [{ role: "user", content: "x" }],
    [],
    options,
  ) as AsyncIterable<StreamEvent>) {
    if (event.type === "done") done = event.response;
  }
  return done!;
}

async function completeOf(message: AnthropicMessage, options = {}): Promise<ModelResponse> {
  const claude = provider(
    () => new Response(JSON.stringify(message), { headers: { "content-type": "application/json" } }),
  );
  return claude.complete([{ role: "user", content: "x" }], [], options);
}

describe("refusals", () => {
  const base = { id: "msg_1", type: "message", role: "assistant", model: "claude-fable-5", usage: USAGE };
  const cases: [string, AnthropicMessage, string][] = [
    [
      "the model's text",
      { ...base, content: [{ type: "text", text: "I can't help with that." }], stop_reason: "refusal" },
      "I can't help with that.",
    ],
    [
      "the API's explanation when there is no text",
      {
        ...base,
        content: [],
        stop_reason: "refusal",
        stop_details: { type: "refusal", category: "cyber", explanation: "Blocked under the Usage Policy." },
      },
      "Blocked under the Usage Policy.",
    ],
    [
      "the default when there is neither",
      { ...base, content: [], stop_reason: "refusal", stop_details: null },
      DEFAULT_REFUSAL,
    ],
  ];
  for (const [name, message, refusal] of cases) {
    it(`${name}: refusal and content-filter, whole and streamed alike`, async () => {
      const parsed = parseAnthropicResponse(message, CONTEXT);
      expect(parsed.refusal).toBe(refusal);
      expect(parsed.stopReason).toBe("content-filter");
      expect(parsed.rawStopReason).toBe("refusal");
      const whole = await completeOf(message);
      const streamed = await streamDone(sseOf(message));
      expect(whole.refusal).toBe(refusal);
      expect(streamed).toEqual(whole);
    });
  }

  it("other stops carry no refusal", () => {
    const parsed = parseAnthropicResponse(
      { ...base, content: [{ type: "text", text: "hi" }], stop_reason: "end_turn" },
      CONTEXT,
    );
    expect(parsed.refusal).toBeUndefined();
    expect(parsed.stopReason).toBe("stop");
  });

  it("the recorded refusal stream (vercel-ai): the explanation from message_delta.stop_details", async () => {
    const fixture = await loadFixture("anthropic/vercel-ai__anthropic-refusal.chunks.txt");
    const [interaction] = fixture.interactions;
    const done = await streamDone(new TextDecoder().decode(interaction!.body));
    expect(done.stopReason).toBe("content-filter");
    expect(done.refusal).toBe(
      "This request triggered restrictions on violative cyber content and was blocked under Anthropic's Usage Policy.",
    );
    expect(done.message.content).toBe("");
  });

  it("with responseFormat, a refusal is reported as such, not as a parse failure (whole and streamed)", async () => {
    const message: AnthropicMessage = {
      ...base,
      content: [{ type: "text", text: "No." }],
      stop_reason: "refusal",
    };
    for (const model of ["claude-fable-5", "claude-3-5-haiku"]) {
      const options = { responseFormat: { type: "json_schema" as const, schema: SCHEMA } };
      const whole = await anthropic({
        apiKey: "sk-ant-test",
        model,
        fetch: (async () =>
          new Response(JSON.stringify(message), {
            headers: { "content-type": "application/json" },
          })) as typeof fetch,
      }).complete([{ role: "user", content: "x" }], [], options);
      expect(whole.refusal).toBe("No.");
      expect(whole.object).toBeUndefined();
      const streamed = await streamDone(sseOf(message), options);
      expect(streamed.refusal).toBe("No.");
      expect(streamed.object).toBeUndefined();
    }
  });
});
