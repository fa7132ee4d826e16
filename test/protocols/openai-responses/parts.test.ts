/**
 * Images and files in Responses requests: every part maps to `input_text` / `input_image` /
 * `input_file` where the API takes it (user messages, function-call outputs, results answering no call),
 * and every part it cannot take is refused naming its field — a `ValidationError` from the provider before
 * any request. System and assistant content take text only: their images and files are left out with a
 * warning naming them.
 */
import { describe, expect, it } from "vitest";
import type { ContentPart, MessageInput } from "../../../src/index.ts";
import { ValidationError } from "../../../src/index.ts";
import {
  convertToOpenAIResponsesInput,
  OPENAI_RESPONSES_FILE_TYPES,
  type OpenAIResponsesReplayTarget,
} from "../../../src/protocols/openai-responses/index.ts";
import { openaiResponses } from "../../../src/providers/openai-responses.ts";

const TARGET: OpenAIResponsesReplayTarget = { model: "gpt-4.1", origin: "openai", store: false };
const PNG = "iVBORw0KGgo=";
const PDF = "JVBERi0xLjQK";

function convert(messages: unknown[]) {
  return convertToOpenAIResponsesInput(messages, TARGET);
}

/** A user message holding `parts`, and the content it is sent with. */
function userContent(parts: unknown[]) {
  const converted = convert([{ role: "user", content: parts }]);
  return { ...converted, content: (converted.input[0] as { content?: unknown } | undefined)?.content };
}

/** The assistant turn that calls `c1`, then the result `content`. */
function withResult(content: unknown, isError = false): unknown[] {
  return [
    { role: "user", content: "look it up" },
    { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "screenshot", arguments: {} }] },
    { role: "tool", toolResults: [{ callId: "c1", content, isError }] },
  ];
}

describe("Responses user content parts", () => {
  it("text-only content stays a string: a string as it is, text parts joined", () => {
    expect(convert([{ role: "user", content: "hi" }]).input).toStrictEqual([{ role: "user", content: "hi" }]);
    const parts = userContent([
      { type: "text", text: "one " },
      { type: "text", text: "two" },
    ]);
    expect(parts.content).toBe("one two");
    expect(parts.warnings).toStrictEqual([]);
    expect(parts.refused).toStrictEqual([]);
  });

  it("an inline image is input_image with a data: URL, detail auto; text parts around it are input_text", () => {
    const { content, warnings, refused } = userContent([
      { type: "text", text: "What is this?" },
      { type: "image", mediaType: "image/png", data: PNG },
      { type: "text", text: "  " },
      { type: "text", text: "Be brief." },
    ]);
    expect(content).toStrictEqual([
      { type: "input_text", text: "What is this?" },
      { type: "input_image", image_url: `data:image/png;base64,${PNG}`, detail: "auto" },
      { type: "input_text", text: "Be brief." },
    ]);
    expect(warnings).toStrictEqual([]);
    expect(refused).toStrictEqual([]);
  });

  it("an image by https URL is passed as the URL, never fetched; a data: URL is read as inline", () => {
    const { content } = userContent([
      { type: "image", url: "https://example.com/cat.webp" },
      { type: "image", url: `data:image/jpeg;base64,${PNG}` },
    ]);
    expect(content).toStrictEqual([
      { type: "input_image", image_url: "https://example.com/cat.webp", detail: "auto" },
      { type: "input_image", image_url: `data:image/jpeg;base64,${PNG}`, detail: "auto" },
    ]);
  });

  it("an inline file is input_file with file_data and its filename, else one named from its media type", () => {
    const { content } = userContent([
      { type: "file", mediaType: "application/pdf", data: PDF, filename: "invoice.pdf" },
      { type: "file", mediaType: "application/pdf", data: PDF },
      { type: "file", mediaType: "text/plain", data: "aGk=" },
      { type: "file", mediaType: "text/x-rust", data: "aGk=" },
      {
        type: "file",
        mediaType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        data: PDF,
      },
    ]);
    expect(content).toStrictEqual([
      { type: "input_file", file_data: `data:application/pdf;base64,${PDF}`, filename: "invoice.pdf" },
      { type: "input_file", file_data: `data:application/pdf;base64,${PDF}`, filename: "file-1.pdf" },
      { type: "input_file", file_data: "data:text/plain;base64,aGk=", filename: "file-2.txt" },
      { type: "input_file", file_data: "data:text/x-rust;base64,aGk=", filename: "file-3.txt" },
      {
        type: "input_file",
        file_data: `data:application/vnd.openxmlformats-officedocument.spreadsheetml.sheet;base64,${PDF}`,
        filename: "file-4.xlsx",
      },
    ]);
  });

  it("a file by https URL is input_file file_url (with its filename when given)", () => {
    const { content } = userContent([
      { type: "file", url: "https://example.com/a.pdf" },
      { type: "file", url: "https://example.com/b", mediaType: "application/pdf", filename: "b.pdf" },
    ]);
    expect(content).toStrictEqual([
      { type: "input_file", file_url: "https://example.com/a.pdf" },
      { type: "input_file", file_url: "https://example.com/b", filename: "b.pdf" },
    ]);
  });

  it("a file whose media type is an image goes as input_image", () => {
    const { content } = userContent([
      { type: "file", mediaType: "image/gif", data: PNG, filename: "a.gif" },
      { type: "file", url: "https://example.com/x", mediaType: "image/png" },
    ]);
    expect(content).toStrictEqual([
      { type: "input_image", image_url: `data:image/gif;base64,${PNG}`, detail: "auto" },
      { type: "input_image", image_url: "https://example.com/x", detail: "auto" },
    ]);
  });

  it("every accepted file type has an extension the API knows", () => {
    for (const [mediaType, extension] of Object.entries(OPENAI_RESPONSES_FILE_TYPES)) {
      expect(extension, mediaType).toMatch(/^[a-z]{2,4}$/);
    }
    expect(OPENAI_RESPONSES_FILE_TYPES["application/pdf"]).toBe("pdf");
  });
});

