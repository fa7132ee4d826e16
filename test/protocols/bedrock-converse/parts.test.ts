/**
 * Images and files on Converse: every format mapping, every refusal and warning path (each naming its
 * field), document names, media in tool results per model, orphan results keeping their parts, the
 * split of tool results from what a model rejects beside them, and cache points after media.
 */
import { describe, expect, it } from "vitest";
import type { ContentPart } from "../../../src/core/content.ts";
import type { MessageInput } from "../../../src/core/message.ts";
import { anthropicModelProfile } from "../../../src/index.ts";
import {
  buildBedrockConverseRequest,
  CONVERSE_DOCUMENT_FORMATS,
  CONVERSE_IMAGE_FORMATS,
  DOCUMENT_TEXT,
  RESULTS_SEPARATOR,
} from "../../../src/protocols/bedrock-converse/index.ts";

const CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
const NOVA = "us.amazon.nova-pro-v1:0";
const QWEN = "qwen.qwen3-vl-235b-a22b";
const PIXTRAL = "us.mistral.pixtral-large-2502-v1:0";
const DATA = "aGVsbG8=";

function build(
  messages: MessageInput[],
  model = NOVA,
  cache?: Parameters<typeof buildBedrockConverseRequest>[0]["options"]["cache"],
) {
  return buildBedrockConverseRequest({
    messages,
    tools: [],
    options: cache === undefined ? {} : { cache },
    model,
    anthropicProfile: model === CLAUDE ? anthropicModelProfile(CLAUDE) : undefined,
  });
}

const userWith = (...parts: ContentPart[]): MessageInput[] => [
  { role: "user", content: [{ type: "text", text: "look" }, ...parts] },
];

describe("Converse image and document blocks", () => {
  it("maps every image media type Bedrock lists to its format, as bytes", () => {
    for (const [mediaType, format] of Object.entries(CONVERSE_IMAGE_FORMATS)) {
      const built = build(userWith({ type: "image", mediaType, data: DATA }));
      expect(built.refused).toBeUndefined();
      expect(built.body.messages[0]!.content[1]).toEqual({ image: { format, source: { bytes: DATA } } });
    }
    expect(Object.values(CONVERSE_IMAGE_FORMATS).sort()).toEqual(["gif", "jpeg", "jpeg", "png", "webp"]);
  });

  it("maps every document media type Bedrock lists to its format, named Document N", () => {
    const entries = Object.entries(CONVERSE_DOCUMENT_FORMATS);
    expect(entries.map(([, format]) => format).sort()).toEqual([
      "csv",
      "doc",
      "docx",
      "html",
      "md",
      "pdf",
      "txt",
      "xls",
      "xlsx",
    ]);
    const built = build(
      userWith(...entries.map(([mediaType]): ContentPart => ({ type: "file", mediaType, data: DATA }))),
    );
    expect(built.refused).toBeUndefined();
    expect(built.body.messages[0]!.content.slice(1)).toEqual(
      entries.map(([, format], index) => ({
        document: { format, name: `Document ${index + 1}`, source: { bytes: DATA } },
      })),
    );
  });

  it("a file whose media type is an image is an image block", () => {
    const built = build(userWith({ type: "file", mediaType: "image/png", data: DATA, filename: "a.png" }));
    expect(built.body.messages[0]!.content[1]).toEqual({ image: { format: "png", source: { bytes: DATA } } });
  });

  it("refuses media types outside Bedrock's lists, naming the field", () => {
    const built = build([
      { role: "user", content: "first" },
      { role: "assistant", content: "ok" },
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "image", mediaType: "image/tiff", data: DATA },
          { type: "file", mediaType: "application/zip", data: DATA },
        ],
      },
    ]);
    expect(built.refused).toEqual([
      {
        path: "messages[2].content[1]",
        message: "Bedrock Converse takes png, jpeg, gif and webp images, not image/tiff",
      },
      {
        path: "messages[2].content[2]",
        message:
          "Bedrock Converse takes documents as pdf, csv, doc, docx, xls, xlsx, html, txt or md, not application/zip",
      },
    ]);
  });

  it("refuses https and gs:// URLs, pointing at inlineUrlParts", () => {
    const built = build(
      userWith(
        { type: "image", url: "https://example.com/a.png" },
        { type: "file", url: "gs://bucket/a.pdf" },
      ),
    );
    expect(built.refused?.map((issue) => issue.path)).toEqual([
      "messages[0].content[1]",
      "messages[0].content[2]",
    ]);
    expect(built.refused?.[0]?.message).toContain("not https URLs; download it first (inlineUrlParts)");
    expect(built.refused?.[1]?.message).toContain("not gs URLs");
  });

  it("passes s3:// URLs as s3Location, the format from the media type or the extension", () => {
    const built = build(
      userWith(
        { type: "image", url: "s3://bucket/photo.JPG" },
        { type: "file", url: "s3://bucket/report", mediaType: "application/pdf", filename: "report.pdf" },
        { type: "file", url: "s3://bucket/notes.md?versionId=3" },
      ),
    );
    expect(built.refused).toBeUndefined();
    expect(built.body.messages[0]!.content.slice(1)).toEqual([
      { image: { format: "jpeg", source: { s3Location: { uri: "s3://bucket/photo.JPG" } } } },
      { document: { format: "pdf", name: "report", source: { s3Location: { uri: "s3://bucket/report" } } } },
      {
        document: {
          format: "md",
          name: "Document 2",
          source: { s3Location: { uri: "s3://bucket/notes.md?versionId=3" } },
        },
      },
    ]);
  });

  it("refuses an s3:// URL whose format cannot be told", () => {
    const built = build(userWith({ type: "file", url: "s3://bucket/blob" }));
    expect(built.refused).toEqual([
      {
        path: "messages[0].content[1]",
        message: "the document's format cannot be told from its URL; give the part a mediaType",
      },
    ]);
  });
});

