/**
 * bedrock(api: converse) end to end through the HTTP shell: a part Converse cannot take is one
 * ValidationError before any request; structured output through the forced output tool gives `object`
 * on complete and on stream (the tool's input streamed as text); native structured output sends
 * `outputConfig`; a guardrail stop is a refusal, not a parse failure.
 */
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/index.ts";
import { bedrock } from "../../src/providers/bedrock.ts";
import { converseFrames } from "../helpers/bedrock-frames.ts";
import {
  BEARER,
  CLAUDE,
  collect,
  eventStream,
  fakeFetch,
  type Json,
  json,
  quiet,
} from "./bedrock.helpers.ts";

const NOVA = "us.amazon.nova-micro-v1:0";
const SCHEMA = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };

const TOOL_ANSWER = {
  output: {
    message: {
      role: "assistant",
      content: [{ toolUse: { toolUseId: "tooluse_1", name: "place", input: { city: "Paris" } } }],
    },
  },
  stopReason: "tool_use",
  usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
};
const TOOL_EVENTS: Json[] = [
  { messageStart: { role: "assistant" } },
  {
    contentBlockStart: {
      contentBlockIndex: 0,
      start: { toolUse: { toolUseId: "tooluse_1", name: "place" } },
    },
  },
  { contentBlockDelta: { contentBlockIndex: 0, delta: { toolUse: { input: '{"city":' } } } },
  { contentBlockDelta: { contentBlockIndex: 0, delta: { toolUse: { input: '"Paris"}' } } } },
  { contentBlockStop: { contentBlockIndex: 0 } },
  { messageStop: { stopReason: "tool_use" } },
  { metadata: { usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 }, metrics: { latencyMs: 1 } } },
];

const provider = (model: string, fetch: typeof globalThis.fetch) =>
  bedrock({ region: "us-east-1", model, api: "converse", apiKey: BEARER, fetch, ...quiet });

describe("bedrock(api: converse) parts and structured output", () => {
  it("an https image is one ValidationError naming the field, before any request", async () => {
    const { fetch, requests } = fakeFetch(() => json(TOOL_ANSWER));
    const error = await provider(NOVA, fetch)
      .complete([
        {
          role: "user",
          content: [
            { type: "text", text: "what is it?" },
            { type: "image", url: "https://example.com/cat.png" },
          ],
        },
      ])
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([
      { path: "messages[0].content[1]", message: expect.stringContaining("inlineUrlParts") },
    ]);
    expect(requests).toHaveLength(0);
  });

  it("sends an inline image and a PDF as Converse blocks", async () => {
    const { fetch, requests } = fakeFetch(() => json(TOOL_ANSWER));
    await provider(NOVA, fetch).complete([
      {
        role: "user",
        content: [
          { type: "text", text: "compare" },
          { type: "image", url: "data:image/png;base64,aGVsbG8=" },
          { type: "file", mediaType: "application/pdf", data: "aGVsbG8=", filename: "spec.pdf" },
        ],
      },
    ]);
    expect((requests[0]!.json.messages as Json[])[0]).toEqual({
      role: "user",
      content: [
        { text: "compare" },
        { image: { format: "png", source: { bytes: "aGVsbG8=" } } },
        // The provider's automatic cache point: before the document, which Bedrock takes none after.
        { cachePoint: { type: "default" } },
        { document: { format: "pdf", name: "spec", source: { bytes: "aGVsbG8=" } } },
      ],
    });
  });

  it("forced output tool on Nova: object on complete and on stream, the input streamed as text", async () => {
    const { fetch, requests } = fakeFetch((request) =>
      request.url.endsWith("-stream") ? eventStream(converseFrames(TOOL_EVENTS), [3, 7]) : json(TOOL_ANSWER),
    );
    const nova = provider(NOVA, fetch);
    const options = { responseFormat: { type: "json_schema" as const, name: "place", schema: SCHEMA } };
    const completed = await nova.complete([{ role: "user", content: "where?" }], [], options);
    expect(completed.object).toEqual({ city: "Paris" });
    expect(completed.message.content).toBe('{"city":"Paris"}');
    expect(completed.message.toolCalls).toEqual([]);
    expect(completed.stopReason).toBe("stop");
    const body = requests[0]!.json as Json;
    expect((body.toolConfig as Json).toolChoice).toEqual({ any: {} });
    expect(body.outputConfig).toBeUndefined();

    const streamed = await collect(nova.stream([{ role: "user", content: "where?" }], [], options));
    expect(streamed.response.object).toEqual({ city: "Paris" });
    const text = streamed.events
      .flatMap((event) => (event.type === "text-delta" ? [event.text] : []))
      .join("");
    expect(text).toBe('{"city":"Paris"}');
  });

  it("native structured output on Claude Sonnet 4.5: outputConfig, the text parsed", async () => {
    const { fetch, requests } = fakeFetch(() =>
      json({
        output: { message: { role: "assistant", content: [{ text: '{"city":"Rome"}' }] } },
        stopReason: "end_turn",
        usage: { inputTokens: 4, outputTokens: 4, totalTokens: 8 },
      }),
    );
    const response = await provider(CLAUDE, fetch).complete([{ role: "user", content: "where?" }], [], {
      responseFormat: { type: "json_schema", name: "place", schema: SCHEMA },
    });
    expect(response.object).toEqual({ city: "Rome" });
    const body = requests[0]!.json as Json;
    expect(body.outputConfig).toEqual({
      textFormat: {
        type: "json_schema",
        structure: { jsonSchema: { name: "place", schema: JSON.stringify(SCHEMA) } },
      },
    });
    expect(body.toolConfig).toBeUndefined();
  });

  it("a guardrail stop with structured output is a refusal, not a parse failure", async () => {
    const { fetch } = fakeFetch(() =>
      json({
        output: { message: { role: "assistant", content: [{ text: "Blocked by policy." }] } },
        stopReason: "guardrail_intervened",
        usage: { inputTokens: 4, outputTokens: 0, totalTokens: 4 },
      }),
    );
    const response = await provider(CLAUDE, fetch).complete([{ role: "user", content: "where?" }], [], {
      responseFormat: { type: "json_schema", name: "place", schema: SCHEMA },
    });
    expect(response.stopReason).toBe("content-filter");
    expect(response.refusal).toBe("Blocked by policy.");
    expect(response.object).toBeUndefined();
  });
});
