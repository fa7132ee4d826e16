/**
 * Image and file parts → Anthropic `image` / `document` blocks: every source form, every refusal (each
 * naming its field), parts in tool results and in orphan results, assistant parts left out with a
 * warning, cache breakpoints on media blocks, and Bedrock InvokeModel (inline only).
 */
import { describe, expect, it } from "vitest";
import { bytesToBase64 } from "../../../src/core/base64.ts";
import type { CacheOption } from "../../../src/core/call-options.ts";
import type { ContentPart } from "../../../src/core/content.ts";
import type { MessageInput } from "../../../src/core/message.ts";
import type { ValidationIssue } from "../../../src/core/validation-error.ts";
import { anthropic, ValidationError } from "../../../src/index.ts";
import {
  type AnthropicBlock,
  type AnthropicRequestBody,
  anthropicPartBlock,
  buildAnthropicRequest,
} from "../../../src/protocols/anthropic-messages/index.ts";
import { buildBedrockInvokeRequest } from "../../../src/protocols/bedrock-invoke/index.ts";
import { anthropicModelProfile } from "../../../src/providers/anthropic-model-profiles.ts";

const MODEL = "claude-sonnet-4-5";
const PNG = "iVBORw0KGgo=";
const PDF = "JVBERi0xLjQK";
const utf8Base64 = (text: string) => bytesToBase64(new TextEncoder().encode(text));

function build(
  messages: readonly MessageInput[],
  cache: CacheOption = "off",
): { body: AnthropicRequestBody; warnings: string[]; refused: ValidationIssue[] | undefined } {
  const built = buildAnthropicRequest({
    messages,
    tools: [],
    options: { cache },
    target: { model: MODEL, origin: "anthropic" },
    profile: anthropicModelProfile(MODEL),
    stream: false,
  });
  return { body: built.body, warnings: built.warnings, refused: built.refused };
}

function userBlocks(content: ContentPart[]): {
  blocks: AnthropicBlock[];
  refused: ValidationIssue[] | undefined;
} {
  const { body, refused } = build([{ role: "user", content }]);
  return { blocks: body.messages[0]?.content ?? [], refused };
}