describe("document names", () => {
  const named = (...filenames: (string | undefined)[]) =>
    build(
      userWith(
        ...filenames.map(
          (filename): ContentPart => ({
            type: "file",
            mediaType: "application/pdf",
            data: DATA,
            ...(filename === undefined ? {} : { filename }),
          }),
        ),
      ),
    );
  const names = (built: ReturnType<typeof build>) =>
    built.body.messages[0]!.content.slice(1).map((block) => (block.document as { name: string }).name);

  it("keeps a valid filename without its extension, silently", () => {
    const built = named("Q3 report (final) [v2].pdf");
    expect(names(built)).toEqual(["Q3 report (final) [v2]"]);
    expect(built.warnings).toEqual([]);
  });

  it("replaces characters Bedrock does not allow and collapses whitespace, with a warning naming the part", () => {
    const built = named("my_report.v2  \t draft.pdf");
    expect(names(built)).toEqual(["my-report-v2 draft"]);
    expect(built.warnings).toEqual([
      expect.stringMatching(
        /^messages\[0\]\.content\[1\]: document name "my_report\.v2 {2}\\t draft\.pdf" sent as "my-report-v2 draft"/,
      ),
    ]);
  });

  it("cuts names at 200 characters", () => {
    const built = named(`${"a".repeat(250)}.pdf`);
    expect(names(built)[0]).toHaveLength(200);
    expect(built.warnings).toHaveLength(1);
  });

  it("makes names unique in the request, across messages, with a warning", () => {
    const built = build([
      {
        role: "user",
        content: [
          { type: "text", text: "one" },
          { type: "file", mediaType: "text/plain", data: DATA, filename: "a.txt" },
        ],
      },
      { role: "assistant", content: "ok" },
      {
        role: "user",
        content: [
          { type: "text", text: "two" },
          { type: "file", mediaType: "text/plain", data: DATA, filename: "a.txt" },
          { type: "file", mediaType: "text/plain", data: DATA },
          { type: "file", mediaType: "text/plain", data: DATA, filename: "Document 3.txt" },
        ],
      },
    ]);
    const docs = built.body.messages.flatMap((message) =>
      message.content.flatMap((block) => (block.document ? [(block.document as { name: string }).name] : [])),
    );
    expect(docs).toEqual(["a", "a (2)", "Document 3", "Document 3 (2)"]);
    expect(built.warnings).toEqual([
      expect.stringContaining('messages[2].content[1]: document name "a.txt" sent as "a (2)"'),
      expect.stringContaining(
        'messages[2].content[3]: document name "Document 3.txt" sent as "Document 3 (2)"',
      ),
    ]);
  });

  it("a filename with nothing usable gets the default name, with a warning", () => {
    const built = named("???.pdf");
    expect(names(built)).toEqual(["---"]);
    const empty = named(" .pdf");
    expect(names(empty)).toEqual(["Document 1"]);
    expect(empty.warnings).toHaveLength(1);
  });

  it("adds a text block to a user turn that has a document and no text", () => {
    const built = build([
      { role: "user", content: [{ type: "file", mediaType: "application/pdf", data: DATA }] },
    ]);
    expect(built.body.messages[0]!.content).toEqual([
      { text: DOCUMENT_TEXT },
      { document: { format: "pdf", name: "Document 1", source: { bytes: DATA } } },
    ]);
    expect(built.warnings).toEqual([expect.stringContaining("a user turn holds a document and no text")]);
  });
});

