/**
 * Conformance on the pydantic-ai Bedrock recordings of images, documents, media in tool results, cache
 * points after media and structured output: the Converse request modelwire builds from a neutral input
 * equals the request the API accepted (field order aside), and the recorded response parses to the
 * expected `Response`.
 *
 * What is left out of the comparison, narrowly:
 * - pydantic-ai always sends `inferenceConfig: {}` and `system: []`; modelwire leaves out empty fields;
 * - pydantic-ai sends `toolResult.status: "success"`; modelwire sends `status` only for errors (success is
 *   the default) and only to models that take it;
 * - with a Claude profile modelwire always sends `inferenceConfig.maxTokens` (the profile's default);
 *   pydantic-ai sent none, so our `maxTokens` is removed when it is that default.
 * Long texts and the base64 bytes are read from the recording itself (they are inputs, not outputs).
 * The `url_input` cassettes start with the GET of the file (interaction 0, skipped): pydantic-ai then
 * sent the bytes inline, which is what the neutral input here holds (`inlineUrlParts` does the same).
 */
import { describe, expect, it } from "vitest";
import type { ContentPart } from "../../../src/core/content.ts";
import type { MessageInput } from "../../../src/core/message.ts";
import { type PreparedResponseFormat, readStructuredOutput } from "../../../src/core/structured-output.ts";
import type { ToolSpec } from "../../../src/core/tool-spec.ts";
import { anthropicModelProfile } from "../../../src/index.ts";
import {
  type BedrockConverseRequestInput,
  buildBedrockConverseRequest,
  type ConverseResponse,
  parseBedrockConverseResponse,
} from "../../../src/protocols/bedrock-converse/index.ts";
import { outputToolAnswer } from "../../../src/protocols/output-tool.ts";
import { loadFixture } from "../../helpers/fixtures.ts";

/** Recorded JSON, read loosely (the recordings are the reference, not typed input). */
// biome-ignore lint/suspicious/noExplicitAny: recorded request bodies are walked by hand
type Json = Record<string, any>;

const CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
const LLAMA = "us.meta.llama4-maverick-17b-instruct-v1:0";
const PIXTRAL = "us.mistral.pixtral-large-2502-v1:0";
const CHATBOT = "You are a helpful chatbot.";

interface Recorded {
  request: Json;
  response: ConverseResponse;
}

async function recorded(file: string, index: number): Promise<Recorded> {
  const fixture = await loadFixture(`bedrock/pydantic-ai__${file}.yaml`);
  const interaction = fixture.interactions[index]!;
  expect(interaction.request?.method).toBe("POST");
  const body = interaction.request!.body;
  return {
    request: typeof body === "string" ? JSON.parse(body) : (body as Json),
    response: interaction.json as ConverseResponse,
  };
}

/** The recorded request without what pydantic-ai adds and modelwire does not send (see the module). */
function normalized(request: Json): Json {
  const copy = structuredClone(request);
  if (copy.inferenceConfig && Object.keys(copy.inferenceConfig).length === 0) delete copy.inferenceConfig;
  if (Array.isArray(copy.system) && copy.system.length === 0) delete copy.system;
  for (const message of copy.messages) {
    for (const block of message.content) {
      if (block.toolResult?.status === "success") delete block.toolResult.status;
    }
  }
  return copy;
}

function build(input: Partial<BedrockConverseRequestInput> & { messages: MessageInput[]; model: string }) {
  const claude = input.model.includes("anthropic.claude-sonnet");
  const profile = claude ? anthropicModelProfile(input.model) : undefined;
  const built = buildBedrockConverseRequest({
    tools: [],
    options: {},
    anthropicProfile: profile,
    ...input,
  });
  const body = structuredClone(built.body) as Json;
  if (profile && body.inferenceConfig?.maxTokens === profile.defaultMaxTokens) {
    delete body.inferenceConfig.maxTokens;
    if (Object.keys(body.inferenceConfig).length === 0) delete body.inferenceConfig;
  }
  return { ...built, body };
}

const CONTEXT = (model: string) => ({ provider: "bedrock", model, origin: "bedrock" });

/** A recorded block's inline bytes. */
const bytesOf = (block: Json): string => (block.image ?? block.document).source.bytes;

const EMPTY_TOOL: ToolSpec[] = [
  { name: "get_file", parameters: { additionalProperties: false, properties: {}, type: "object" } },
];