describe("Responses parts the API cannot take are refused, naming the field", () => {
  it("an image type the API does not read", () => {
    const { refused, content } = userContent([
      { type: "text", text: "see" },
      { type: "image", mediaType: "image/tiff", data: PNG },
      { type: "image", url: "https://example.com/a.svg", mediaType: "image/svg+xml" },
      { type: "file", mediaType: "image/heic", data: PNG },
    ]);
    expect(refused).toStrictEqual([
      {
        path: "messages[0].content[1]",
        message: "the Responses API takes PNG, JPEG, WEBP and non-animated GIF images, not image/tiff",
      },
      {
        path: "messages[0].content[2]",
        message: "the Responses API takes PNG, JPEG, WEBP and non-animated GIF images, not image/svg+xml",
      },
      {
        path: "messages[0].content[3]",
        message: "the Responses API takes PNG, JPEG, WEBP and non-animated GIF images, not image/heic",
      },
    ]);
    expect(content).toStrictEqual([{ type: "input_text", text: "see" }]);
  });

  it("a file type the API does not read (inline or by URL)", () => {
    const { refused } = userContent([
      { type: "file", mediaType: "application/zip", data: PDF },
      { type: "file", url: "https://example.com/a.mp3", mediaType: "audio/mpeg" },
    ]);
    expect(refused.map((issue) => issue.path)).toStrictEqual([
      "messages[0].content[0]",
      "messages[0].content[1]",
    ]);
    expect(refused[0]!.message).toMatch(/reads PDF, text and code.*not application\/zip$/);
    expect(refused[1]!.message).toMatch(/not audio\/mpeg$/);
  });

  it("gs:// and s3:// URLs: the API fetches http(s) only, so the caller must download them", () => {
    const { refused } = userContent([
      { type: "image", url: "gs://bucket/a.png" },
      { type: "file", url: "s3://bucket/a.pdf", mediaType: "application/pdf" },
    ]);
    expect(refused).toStrictEqual([
      {
        path: "messages[0].content[0]",
        message:
          "the Responses API fetches http(s) URLs only, not gs:// URLs: download the image and send it inline (inlineUrlParts)",
      },
      {
        path: "messages[0].content[1]",
        message:
          "the Responses API fetches http(s) URLs only, not s3:// URLs: download the file and send it inline (inlineUrlParts)",
      },
    ]);
  });

  it("a refused part in a tool result names the result's content", () => {
    const { refused } = convert(
      withResult([
        { type: "text", text: "the page" },
        { type: "image", mediaType: "image/bmp", data: PNG },
      ]),
    );
    expect(refused.map((issue) => issue.path)).toStrictEqual(["messages[2].toolResults[0].content[1]"]);
  });

  it("a failed tool's refused part is named at its own position (the Error: marker is not counted)", () => {
    const { refused, input } = convert(
      withResult([{ type: "image", mediaType: "image/bmp", data: PNG }], true),
    );
    expect(refused.map((issue) => issue.path)).toStrictEqual(["messages[2].toolResults[0].content[0]"]);
    // The part is not sent (nor is the request): only the marker is left.
    expect(input.at(-1)).toStrictEqual({
      type: "function_call_output",
      call_id: "c1",
      output: [{ type: "input_text", text: "Error:" }],
    });
  });

  it("a refused part of a result answering no call is named at its own position", () => {
    const { refused } = convert([
      {
        role: "tool",
        toolResults: [{ callId: "nobody", content: [{ type: "file", mediaType: "video/mp4", data: PDF }] }],
      },
    ]);
    expect(refused.map((issue) => issue.path)).toStrictEqual(["messages[0].toolResults[0].content[0]"]);
  });

  it("the provider raises the refusals as one ValidationError before any request", async () => {
    let requests = 0;
    const provider = openaiResponses({
      apiKey: "sk-test",
      model: "gpt-4.1",
      fetch: async () => {
        requests++;
        return Response.json({});
      },
    });
    const messages: MessageInput[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "hi" },
          { type: "image", url: "gs://bucket/a.png" },
          { type: "file", mediaType: "application/zip", data: PDF },
        ],
      },
    ];
    const error = await provider.complete(messages).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((issue) => issue.path)).toStrictEqual([
      "messages[0].content[1]",
      "messages[0].content[2]",
    ]);
    await expect(collectFirst(provider.stream(messages))).rejects.toBeInstanceOf(ValidationError);
    expect(requests).toBe(0);
  });
});

