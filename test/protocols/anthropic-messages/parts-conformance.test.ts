/**
 * Conformance of image, document and structured-output requests on the recorded pydantic-ai cassettes
 * (real traffic the Messages API accepted): the request `anthropic().complete()` sends for the same
 * neutral input equals the recorded request body, and the recorded response parses to the expected
 * `Response` (with `object` where structured output was asked).
 *
 * Differences from the recordings, ignored narrowly and only where listed:
 * - `stream: false`: pydantic-ai sends it; modelwire leaves `stream` out of a non-streaming call;
 * - `tool_result.is_error: false` and a tool's `description: ""`: pydantic-ai sends the defaults,
 *   modelwire leaves them out (`withoutPydanticDefaults`);
 * - the cassettes that start with the GET of the file (`url_input`): that interaction is skipped; its body
 *   is the neutral part's inline data.
 */
import { describe, expect, it } from "vitest";
import { bytesToBase64 } from "../../../src/core/base64.ts";
import type { ContentPart } from "../../../src/core/content.ts";
import { anthropic, type CallOptions, type MessageInput, type ToolSpec } from "../../../src/index.ts";
import type { AnthropicModelProfile } from "../../../src/protocols/anthropic-messages/index.ts";
import { anthropicModelProfile } from "../../../src/providers/anthropic-model-profiles.ts";
import { type FixtureInteraction, loadFixture } from "../../helpers/fixtures.ts";

type Json = Record<string, unknown>;

/** The API calls of a cassette (the file GET of `url_input` cassettes left out). */
async function apiCalls(name: string): Promise<FixtureInteraction[]> {
  const fixture = await loadFixture(`anthropic/pydantic-ai__${name}.yaml`);
  return fixture.interactions.filter((interaction) =>
    interaction.request?.uri?.includes("api.anthropic.com"),
  );
}

/** A provider whose fetch answers `response` and keeps the body it was sent. */
function recordingProvider(model: string, response: unknown, profile?: AnthropicModelProfile) {
  const sent: Json[] = [];
  const provider = anthropic({
    apiKey: "sk-ant-test",
    model,
    ...(profile ? { profile } : {}),
    fetch: (async (_input: RequestInfo | URL, init?: RequestInit) => {
      sent.push(JSON.parse(String(init?.body)) as Json);
      return new Response(JSON.stringify(response), { headers: { "content-type": "application/json" } });
    }) as typeof fetch,
  });
  return { provider, sent };
}

/** The recorded body without what pydantic-ai sends and modelwire leaves out (see the module). */
function withoutPydanticDefaults(recorded: Json): Json {
  const { stream, ...body } = structuredClone(recorded);
  expect(stream).toBe(false);
  for (const message of (body.messages as { content: Json[] }[]) ?? []) {
    for (const block of message.content)
      if (block.type === "tool_result" && block.is_error === false) delete block.is_error;
  }
  for (const tool of (body.tools as Json[] | undefined) ?? [])
    if (tool.description === "") delete tool.description;
  return body;
}

const OPTIONS: CallOptions = { maxTokens: 4096, cache: "off" };