describe("Bedrock Converse media and structured output on the pydantic-ai recordings", () => {
  it("test_image_url_input (nova-pro): a jpeg image as bytes", async () => {
    const { request, response } = await recorded("test_image_url_input", 1);
    const image = request.messages[0].content[1];
    const built = build({
      model: "us.amazon.nova-pro-v1:0",
      messages: [
        { role: "system", content: CHATBOT },
        {
          role: "user",
          content: [
            { type: "text", text: "What is this vegetable?" },
            { type: "image", mediaType: "image/jpeg", data: bytesOf(image) },
          ],
        },
      ],
    });
    expect(built.refused).toBeUndefined();
    expect(built.warnings).toEqual([]);
    expect(built.body).toEqual(normalized(request));
    const parsed = parseBedrockConverseResponse(response, CONTEXT("us.amazon.nova-pro-v1:0"));
    expect(parsed.message.content).toMatch(/^The image shows a potato\./);
    expect(parsed.stopReason).toBe("stop");
    expect(parsed.usage).toEqual({ inputTokens: 1837, outputTokens: 82 });
  });

  it("test_bedrock_cache_messages_with_image_as_last_content: a cachePoint right after an image", async () => {
    const first = await recorded("test_bedrock_cache_messages_with_image_as_last_content", 0);
    const second = await recorded("test_bedrock_cache_messages_with_image_as_last_content", 1);
    const [long, ask, image] = first.request.messages[0].content;
    const user: MessageInput = {
      role: "user",
      content: [
        { type: "text", text: long.text },
        { type: "text", text: ask.text },
        { type: "image", mediaType: "image/jpeg", data: bytesOf(image) },
      ],
    };
    const system: MessageInput = { role: "system", content: first.request.system[0].text };
    const one = build({
      model: CLAUDE,
      messages: [system, user],
      options: { cache: { breakpoints: [{ message: 0 }] } },
    });
    expect(one.warnings).toEqual([]);
    expect(one.body).toEqual(normalized(first.request));
    const answer = parseBedrockConverseResponse(first.response, CONTEXT(CLAUDE));
    expect(answer.usage).toEqual({
      inputTokens: 3,
      outputTokens: 288,
      cachedInputTokens: 0,
      cacheWriteTokens: 2074,
    });

    const two = build({
      model: CLAUDE,
      messages: [system, user, answer.message, { role: "user", content: "How large is the image?" }],
      options: { cache: { breakpoints: [{ message: 2 }] } },
    });
    expect(two.body).toEqual(normalized(second.request));
    const again = parseBedrockConverseResponse(second.response, CONTEXT(CLAUDE));
    expect(again.usage.cachedInputTokens).toBe(2074);
    expect(again.message.content).toContain("597 × 597 pixels");
  });

  it("test_bedrock_cache_messages_with_document_as_last_content: the cachePoint goes before the trailing document", async () => {
    const first = await recorded("test_bedrock_cache_messages_with_document_as_last_content", 0);
    const second = await recorded("test_bedrock_cache_messages_with_document_as_last_content", 1);
    const blocks = first.request.messages[0].content;
    const user: MessageInput = {
      role: "user",
      content: [
        { type: "text", text: blocks[0].text },
        { type: "text", text: blocks[1].text },
        { type: "file", mediaType: "text/plain", data: bytesOf(blocks[2]) },
        { type: "text", text: blocks[3].text },
        { type: "file", mediaType: "text/plain", data: bytesOf(blocks[5]) },
      ],
    };
    expect(blocks[4]).toEqual({ cachePoint: { type: "default" } });
    const system: MessageInput = { role: "system", content: first.request.system[0].text };
    const one = build({
      model: CLAUDE,
      messages: [system, user],
      options: { cache: { breakpoints: [{ message: 0 }] } },
    });
    expect(one.body).toEqual(normalized(first.request));
    expect(one.warnings).toEqual([
      "cache checkpoint at messages[0]: placed before the documents that end the message (Bedrock takes none right after a document)",
    ]);
    const answer = parseBedrockConverseResponse(first.response, CONTEXT(CLAUDE));
    expect(answer.usage.cacheWriteTokens).toBe(1712);

    const two = build({
      model: CLAUDE,
      messages: [system, user, answer.message, { role: "user", content: "How long is the doc?" }],
      options: { cache: { breakpoints: [{ message: 2 }] } },
    });
    expect(two.body).toEqual(normalized(second.request));
    expect(parseBedrockConverseResponse(second.response, CONTEXT(CLAUDE)).usage.cachedInputTokens).toBe(1712);
  });

  it("test_document_url_input (claude-v2): a PDF document named Document 1", async () => {
    const { request, response } = await recorded("test_document_url_input", 1);
    const built = build({
      model: "anthropic.claude-v2",
      messages: [
        { role: "system", content: CHATBOT },
        {
          role: "user",
          content: [
            { type: "text", text: "What is the main content on this document?" },
            { type: "file", mediaType: "application/pdf", data: bytesOf(request.messages[0].content[1]) },
          ],
        },
      ],
    });
    expect(built.warnings).toEqual([]);
    expect(built.body).toEqual(normalized(request));
    expect(parseBedrockConverseResponse(response, CONTEXT("anthropic.claude-v2")).message.content).toContain(
      '"Dummy PDF file"',
    );
  });

  it("test_text_document_url_input (claude-v2): a text/plain file as a txt document", async () => {
    const { request, response } = await recorded("test_text_document_url_input", 1);
    const built = build({
      model: "anthropic.claude-v2",
      messages: [
        { role: "system", content: CHATBOT },
        {
          role: "user",
          content: [
            { type: "text", text: "What is the main content on this document?" },
            { type: "file", mediaType: "text/plain", data: bytesOf(request.messages[0].content[1]) },
          ],
        },
      ],
    });
    expect(built.body).toEqual(normalized(request));
    expect(parseBedrockConverseResponse(response, CONTEXT("anthropic.claude-v2")).stopReason).toBe("stop");
  });

  for (const [kind, part] of [
    ["meta_image", (data: string): ContentPart => ({ type: "image", mediaType: "image/jpeg", data })],
    ["meta_document", (data: string): ContentPart => ({ type: "file", mediaType: "application/pdf", data })],
  ] as const) {
    it(`test_bedrock_media_kind_delivered_in_tool_result[${kind}] (Llama 4): the ${kind.slice(5)} inside toolResult`, async () => {
      const file = `test_bedrock_media_kind_delivered_in_tool_result_${kind}_`;
      const first = await recorded(file, 0);
      const second = await recorded(file, 1);
      const ask: MessageInput = { role: "user", content: first.request.messages[0].content[0].text };
      const one = build({ model: LLAMA, messages: [ask], tools: EMPTY_TOOL });
      expect(one.body).toEqual(normalized(first.request));
      const call = parseBedrockConverseResponse(first.response, CONTEXT(LLAMA));
      expect(call.stopReason).toBe("tool-calls");
      expect(call.message.toolCalls).toEqual([
        expect.objectContaining({
          id: first.response.output!.message!.content![0]!.toolUse!.toolUseId,
          name: "get_file",
          arguments: {},
        }),
      ]);

      const media = second.request.messages[2].content[0].toolResult.content[0];
      const two = build({
        model: LLAMA,
        tools: EMPTY_TOOL,
        messages: [
          ask,
          call.message,
          {
            role: "tool",
            toolResults: [{ callId: call.message.toolCalls[0]!.id, content: [part(bytesOf(media))] }],
          },
        ],
      });
      expect(two.warnings).toEqual([]);
      expect(two.body).toEqual(normalized(second.request));
      expect(
        parseBedrockConverseResponse(second.response, CONTEXT(LLAMA)).message.content.length,
      ).toBeGreaterThan(0);
    });
  }

  it("test_bedrock_mistral_tool_return_image_accepted (Pixtral): tool results alone in their turn, a '.' turn before the rest", async () => {
    const { request, response } = await recorded("test_bedrock_mistral_tool_return_image_accepted", 0);
    const last = request.messages[4].content;
    const built = build({
      model: PIXTRAL,
      tools: [{ name: "get_photo", parameters: EMPTY_TOOL[0]!.parameters }],
      messages: [
        { role: "user", content: "show me the photo" },
        {
          role: "assistant",
          content: "",
          toolCalls: [{ id: "getphoto1", name: "get_photo", arguments: {} }],
        },
        {
          role: "tool",
          toolResults: [
            {
              callId: "getphoto1",
              content: [
                { type: "text", text: "Here it is:" },
                { type: "text", text: "See file 241a70." },
              ],
            },
          ],
        },
        {
          role: "user",
          content: [
            { type: "text", text: last[0].text },
            { type: "image", mediaType: "image/jpeg", data: bytesOf(last[1]) },
            { type: "text", text: last[2].text },
          ],
        },
      ],
    });
    expect(built.body).toEqual(normalized(request));
    expect(built.warnings).toEqual([
      'messages[2]: this model takes nothing beside tool results in a user turn; the rest sent in a user turn of its own after a "." assistant turn',
    ]);
    expect(parseBedrockConverseResponse(response, CONTEXT(PIXTRAL)).message.content).toBe("Kiwi");
  });

  it("test_bedrock_anthropic_tool_result_followed_by_document_accepted (Claude): no document beside a toolResult", async () => {
    const { request, response } = await recorded(
      "test_bedrock_anthropic_tool_result_followed_by_document_accepted",
      0,
    );
    const built = build({
      model: CLAUDE,
      tools: [{ name: "get_expenses", parameters: EMPTY_TOOL[0]!.parameters }],
      options: { toolChoice: "auto" },
      messages: [
        { role: "user", content: "show me my expenses" },
        { role: "assistant", content: "", toolCalls: [{ id: "t1", name: "get_expenses", arguments: {} }] },
        { role: "tool", toolResults: [{ callId: "t1", content: "ok" }] },
        {
          role: "user",
          content: [
            { type: "text", text: "What is in this document?" },
            { type: "file", mediaType: "text/plain", data: bytesOf(request.messages[4].content[1]) },
          ],
        },
      ],
    });
    expect(built.body).toEqual(normalized(request));
    expect(built.warnings).toEqual([
      'messages[2]: this model takes no document beside tool results in a user turn; the rest sent in a user turn of its own after a "." assistant turn',
    ]);
    expect(parseBedrockConverseResponse(response, CONTEXT(CLAUDE)).message.content).toContain(
      "Dummy TXT file",
    );
  });

  it("test_bedrock_model_structured_output (nova-micro): the forced output tool, toolChoice any, the object read", async () => {
    const file = "test_bedrock_model_structured_output";
    const rounds = [await recorded(file, 0), await recorded(file, 1), await recorded(file, 2)];
    const [temperature, finalResult] = rounds[0]!.request.toolConfig.tools.map((tool: Json) => tool.toolSpec);
    const tools: ToolSpec[] = [
      {
        name: temperature.name,
        description: temperature.description,
        parameters: temperature.inputSchema.json,
      },
    ];
    const format: PreparedResponseFormat = {
      type: "json_schema",
      name: "final_result",
      schema: finalResult.inputSchema.json,
      strict: true,
      description: finalResult.description,
    };
    const model = "us.amazon.nova-micro-v1:0";
    const history: MessageInput[] = [
      { role: "system", content: CHATBOT },
      { role: "user", content: "What was the temperature in London 1st January 2022?" },
    ];
    for (const [round, { request, response }] of rounds.entries()) {
      const built = build({ model, messages: history, tools, format });
      expect(built.outputTool).toBe("final_result");
      expect(built.refused).toBeUndefined();
      expect(built.body).toEqual(normalized(request));
      const parsed = parseBedrockConverseResponse(response, CONTEXT(model));
      const answer = outputToolAnswer(parsed, "final_result");
      if (round === 0) {
        expect(answer.message.toolCalls.map((call) => call.name)).toEqual(["temperature"]);
        history.push(answer.message, {
          role: "tool",
          toolResults: [{ callId: answer.message.toolCalls[0]!.id, content: "30°C" }],
        });
      } else if (round === 1) {
        // Nova answered in text although the choice was forced; pydantic-ai asked again.
        expect(answer.message.toolCalls).toEqual([]);
        await expect(readStructuredOutput(answer, format)).rejects.toThrow(/not JSON/);
        history.push(answer.message, {
          role: "user",
          content: rounds[2]!.request.messages[4].content[0].text,
        });
      } else {
        expect(answer.stopReason).toBe("stop");
        expect(answer.message.toolCalls).toEqual([]);
        const read = await readStructuredOutput(answer, format);
        expect(read.object).toEqual({ city: "London", date: "2022-01-01", temperature: "30°C" });
      }
    }
  });
});