describe("media in tool results", () => {
  const history = (content: ContentPart[], extra: MessageInput[] = []): MessageInput[] => [
    { role: "user", content: "go" },
    { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "shot", arguments: {} }] },
    { role: "tool", toolResults: [{ callId: "c1", content }] },
    ...extra,
  ];
  const withTools = (messages: MessageInput[], model: string) =>
    buildBedrockConverseRequest({
      messages,
      tools: [{ name: "shot", parameters: { type: "object" } }],
      options: {},
      model,
      anthropicProfile: model === CLAUDE ? anthropicModelProfile(CLAUDE) : undefined,
    });
  const image: ContentPart = { type: "image", mediaType: "image/png", data: DATA };
  const pdf: ContentPart = { type: "file", mediaType: "application/pdf", data: DATA, filename: "r.pdf" };

  it("Claude takes images and documents inside toolResult, beside text", () => {
    const built = withTools(history([{ type: "text", text: "here" }, image, pdf]), CLAUDE);
    expect(built.warnings).toEqual([]);
    expect(built.body.messages[2]!.content).toEqual([
      {
        toolResult: {
          toolUseId: "c1",
          content: [
            { text: "here" },
            { image: { format: "png", source: { bytes: DATA } } },
            { document: { format: "pdf", name: "r", source: { bytes: DATA } } },
          ],
        },
      },
    ]);
  });

  it("Nova takes no document inside toolResult: it goes right after the results, with a warning", () => {
    const built = withTools(history([image, pdf]), NOVA);
    expect(built.body.messages[2]!.content).toEqual([
      {
        toolResult: {
          toolUseId: "c1",
          content: [
            { image: { format: "png", source: { bytes: DATA } } },
            { text: "(the document is sent after this result)" },
          ],
        },
      },
      { text: "The document from the result of tool call c1:" },
      { document: { format: "pdf", name: "r", source: { bytes: DATA } } },
    ]);
    expect(built.warnings).toEqual([
      "messages[2].toolResults[0].content[1]: this model takes no document inside a tool result; sent in the user turn after the results",
    ]);
  });

  it("Pixtral takes no image inside toolResult and nothing beside it: moved after a '.' turn", () => {
    const built = withTools(history([image], [{ role: "user", content: "what is it?" }]), PIXTRAL);
    expect(built.body.messages.slice(2)).toEqual([
      {
        role: "user",
        content: [
          { toolResult: { toolUseId: "c1", content: [{ text: "(the image is sent after this result)" }] } },
        ],
      },
      { role: "assistant", content: [{ text: RESULTS_SEPARATOR }] },
      {
        role: "user",
        content: [
          { text: "The image from the result of tool call c1:" },
          { image: { format: "png", source: { bytes: DATA } } },
          { text: "what is it?" },
        ],
      },
    ]);
    expect(built.warnings).toEqual([
      "messages[2].toolResults[0].content[0]: this model takes no image inside a tool result; sent in the user turn after the results",
      'messages[2]: this model takes nothing beside tool results in a user turn; the rest sent in a user turn of its own after a "." assistant turn',
    ]);
  });

  it("the warning names the stored message, not the turn's place in the request (a system message first)", () => {
    const built = withTools(
      [
        { role: "system", content: "Be brief." },
        ...history([image], [{ role: "user", content: "what is it?" }]),
      ],
      PIXTRAL,
    );
    expect(built.warnings).toEqual([
      "messages[3].toolResults[0].content[0]: this model takes no image inside a tool result; sent in the user turn after the results",
      'messages[3]: this model takes nothing beside tool results in a user turn; the rest sent in a user turn of its own after a "." assistant turn',
    ]);
  });

  it("Qwen takes no media in toolResult: both moved", () => {
    const built = withTools(history([image, pdf]), QWEN);
    const blocks = built.body.messages[2]!.content;
    expect(blocks.map((block) => Object.keys(block)[0])).toEqual([
      "toolResult",
      "text",
      "image",
      "text",
      "document",
    ]);
    expect(built.warnings.filter((warning) => warning.includes("inside a tool result"))).toHaveLength(2);
  });

  it("refuses a tool result part Bedrock cannot read, naming the result's field", () => {
    const built = withTools(
      history([
        { type: "text", text: "x" },
        { type: "file", mediaType: "audio/mpeg", data: DATA },
      ]),
      CLAUDE,
    );
    expect(built.refused).toEqual([
      {
        path: "messages[2].toolResults[0].content[1]",
        message: expect.stringContaining("not audio/mpeg"),
      },
    ]);
    expect(built.body.messages[2]!.content[0]).toEqual({
      toolResult: { toolUseId: "c1", content: [{ text: "x" }] },
    });
  });

  it("a failed result without status says Error: before its media", () => {
    const built = buildBedrockConverseRequest({
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "shot", arguments: {} }] },
        { role: "tool", toolResults: [{ callId: "c1", content: [image], isError: true }] },
      ],
      tools: [{ name: "shot", parameters: { type: "object" } }],
      options: {},
      model: "us.meta.llama4-maverick-17b-instruct-v1:0",
    });
    expect(built.body.messages[2]!.content[0]).toEqual({
      toolResult: {
        toolUseId: "c1",
        content: [{ text: "Error:" }, { image: { format: "png", source: { bytes: DATA } } }],
      },
    });
  });

  it("an orphan result (no matching call) keeps its parts after its text", () => {
    const built = withTools(
      [
        { role: "user", content: "go" },
        { role: "assistant", content: "sure" },
        {
          role: "tool",
          toolResults: [{ callId: "nope", content: [{ type: "text", text: "seen" }, image, pdf] }],
        },
      ],
      CLAUDE,
    );
    expect(built.body.messages[2]!.content).toEqual([
      { text: "[tool result for call nope]\nseen" },
      { image: { format: "png", source: { bytes: DATA } } },
      { document: { format: "pdf", name: "r", source: { bytes: DATA } } },
    ]);
    expect(built.warnings).toEqual([
      expect.stringContaining("tool result for call nope has no matching tool call"),
    ]);
  });

  it("a result without a call id keeps its parts as user content", () => {
    const built = withTools(
      [
        { role: "user", content: "go" },
        { role: "tool", toolResults: [{ content: [{ type: "text", text: "t" }, image] } as never] },
      ],
      CLAUDE,
    );
    expect(built.body.messages[0]!.content).toEqual([
      { text: "go" },
      { text: "t" },
      { image: { format: "png", source: { bytes: DATA } } },
    ]);
  });
});