describe("parts in user messages", () => {
  it("text, base64 image, image URL, PDF, PDF URL and plain text, in order", () => {
    const { blocks, refused } = userBlocks([
      { type: "text", text: "Look" },
      { type: "image", mediaType: "image/png", data: PNG },
      { type: "image", url: "https://example.com/cat.jpg" },
      { type: "file", mediaType: "application/pdf", data: PDF, filename: "invoice.pdf" },
      { type: "file", url: "https://example.com/report.pdf" },
      { type: "file", mediaType: "text/plain", data: utf8Base64("héllo wörld ✓"), filename: "notes.txt" },
    ]);
    expect(refused).toBeUndefined();
    expect(blocks).toEqual([
      { type: "text", text: "Look" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
      { type: "image", source: { type: "url", url: "https://example.com/cat.jpg" } },
      {
        type: "document",
        source: { type: "base64", media_type: "application/pdf", data: PDF },
        title: "invoice.pdf",
      },
      { type: "document", source: { type: "url", url: "https://example.com/report.pdf" } },
      {
        type: "document",
        source: { type: "text", media_type: "text/plain", data: "héllo wörld ✓" },
        title: "notes.txt",
      },
    ]);
  });

  it("an image URL naming a readable media type and a PDF URL naming application/pdf are passed on", () => {
    const { blocks, refused } = userBlocks([
      { type: "image", url: "https://example.com/a", mediaType: "image/webp" },
      { type: "file", url: "https://example.com/b", mediaType: "application/pdf", filename: "b.pdf" },
    ]);
    expect(refused).toBeUndefined();
    expect(blocks).toEqual([
      { type: "image", source: { type: "url", url: "https://example.com/a" } },
      { type: "document", source: { type: "url", url: "https://example.com/b" }, title: "b.pdf" },
    ]);
  });

  const refusals: [string, ContentPart, RegExp][] = [
    [
      "an image type the API does not read",
      { type: "image", mediaType: "image/bmp", data: PNG },
      /image\/bmp is not one of them/,
    ],
    [
      "an image URL of an unreadable type",
      { type: "image", url: "https://x.test/a.tiff", mediaType: "image/tiff" },
      /image\/tiff/,
    ],
    [
      "an http image URL",
      { type: "image", url: "http://example.com/cat.jpg" },
      /scheme http: Anthropic fetches https URLs only; download it first \(inlineUrlParts\)/,
    ],
    ["a gs:// image URL", { type: "image", url: "gs://bucket/cat.jpg" }, /scheme gs:/],
    ["an s3:// document URL", { type: "file", url: "s3://bucket/a.pdf" }, /document URL with scheme s3:/],
    [
      "a file type other than PDF and text",
      { type: "file", mediaType: "application/msword", data: PDF },
      /application\/msword is neither/,
    ],
    [
      "a URL file of another type",
      { type: "file", url: "https://x.test/a.csv", mediaType: "text/csv" },
      /text\/csv is neither/,
    ],
    [
      "a plain-text file by URL",
      { type: "file", url: "https://x.test/a.txt", mediaType: "text/plain" },
      /plain-text documents inline only.*inlineUrlParts/,
    ],
    [
      "a text file that is not UTF-8",
      { type: "file", mediaType: "text/plain", data: bytesToBase64(new Uint8Array([0xff, 0xfe, 0x41])) },
      /not UTF-8/,
    ],
  ];
  for (const [name, part, message] of refusals) {
    it(`refuses ${name}, naming the part`, () => {
      const { blocks, refused } = userBlocks([{ type: "text", text: "see" }, part]);
      expect(refused).toEqual([{ path: "messages[0].content[1]", message: expect.stringMatching(message) }]);
      // Never sent in silence: the block is not in the body either.
      expect(blocks).toEqual([{ type: "text", text: "see" }]);
    });
  }

  it("a stored part that is not valid is left out with a warning, and the parts after it keep their positions", () => {
    const { blocks, refused } = userBlocks([
      { type: "image", mediaType: "image/png", data: "not base64!" },
      { type: "file", mediaType: "application/zip", data: PDF },
      { type: "text", text: "after" },
    ]);
    expect(refused).toEqual([
      { path: "messages[0].content[1]", message: expect.stringMatching(/application\/zip/) },
    ]);
    expect(blocks).toEqual([{ type: "text", text: "after" }]);
    const { warnings } = build([
      { role: "user", content: [{ type: "image", mediaType: "image/png", data: "!" }] },
    ]);
    expect(warnings).toEqual([
      expect.stringMatching(/^messages\[0\]\.content\[0\]\.data: not a valid content part/),
    ]);
  });

  it("the provider raises the refusals as one ValidationError before any request", async () => {
    let requests = 0;
    const provider = anthropic({
      apiKey: "sk-ant-test",
      model: MODEL,
      fetch: (async () => {
        requests++;
        return new Response("{}");
      }) as typeof fetch,
    });
    const content: ContentPart[] = [
      { type: "image", mediaType: "image/bmp", data: PNG },
      { type: "file", mediaType: "application/zip", data: PDF },
    ];
    const error = await provider.complete([{ role: "user", content }]).catch((caught: unknown) => caught);
    expect(ValidationError.is(error)).toBe(true);
    expect((error as ValidationError).issues.map((issue) => issue.path)).toEqual([
      "messages[0].content[0]",
      "messages[0].content[1]",
    ]);
    expect(requests).toBe(0);
  });

  it("a file whose media type is an image goes as an image block, as on every other protocol", () => {
    const refused: ValidationIssue[] = [];
    const context = { urlSources: true, refused };
    expect(
      anthropicPartBlock(
        { type: "file", mediaType: "image/png", data: "iVBORw0KGgo=", filename: "a.png" },
        "p",
        context,
      ),
    ).toEqual({ type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } });
    expect(
      anthropicPartBlock(
        { type: "file", mediaType: "image/jpeg", url: "https://x.test/a.jpg" },
        "q",
        context,
      ),
    ).toEqual({
      type: "image",
      source: { type: "url", url: "https://x.test/a.jpg" },
    });
    expect(
      anthropicPartBlock({ type: "file", mediaType: "image/tiff", data: "AAAA" }, "r", context),
    ).toBeUndefined();
    expect(refused.map((issue) => issue.path)).toEqual(["r"]);
  });

  it("anthropicPartBlock refuses URL sources where the endpoint takes none", () => {
    const refused: ValidationIssue[] = [];
    const block = anthropicPartBlock({ type: "image", url: "https://x.test/a.png" }, "here", {
      urlSources: false,
      refused,
    });
    expect(block).toBeUndefined();
    expect(refused).toEqual([
      { path: "here", message: expect.stringMatching(/not taken by this endpoint.*inlineUrlParts/) },
    ]);
  });
});