describe("Anthropic conformance on the image and document recordings", () => {
  it("test_image_url_input: an image by https URL goes as a url source", async () => {
    const [call] = await apiCalls("test_image_url_input");
    const recorded = call!.request!.body as Json;
    const url = ((recorded.messages as { content: Json[] }[])[0]!.content[1]!.source as Json).url as string;
    const { provider, sent } = recordingProvider("claude-haiku-4-5", call!.json);
    const content: ContentPart[] = [
      { type: "text", text: "What is this vegetable?" },
      { type: "image", url },
    ];
    const response = await provider.complete([{ role: "user", content }], [], OPTIONS);
    expect(sent[0]).toEqual(withoutPydanticDefaults(recorded));
    expect(response.message.content).toMatch(/^This is a potato\./);
    expect(response.stopReason).toBe("stop");
    expect(response.model).toBe("claude-haiku-4-5-20251001");
    expect(response.usage).toMatchObject({ inputTokens: 296, outputTokens: 91 });
    expect(response.refusal).toBeUndefined();
  });

  it("test_image_url_input_invalid_mime_type: a URL without a media type is passed as it is (the API reads the bytes)", async () => {
    const [call] = await apiCalls("test_image_url_input_invalid_mime_type");
    const recorded = call!.request!.body as Json;
    const url = ((recorded.messages as { content: Json[] }[])[0]!.content[1]!.source as Json).url as string;
    expect(url).not.toMatch(/\.(png|jpe?g|gif|webp)$/);
    const { provider, sent } = recordingProvider("claude-haiku-4-5", call!.json);
    const response = await provider.complete(
      [
        {
          role: "user",
          content: [
            { type: "text", text: "What animal is this?" },
            { type: "image", url },
          ],
        },
      ],
      [],
      OPTIONS,
    );
    expect(sent[0]).toEqual(withoutPydanticDefaults(recorded));
    expect(response.message.content).toMatch(/Great Horned Owl/);
  });

  it("test_document_binary_content_input: an inline PDF goes as a base64 document", async () => {
    const [call] = await apiCalls("test_document_binary_content_input");
    const recorded = call!.request!.body as Json;
    const source = (recorded.messages as { content: Json[] }[])[0]!.content[1]!.source as Json;
    expect(source.media_type).toBe("application/pdf");
    const { provider, sent } = recordingProvider("claude-sonnet-4-5", call!.json);
    const response = await provider.complete(
      [
        {
          role: "user",
          content: [
            { type: "text", text: "What is the main content on this document?" },
            { type: "file", mediaType: "application/pdf", data: source.data as string },
          ],
        },
      ],
      [],
      OPTIONS,
    );
    expect(sent[0]).toEqual(withoutPydanticDefaults(recorded));
    expect(response.message.content).toContain("Dummy PDF file");
    expect(response.usage.inputTokens).toBe(1615);
  });

  it("test_text_document_url_input: a downloaded text file goes as a text document, decoded from base64", async () => {
    const fixture = await loadFixture("anthropic/pydantic-ai__test_text_document_url_input.yaml");
    const [download, call] = fixture.interactions;
    expect(download!.request!.method).toBe("GET");
    const recorded = call!.request!.body as Json;
    const { provider, sent } = recordingProvider("claude-sonnet-4-5", call!.json);
    // What `inlineUrlParts` makes of the GET: the file's bytes, inline.
    const data = bytesToBase64(download!.body);
    const response = await provider.complete(
      [
        {
          role: "user",
          content: [
            { type: "text", text: "What is the main content on this document?" },
            { type: "file", mediaType: "text/plain", data },
          ],
        },
      ],
      [],
      OPTIONS,
    );
    expect(sent[0]).toEqual(withoutPydanticDefaults(recorded));
    const block = (sent[0]!.messages as { content: Json[] }[])[0]!.content[1]!;
    expect(block).toMatchObject({ type: "document", source: { type: "text", media_type: "text/plain" } });
    expect((block.source as Json).data).toContain('The names "John Doe" for males');
    expect(response.message.content).toMatch(/^This document is a TXT test file/);
  });
});

