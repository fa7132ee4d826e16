/**
 * Content parts → Chat Completions: every rule of `openAIChatPartOf` / `convertToOpenAIChatMessages` for
 * images, files and tool results, each refusal and warning with the field it names, and the shell raising
 * the refusals as one `ValidationError` before any request.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ContentPart } from "../../../src/core/content.ts";
import { openaiChat, ValidationError } from "../../../src/index.ts";
import {
  convertToOpenAIChatMessages,
  type OpenAIChatReplayTarget,
} from "../../../src/protocols/openai-chat/index.ts";
import { openAIChatEndpointProfile } from "../../../src/providers/openai-chat.ts";

const OPENAI: OpenAIChatReplayTarget = { model: "gpt-4.1", profile: openAIChatEndpointProfile("openai") };
const VLLM: OpenAIChatReplayTarget = {
  model: "Qwen/Qwen2.5-VL-7B",
  profile: openAIChatEndpointProfile("vllm"),
};

const PNG = "iVBORw0KGgo=";
const PDF = "JVBERi0xLjQK";
const HELLO = btoa("héllo\n".replace("é", "\u00c3\u00a9")); // "héllo\n" as UTF-8 bytes
const IMAGE_URL = "https://example.com/cat.png";

function convert(messages: readonly unknown[], target = OPENAI) {
  return convertToOpenAIChatMessages(messages, target);
}

function user(content: ContentPart[] | string) {
  return convert([{ role: "user", content }]);
}

const ASK = { type: "text", text: "Look:" } as const;

describe("user content", () => {
  it("a string stays a string, so does one text part; several text parts stay parts; blank parts are left out", () => {
    expect(user("hi").messages).toStrictEqual([{ role: "user", content: "hi" }]);
    expect(user([{ type: "text", text: "hi" }]).messages).toStrictEqual([{ role: "user", content: "hi" }]);
    expect(
      user([
        { type: "text", text: "a" },
        { type: "text", text: "  " },
        { type: "text", text: "b" },
      ]).messages,
    ).toStrictEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      },
    ]);
    expect(user([{ type: "text", text: " " }]).messages).toStrictEqual([]);
  });

  it("images: inline → a data: URL, an https URL as it is", () => {
    const { messages, warnings, refused } = user([
      ASK,
      { type: "image", mediaType: "image/png", data: PNG },
      { type: "image", url: IMAGE_URL },
    ]);
    expect(messages).toStrictEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Look:" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
          { type: "image_url", image_url: { url: IMAGE_URL } },
        ],
      },
    ]);
    expect(warnings).toStrictEqual([]);
    expect(refused).toStrictEqual([]);
  });

  it("a file holding an image is an image", () => {
    expect(
      user([ASK, { type: "file", mediaType: "image/jpeg", data: PNG }]).messages[0]?.content,
    ).toStrictEqual([
      { type: "text", text: "Look:" },
      { type: "image_url", image_url: { url: `data:image/jpeg;base64,${PNG}` } },
    ]);
  });

  it("gs:// and s3:// image URLs are refused, naming the part and saying to download it", () => {
    const { messages, refused } = user([
      ASK,
      { type: "image", url: "gs://bucket/cat.png" },
      { type: "image", url: "s3://bucket/cat.png" },
    ]);
    expect(messages).toStrictEqual([{ role: "user", content: "Look:" }]);
    expect(refused.map((issue) => issue.path)).toStrictEqual([
      "messages[0].content[1]",
      "messages[0].content[2]",
    ]);
    expect(refused[0]?.message).toMatch(/http\(s\) only.*gs:\/\/bucket\/cat\.png.*inlineUrlParts/);
  });

  it("hosted OpenAI refuses image types it does not read; other servers get them", () => {
    const svg = [ASK, { type: "image", mediaType: "image/svg+xml", data: PNG }] as ContentPart[];
    const hosted = user(svg);
    expect(hosted.refused).toStrictEqual([
      {
        path: "messages[0].content[1]",
        message: "OpenAI takes image/png, image/jpeg, image/gif, image/webp images, not image/svg+xml",
      },
    ]);
    const local = convert([{ role: "user", content: svg }], VLLM);
    expect(local.refused).toStrictEqual([]);
    expect(local.messages[0]?.content).toContainEqual({
      type: "image_url",
      image_url: { url: `data:image/svg+xml;base64,${PNG}` },
    });
  });

  it("an inline PDF → a file part with file_data and its filename (document-<n>.pdf when it has none)", () => {
    const { messages, refused } = user([
      ASK,
      { type: "file", mediaType: "application/pdf", data: PDF, filename: "invoice.pdf" },
      { type: "file", mediaType: "application/pdf", data: PDF },
    ]);
    expect(refused).toStrictEqual([]);
    expect(messages[0]?.content).toStrictEqual([
      { type: "text", text: "Look:" },
      { type: "file", file: { filename: "invoice.pdf", file_data: `data:application/pdf;base64,${PDF}` } },
      { type: "file", file: { filename: "document-3.pdf", file_data: `data:application/pdf;base64,${PDF}` } },
    ]);
  });

  it("a file URL is refused (Chat Completions takes none), pointing at inlineUrlParts", () => {
    const { messages, refused } = user([ASK, { type: "file", url: "https://example.com/a.pdf" }]);
    expect(messages).toStrictEqual([{ role: "user", content: "Look:" }]);
    expect(refused).toHaveLength(1);
    expect(refused[0]?.path).toBe("messages[0].content[1]");
    expect(refused[0]?.message).toMatch(/takes no file URLs.*inlineUrlParts/);
  });

  it("a text file → a text part of its decoded text, warned; text that is not UTF-8 is refused", () => {
    const { messages, warnings, refused } = user([
      ASK,
      { type: "file", mediaType: "text/plain", data: HELLO, filename: "notes.txt" },
    ]);
    expect(refused).toStrictEqual([]);
    expect(messages[0]?.content).toStrictEqual([
      { type: "text", text: "Look:" },
      { type: "text", text: "héllo\n" },
    ]);
    expect(warnings).toStrictEqual([
      'messages[0].content[1]: the text/plain file "notes.txt" is sent as a text part (Chat Completions takes PDF files only, and documents sending a text file\'s contents as text)',
    ]);
    const bad = user([ASK, { type: "file", mediaType: "text/csv", data: "/w==" }]);
    expect(bad.refused).toStrictEqual([
      {
        path: "messages[0].content[1]",
        message: "the text/csv file is not UTF-8 text, which Chat Completions would take as text",
      },
    ]);
  });

  it("audio → input_audio (wav, mp3)", () => {
    const { messages } = user([
      ASK,
      { type: "file", mediaType: "audio/wav", data: PNG },
      { type: "file", mediaType: "audio/mpeg", data: PNG },
    ]);
    expect(messages[0]?.content).toStrictEqual([
      { type: "text", text: "Look:" },
      { type: "input_audio", input_audio: { data: PNG, format: "wav" } },
      { type: "input_audio", input_audio: { data: PNG, format: "mp3" } },
    ]);
  });

  it("other file types are refused, naming the type and the Responses API", () => {
    const docx = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
    const { refused } = user([ASK, { type: "file", mediaType: docx, data: PDF }]);
    expect(refused).toStrictEqual([
      {
        path: "messages[0].content[1]",
        message: `Chat Completions takes PDF (application/pdf) files only, not ${docx}; the Responses API reads other document types`,
      },
    ]);
  });

  it("a stored part that is not valid is left out with a warning naming it", () => {
    const { messages, warnings } = convert([
      { role: "user", content: [ASK, { type: "image", mediaType: "image/png", data: "not base64!" }] },
    ]);
    expect(messages).toStrictEqual([{ role: "user", content: "Look:" }]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^messages\[0\]\.content\[1\]\.data: not a valid content part/);
  });
});

describe("system and assistant messages", () => {
  it("a system message takes text only: its text parts joined, an image refused", () => {
    const { messages, refused } = convert([
      {
        role: "system",
        content: [
          { type: "text", text: "be " },
          { type: "image", url: IMAGE_URL },
          { type: "text", text: "brief" },
        ],
      },
      { role: "user", content: "hi" },
    ]);
    expect(messages).toStrictEqual([
      { role: "system", content: "be brief" },
      { role: "user", content: "hi" },
    ]);
    expect(refused).toStrictEqual([
      {
        path: "messages[0].content[1]",
        message: "Chat Completions system messages take text only; send the image in a user message",
      },
    ]);
  });

  it("an assistant turn's parts are read as text, each image or file left out with a warning", () => {
    const { messages, warnings } = convert([
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "see" },
          { type: "image", url: IMAGE_URL },
        ],
      },
    ]);
    expect(messages[1]).toStrictEqual({ role: "assistant", content: "see" });
    expect(warnings).toStrictEqual([
      "messages[1].content[1]: an assistant message takes text only; the image is left out",
    ]);
  });
});

const CALL_TURN = {
  role: "assistant",
  content: "",
  toolCalls: [
    { id: "c1", name: "shot", arguments: {} },
    { id: "c2", name: "shot", arguments: {} },
  ],
};

describe("tool results", () => {
  it("text goes in the tool message; images and files go in one user message after the run of tool messages", () => {
    const { messages, warnings, refused } = convert([
      { role: "user", content: "screens?" },
      CALL_TURN,
      {
        role: "tool",
        toolResults: [
          {
            callId: "c1",
            content: [
              { type: "text", text: "first" },
              { type: "image", url: IMAGE_URL },
            ],
          },
          {
            callId: "c2",
            content: [
              { type: "image", mediaType: "image/png", data: PNG },
              { type: "file", mediaType: "application/pdf", data: PDF, filename: "r.pdf" },
            ],
          },
        ],
      },
      { role: "user", content: "thanks" },
    ]);
    expect(refused).toStrictEqual([]);
    expect(messages.slice(2)).toStrictEqual([
      { role: "tool", tool_call_id: "c1", content: "first" },
      { role: "tool", tool_call_id: "c2", content: "[the result's content is in the next user message]" },
      {
        role: "user",
        content: [
          { type: "text", text: "[content of the result of tool call c1]" },
          { type: "image_url", image_url: { url: IMAGE_URL } },
          { type: "text", text: "[contents of the result of tool call c2]" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
          { type: "file", file: { filename: "r.pdf", file_data: `data:application/pdf;base64,${PDF}` } },
        ],
      },
      { role: "user", content: "thanks" },
    ]);
    expect(warnings).toStrictEqual([
      "messages[2].toolResults[0].content[1]: Chat Completions tool messages take text only; the image is sent in a user message after the tool results",
      "messages[2].toolResults[1].content[0]: Chat Completions tool messages take text only; the image is sent in a user message after the tool results",
      "messages[2].toolResults[1].content[1]: Chat Completions tool messages take text only; the file is sent in a user message after the tool results",
    ]);
  });

  it("the moved parts wait until every call of the turn is answered, across tool messages", () => {
    const { messages } = convert([
      { role: "user", content: "screens?" },
      CALL_TURN,
      { role: "tool", toolResults: [{ callId: "c1", content: [{ type: "image", url: IMAGE_URL }] }] },
      { role: "tool", toolResults: [{ callId: "c2", content: "done" }] },
    ]);
    expect(messages.slice(2).map((m) => m.role)).toStrictEqual(["tool", "tool", "user"]);
  });

  it("a part a tool result cannot send is refused with its path; a failed tool's parts keep their positions", () => {
    const { refused, messages } = convert([
      { role: "user", content: "screens?" },
      { ...CALL_TURN, toolCalls: [CALL_TURN.toolCalls[0]] },
      {
        role: "tool",
        toolResults: [
          {
            callId: "c1",
            isError: true,
            content: [
              { type: "image", url: "s3://b/x.png" },
              { type: "file", url: "https://example.com/log.pdf" },
            ],
          },
        ],
      },
    ]);
    expect(refused.map((issue) => issue.path)).toStrictEqual([
      "messages[2].toolResults[0].content[0]",
      "messages[2].toolResults[0].content[1]",
    ]);
    expect(messages[2]).toStrictEqual({ role: "tool", tool_call_id: "c1", content: "Error:" });
  });

  it("a result answering no call goes as user content with its parts (paths name the result's parts)", () => {
    const { messages, refused } = convert([
      { role: "user", content: "hi" },
      {
        role: "tool",
        toolResults: [
          {
            callId: "gone",
            content: [
              { type: "image", url: IMAGE_URL },
              { type: "image", url: "gs://b/y.png" },
            ],
          },
        ],
      },
    ]);
    expect(messages[1]).toStrictEqual({
      role: "user",
      content: [
        { type: "text", text: "[tool result for call gone]" },
        { type: "image_url", image_url: { url: IMAGE_URL } },
      ],
    });
    expect(refused.map((issue) => issue.path)).toStrictEqual(["messages[1].toolResults[0].content[1]"]);
  });
});

describe("through the provider", () => {
  it("refusals are one ValidationError before any request", async () => {
    let calls = 0;
    const provider = openaiChat({
      apiKey: "k",
      model: "gpt-4.1",
      fetch: async () => {
        calls++;
        return new Response("{}");
      },
    });
    const error = await provider
      .complete([
        {
          role: "user",
          content: [
            { type: "file", url: "https://example.com/a.pdf" },
            { type: "image", url: "gs://b/c.png" },
          ],
        },
      ])
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((issue) => issue.path)).toStrictEqual([
      "messages[0].content[0]",
      "messages[0].content[1]",
    ]);
    expect(calls).toBe(0);
  });

  it("the body carries the parts; the warnings of moved parts reach response.warnings", async () => {
    let body: Record<string, unknown> | undefined;
    const provider = openaiChat({
      apiKey: "k",
      model: "gpt-4.1",
      fetch: async (_url, init) => {
        body = JSON.parse(String(init?.body));
        return new Response(
          JSON.stringify({
            choices: [{ message: { role: "assistant", content: "a cat" }, finish_reason: "stop" }],
          }),
        );
      },
    });
    const response = await provider.complete([
      { role: "user", content: [ASK, { type: "image", mediaType: "image/png", data: PNG }] },
    ]);
    expect(body?.messages).toStrictEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Look:" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      },
    ]);
    expect(response.message.content).toBe("a cat");
  });
});

describe("property: random part lists", () => {
  const partArb: fc.Arbitrary<ContentPart> = fc.oneof(
    fc.record({ type: fc.constant("text" as const), text: fc.string({ maxLength: 4 }) }),
    fc.record({
      type: fc.constant("image" as const),
      mediaType: fc.constantFrom("image/png", "image/jpeg", "image/tiff"),
      data: fc.constant(PNG),
    }),
    fc.record({
      type: fc.constant("image" as const),
      url: fc.constantFrom(IMAGE_URL, "gs://b/x", "s3://b/y"),
    }),
    fc.record({
      type: fc.constant("file" as const),
      mediaType: fc.constantFrom("application/pdf", "text/plain", "application/zip", "audio/wav"),
      data: fc.constantFrom(PDF, HELLO, "/w=="),
    }),
    fc.record({ type: fc.constant("file" as const), url: fc.constant("https://example.com/f.pdf") }),
  );

  it("never throw, and every image or file is sent, warned or refused (never dropped unseen)", () => {
    fc.assert(
      fc.property(
        fc.array(partArb, { maxLength: 6 }),
        fc.array(partArb, { maxLength: 6 }),
        fc.boolean(),
        (userParts, resultParts, hosted) => {
          const target = hosted ? OPENAI : VLLM;
          const converted = convert(
            [
              { role: "user", content: userParts },
              { role: "assistant", content: "", toolCalls: [{ id: "c", name: "f", arguments: {} }] },
              { role: "tool", toolResults: [{ callId: "c", content: resultParts }] },
            ],
            target,
          );
          const json = JSON.stringify(converted.messages);
          const said = [...converted.warnings, ...converted.refused.map((issue) => issue.path)].join("\n");
          const check = (parts: ContentPart[], where: string) =>
            parts.forEach((part, position) => {
              if (part.type === "text") return;
              const sent =
                (part.url !== undefined && json.includes(part.url)) ||
                (part.data !== undefined && json.includes(part.data));
              const named = said.includes(`${where}[${position}]`);
              expect(sent || named, `${where}[${position}]`).toBe(true);
            });
          check(userParts, "messages[0].content");
          check(resultParts, "messages[2].toolResults[0].content");
          // Tool messages carry text only, whatever their result held.
          for (const message of converted.messages)
            if (message.role === "tool") expect(typeof message.content).toBe("string");
        },
      ),
      { numRuns: 300 },
    );
  });
});