async function collectFirst(events: AsyncIterable<unknown>): Promise<void> {
  for await (const _event of events) return;
}

describe("Responses tool results with parts", () => {
  it("images and files go in function_call_output.output as input parts", () => {
    const parts: ContentPart[] = [
      { type: "text", text: "the screenshot:" },
      { type: "image", mediaType: "image/png", data: PNG },
      { type: "file", url: "https://example.com/log.txt", mediaType: "text/plain" },
    ];
    const { input, warnings, refused } = convert(withResult(parts));
    expect(input.at(-1)).toStrictEqual({
      type: "function_call_output",
      call_id: "c1",
      output: [
        { type: "input_text", text: "the screenshot:" },
        { type: "input_image", image_url: `data:image/png;base64,${PNG}`, detail: "auto" },
        { type: "input_file", file_url: "https://example.com/log.txt" },
      ],
    });
    expect(warnings).toStrictEqual([]);
    expect(refused).toStrictEqual([]);
  });

  it("a result of text parts is a string output, as a string result is", () => {
    const { input } = convert(
      withResult([
        { type: "text", text: "12" },
        { type: "text", text: "°C" },
      ]),
    );
    expect(input.at(-1)).toStrictEqual({ type: "function_call_output", call_id: "c1", output: "12°C" });
    expect(convert(withResult("sunny")).input.at(-1)).toStrictEqual({
      type: "function_call_output",
      call_id: "c1",
      output: "sunny",
    });
  });

  it("a failed tool's parts say Error: first", () => {
    const { input } = convert(withResult([{ type: "image", mediaType: "image/png", data: PNG }], true));
    expect(input.at(-1)).toStrictEqual({
      type: "function_call_output",
      call_id: "c1",
      output: [
        { type: "input_text", text: "Error:" },
        { type: "input_image", image_url: `data:image/png;base64,${PNG}`, detail: "auto" },
      ],
    });
    const text = convert(withResult([{ type: "text", text: "not found" }], true)).input.at(-1);
    expect(text).toStrictEqual({ type: "function_call_output", call_id: "c1", output: "Error: not found" });
  });

  it("a custom tool's output takes parts too", () => {
    const native = {
      protocol: "openai-responses",
      origin: "openai",
      model: "gpt-4.1",
      blocks: [{ type: "custom_tool_call", id: "ctc_1", call_id: "k1", name: "grammar", input: "x" }],
    };
    const { input } = convert([
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "k1", name: "grammar", arguments: { input: "x" } }],
        native,
      },
      {
        role: "tool",
        toolResults: [{ callId: "k1", content: [{ type: "image", url: "https://example.com/p.png" }] }],
      },
    ]);
    expect(input.at(-1)).toStrictEqual({
      type: "custom_tool_call_output",
      call_id: "k1",
      output: [{ type: "input_image", image_url: "https://example.com/p.png", detail: "auto" }],
    });
  });

  it("a result answering no call goes as user content and keeps its parts, after its header", () => {
    const { input, warnings } = convert([
      {
        role: "tool",
        toolResults: [
          {
            callId: "nobody",
            content: [{ type: "file", mediaType: "application/pdf", data: PDF, filename: "r.pdf" }],
          },
        ],
      },
    ]);
    expect(input).toStrictEqual([
      {
        role: "user",
        content: [
          { type: "input_text", text: "[tool result for call nobody]" },
          { type: "input_file", file_data: `data:application/pdf;base64,${PDF}`, filename: "r.pdf" },
        ],
      },
    ]);
    expect(warnings).toStrictEqual([
      'messages[0].toolResults[0]: tool result for "nobody" answers no call of the turn before it; sent as text',
    ]);
  });
});