describe("cache points after media", () => {
  it("a checkpoint right after an image", () => {
    const built = build(userWith({ type: "image", mediaType: "image/png", data: DATA }), CLAUDE, "auto");
    expect(built.body.messages[0]!.content.at(-1)).toEqual({ cachePoint: { type: "default" } });
    expect(built.body.messages[0]!.content.at(-2)).toHaveProperty("image");
  });

  it("before the documents that end a message (automatic placement too)", () => {
    const built = build(
      userWith(
        { type: "file", mediaType: "text/plain", data: DATA },
        { type: "file", mediaType: "application/pdf", data: DATA },
      ),
      CLAUDE,
      "auto",
    );
    expect(built.body.messages[0]!.content.map((block) => Object.keys(block)[0])).toEqual([
      "text",
      "cachePoint",
      "document",
      "document",
    ]);
  });

  it("no checkpoint where only documents would precede it... the required text comes first", () => {
    const built = build(
      [{ role: "user", content: [{ type: "file", mediaType: "application/pdf", data: DATA }] }],
      CLAUDE,
      { breakpoints: [{ message: 0 }] },
    );
    expect(built.body.messages[0]!.content.map((block) => Object.keys(block)[0])).toEqual([
      "text",
      "cachePoint",
      "document",
    ]);
  });
});