describe("parts in tool results", () => {
  const call = { id: "toolu_1", name: "screenshot", arguments: {} };
  const loop = (content: ContentPart[] | string, isError = false): MessageInput[] => [
    { role: "user", content: "Take a screenshot" },
    { role: "assistant", content: "", toolCalls: [call] },
    { role: "tool", toolResults: [{ callId: "toolu_1", content, isError }] },
  ];

  it("images and documents go inside tool_result.content, with the text, in order", () => {
    const { body, refused } = build(
      loop([
        { type: "text", text: "Here it is" },
        { type: "image", mediaType: "image/jpeg", data: PNG },
        { type: "file", mediaType: "application/pdf", data: PDF, filename: "page.pdf" },
      ]),
    );
    expect(refused).toBeUndefined();
    expect(body.messages[2]!.content).toEqual([
      {
        type: "tool_result",
        tool_use_id: "toolu_1",
        content: [
          { type: "text", text: "Here it is" },
          { type: "image", source: { type: "base64", media_type: "image/jpeg", data: PNG } },
          {
            type: "document",
            source: { type: "base64", media_type: "application/pdf", data: PDF },
            title: "page.pdf",
          },
        ],
      },
    ]);
  });

  it("text-only parts are joined into the string content; an error result keeps is_error", () => {
    const { body } = build(
      loop(
        [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
        true,
      ),
    );
    expect(body.messages[2]!.content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_1", content: "ab", is_error: true },
    ]);
  });

  it("a refused part in a tool result names the result's content field", () => {
    const { refused } = build(loop([{ type: "image", mediaType: "image/svg+xml", data: PNG }]));
    expect(refused).toEqual([
      { path: "messages[2].toolResults[0].content[0]", message: expect.stringMatching(/image\/svg\+xml/) },
    ]);
  });

  it("an orphan result (no matching call) is sent as text followed by its images and documents", () => {
    const { body, warnings } = build([
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
      {
        role: "tool",
        toolResults: [
          {
            callId: "toolu_gone",
            content: [
              { type: "text", text: "the chart" },
              { type: "image", mediaType: "image/png", data: PNG },
            ],
          },
        ],
      },
    ]);
    expect(warnings).toContainEqual(
      expect.stringMatching(/toolu_gone has no matching tool call.*sent as text/),
    );
    expect(body.messages[2]!.content).toEqual([
      { type: "text", text: "[tool result for call toolu_gone]\nthe chart" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
    ]);
  });

  it("an orphan result whose parts start with an image keeps the header and the image", () => {
    const { body } = build([
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
      {
        role: "tool",
        toolResults: [{ callId: "toolu_x", content: [{ type: "image", mediaType: "image/gif", data: PNG }] }],
      },
    ]);
    expect(body.messages[2]!.content).toEqual([
      { type: "text", text: "[tool result for call toolu_x]" },
      { type: "image", source: { type: "base64", media_type: "image/gif", data: PNG } },
    ]);
  });

  it("a result without a call id goes as its content's blocks, parts included, with a warning", () => {
    const { body, warnings } = build([
      {
        role: "user",
        content: "look",
        toolResults: [{ content: [{ type: "image", mediaType: "image/png", data: PNG }] } as never],
      },
    ]);
    expect(warnings).toContainEqual(
      "messages[0].toolResults[0]: tool result without a call id; sent as text",
    );
    expect(body.messages[0]!.content).toEqual([
      { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
      { type: "text", text: "look" },
    ]);
  });
});

describe("assistant messages and cache breakpoints", () => {
  it("an assistant message's parts are left out with a warning naming each (text only)", () => {
    const { body, warnings, refused } = build([
      { role: "user", content: "draw" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Here:" },
          { type: "image", mediaType: "image/png", data: PNG },
        ],
      },
      { role: "user", content: "thanks" },
    ]);
    expect(refused).toBeUndefined();
    expect(body.messages[1]!.content).toEqual([{ type: "text", text: "Here:" }]);
    expect(warnings).toContain(
      "messages[1].content[1]: an assistant message takes text only; the image is left out",
    );
  });

  it("an automatic cache breakpoint lands on an image that ends the message", () => {
    const { body } = build(
      [
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image", mediaType: "image/png", data: PNG },
          ],
        },
      ],
      "auto",
    );
    expect(body.messages[0]!.content.at(-1)).toEqual({
      type: "image",
      source: { type: "base64", media_type: "image/png", data: PNG },
      cache_control: { type: "ephemeral" },
    });
    expect(body.messages[0]!.content[0]).not.toHaveProperty("cache_control");
  });

  it("an explicit breakpoint with a ttl lands on a document, and on a tool_result holding an image", () => {
    const { body } = build(
      [
        { role: "user", content: [{ type: "file", mediaType: "application/pdf", data: PDF }] },
        { role: "assistant", content: "", toolCalls: [{ id: "t1", name: "shot", arguments: {} }] },
        {
          role: "tool",
          toolResults: [{ callId: "t1", content: [{ type: "image", url: "https://x.test/s.png" }] }],
        },
      ],
      { breakpoints: [{ message: 0 }, { message: 2 }], ttl: "1h" },
    );
    expect(body.messages[0]!.content[0]).toMatchObject({
      type: "document",
      cache_control: { type: "ephemeral", ttl: "1h" },
    });
    expect(body.messages[2]!.content[0]).toMatchObject({
      type: "tool_result",
      content: [{ type: "image", source: { type: "url", url: "https://x.test/s.png" } }],
      cache_control: { type: "ephemeral", ttl: "1h" },
    });
  });
});