describe("Responses content that takes text only", () => {
  it("a system message's images and files are left out of instructions, with a warning naming them", () => {
    const { instructions, warnings, refused } = convert([
      {
        role: "system",
        content: [
          { type: "text", text: "Be terse." },
          { type: "image", mediaType: "image/png", data: PNG },
        ],
      },
      { role: "user", content: "hi" },
    ]);
    expect(instructions).toBe("Be terse.");
    expect(warnings).toStrictEqual([
      "messages[0].content[1]: instructions take text only; the image is left out",
    ]);
    expect(refused).toStrictEqual([]);
  });

  it("an assistant message's images are left out with a warning; its text is kept", () => {
    const { input, warnings } = convert([
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Here it is" },
          { type: "image", mediaType: "image/png", data: PNG },
        ],
      },
      { role: "user", content: "thanks" },
    ]);
    expect(input[1]).toStrictEqual({ role: "assistant", content: "Here it is" });
    expect(warnings).toStrictEqual([
      "messages[1].content[1]: an assistant message takes text only; the image is left out",
    ]);
  });

  it("an invalid stored part is left out with a warning, the valid ones kept", () => {
    const { content, warnings } = userContent([
      { type: "image", mediaType: "image/png", data: "not base64!" },
      { type: "image", mediaType: "image/png", data: PNG },
    ]);
    expect(content).toStrictEqual([
      { type: "input_image", image_url: `data:image/png;base64,${PNG}`, detail: "auto" },
    ]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^messages\[0\]\.content\[0\]\.data: not a valid content part/);
  });
});