describe("Anthropic conformance on the structured-output recordings (forced output tool)", () => {
  const CITY_SCHEMA = {
    properties: { city: { type: "string" }, country: { type: "string" } },
    required: ["city", "country"],
    title: "CityLocation",
    type: "object",
  };
  const { title: _title, ...UNTITLED_SCHEMA } = CITY_SCHEMA;
  const FORMAT = {
    type: "json_schema" as const,
    name: "final_result",
    description: "The final response which ends this conversation",
    schema: CITY_SCHEMA,
  };
  const GET_USER_COUNTRY: ToolSpec = {
    name: "get_user_country",
    parameters: { additionalProperties: false, properties: {}, type: "object" },
  };
  /** Sonnet 4.5 as a model without native structured output: what pydantic-ai recorded. */
  const FORCED_TOOL_PROFILE = { ...anthropicModelProfile("claude-sonnet-4-5"), structuredOutput: false };
  const QUESTION: MessageInput = { role: "user", content: "What is the largest city in the user country?" };

  it("test_anthropic_tool_output, call 1: the output tool beside the caller's, tool_choice any; the caller's tool is called", async () => {
    const [first] = await apiCalls("test_anthropic_tool_output");
    const { provider, sent } = recordingProvider("claude-sonnet-4-5", first!.json, FORCED_TOOL_PROFILE);
    const response = await provider.complete([QUESTION], [GET_USER_COUNTRY], {
      ...OPTIONS,
      responseFormat: FORMAT,
    });
    expect(sent[0]).toEqual(withoutPydanticDefaults(first!.request!.body as Json));
    // A turn of the agent loop: the caller's tool, no answer yet.
    expect(response.message.toolCalls).toEqual([
      { id: "toolu_01X9wcHKKAZD9tBC711xipPa", name: "get_user_country", arguments: {} },
    ]);
    expect(response.stopReason).toBe("tool-calls");
    expect(response.object).toBeUndefined();
  });

  it("test_anthropic_tool_output, call 2: after the tool result, the output tool's call is the answer and its object", async () => {
    const [, second] = await apiCalls("test_anthropic_tool_output");
    const { provider, sent } = recordingProvider("claude-sonnet-4-5", second!.json, FORCED_TOOL_PROFILE);
    const history: MessageInput[] = [
      QUESTION,
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "toolu_01X9wcHKKAZD9tBC711xipPa", name: "get_user_country", arguments: {} }],
      },
      { role: "tool", toolResults: [{ callId: "toolu_01X9wcHKKAZD9tBC711xipPa", content: "Mexico" }] },
    ];
    const response = await provider.complete(history, [GET_USER_COUNTRY], {
      ...OPTIONS,
      responseFormat: FORMAT,
    });
    expect(sent[0]).toEqual(withoutPydanticDefaults(second!.request!.body as Json));
    expect(response.object).toEqual({ city: "Mexico City", country: "Mexico" });
    expect(JSON.parse(response.message.content)).toEqual({ city: "Mexico City", country: "Mexico" });
    expect(response.message.toolCalls).toEqual([]);
    expect(response.stopReason).toBe("stop");
    expect(response.message.native).toBeUndefined();
  });

  it("test_anthropic_tool_output on Sonnet 4.5's own profile: the format goes natively instead", async () => {
    const [first] = await apiCalls("test_anthropic_tool_output");
    const { provider, sent } = recordingProvider("claude-sonnet-4-5", first!.json);
    await provider.complete([QUESTION], [GET_USER_COUNTRY], { ...OPTIONS, responseFormat: FORMAT });
    const body = sent[0]!;
    expect(body.output_config).toEqual({ format: { type: "json_schema", schema: CITY_SCHEMA } });
    expect(body.tool_choice).toBeUndefined();
    expect((body.tools as Json[]).map((tool) => tool.name)).toEqual(["get_user_country"]);
  });

  it("test_anthropic_opus_46_adaptive_thinking_accepts_tool_output: with thinking on, the output tool goes with tool_choice auto (the one field that differs), and the call parses to the object", async () => {
    const [call] = await apiCalls(
      "test_anthropic_opus_46_adaptive_thinking_accepts_tool_output_provider_specific_",
    );
    const recorded = call!.request!.body as Json;
    const profile = { ...anthropicModelProfile("claude-opus-4-6"), structuredOutput: false };
    const { provider, sent } = recordingProvider("claude-opus-4-6", call!.json, profile);
    const response = await provider.complete(
      [{ role: "user", content: "What is the capital of France?" }],
      [],
      { ...OPTIONS, thinking: "adaptive", responseFormat: { ...FORMAT, schema: UNTITLED_SCHEMA } },
    );
    // pydantic-ai forced `any` with thinking on (the API took it from this model, and thought 0 tokens:
    // `thinking_tokens: 0`); modelwire keeps the thinking the call asked for and does not force.
    expect(recorded.tool_choice).toEqual({ type: "any" });
    expect(sent[0]!.tool_choice).toEqual({ type: "auto" });
    expect({ ...sent[0], tool_choice: recorded.tool_choice }).toEqual(withoutPydanticDefaults(recorded));
    expect(response.object).toEqual({ city: "Paris", country: "France" });
    expect(response.warnings).toContainEqual(
      expect.stringMatching(/output tool final_result: with thinking on/),
    );
  });
});