describe("Bedrock InvokeModel (the same Messages blocks, inline only)", () => {
  const bedrock = (content: ContentPart[]) =>
    buildBedrockInvokeRequest({
      messages: [{ role: "user", content }],
      tools: [],
      options: { cache: "off" },
      model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
      profile: anthropicModelProfile("claude-sonnet-4-5"),
    });

  it("inline images and documents go as base64 and text sources", () => {
    const built = bedrock([
      { type: "image", mediaType: "image/png", data: PNG },
      { type: "file", mediaType: "text/plain", data: utf8Base64("plain") },
    ]);
    expect(built.refused).toBeUndefined();
    expect(built.body.messages[0]!.content).toEqual([
      { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
      { type: "document", source: { type: "text", media_type: "text/plain", data: "plain" } },
    ]);
  });

  it("URL parts are refused, saying to download them first", () => {
    const built = bedrock([
      { type: "image", url: "https://x.test/a.png" },
      { type: "file", url: "https://x.test/a.pdf" },
    ]);
    expect(built.refused).toEqual([
      { path: "messages[0].content[0]", message: expect.stringMatching(/Bedrock.*inlineUrlParts/) },
      { path: "messages[0].content[1]", message: expect.stringMatching(/Bedrock.*inlineUrlParts/) },
    ]);
  });
});
