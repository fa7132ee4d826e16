/**
 * Random part lists, in every place a Responses request carries content (user messages, results of calls,
 * failed results, results answering no call, system and assistant messages), through
 * `convertToOpenAIResponsesInput`: it never throws, and every image or file is either sent (an
 * `input_image` / `input_file` part) or named — by its own path, `messages[i].content[j]` or
 * `messages[i].toolResults[k].content[j]` — in exactly one refusal or warning. None is lost in silence.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { convertToOpenAIResponsesInput } from "../../../src/protocols/openai-responses/index.ts";

type Json = Record<string, unknown>;

const DATA = "iVBORw0KGgo=";
const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp", "image/tiff", "image/svg+xml"];
const FILE_TYPES = [
  "application/pdf",
  "text/plain",
  "text/x-go",
  "application/json",
  "application/zip",
  "audio/mpeg",
  "video/mp4",
  "image/png",
  "image/heic",
];
const URLS = ["https://example.com/a", "http://example.com/b", "gs://bucket/c", "s3://bucket/d"];

// "Error:" alone is left out of the texts: a part of exactly that text first in a failed result cannot be
// told from the marker `PendingResults` puts there (see `markerOffset`).
const textPart = fc.record({
  type: fc.constant("text"),
  text: fc.constantFrom("", " ", "look", "Error: it failed", "日本"),
});
const imagePart = fc.oneof(
  fc.record({
    type: fc.constant("image"),
    mediaType: fc.constantFrom(...IMAGE_TYPES),
    data: fc.constant(DATA),
  }),
  fc.record(
    { type: fc.constant("image"), url: fc.constantFrom(...URLS), mediaType: fc.constantFrom(...IMAGE_TYPES) },
    { requiredKeys: ["type", "url"] },
  ),
);
const filePart = fc.oneof(
  fc.record(
    {
      type: fc.constant("file"),
      mediaType: fc.constantFrom(...FILE_TYPES),
      data: fc.constant(DATA),
      filename: fc.constantFrom("a.pdf", "notes"),
    },
    { requiredKeys: ["type", "mediaType", "data"] },
  ),
  fc.record(
    {
      type: fc.constant("file"),
      url: fc.constantFrom(...URLS),
      mediaType: fc.constantFrom(...FILE_TYPES),
      filename: fc.constant("b.txt"),
    },
    { requiredKeys: ["type", "url"] },
  ),
);
const partsArb = fc.array(fc.oneof({ weight: 2, arbitrary: textPart }, imagePart, filePart), {
  maxLength: 5,
});

const historyArb = fc.record({
  system: partsArb,
  user: partsArb,
  assistant: partsArb,
  result: partsArb,
  resultFailed: fc.boolean(),
  orphan: partsArb,
  orphanFailed: fc.boolean(),
  tail: partsArb,
});

type Sample = typeof historyArb extends fc.Arbitrary<infer T> ? T : never;

function history(sample: Sample): unknown[] {
  return [
    { role: "system", content: sample.system },
    { role: "user", content: sample.user },
    { role: "assistant", content: sample.assistant, toolCalls: [{ id: "c1", name: "shot", arguments: {} }] },
    {
      role: "tool",
      toolResults: [
        { callId: "c1", content: sample.result, isError: sample.resultFailed },
        { callId: "nobody", content: sample.orphan, isError: sample.orphanFailed },
      ],
    },
    { role: "user", content: sample.tail },
  ];
}

/** The path of every image and file of the sample. */
function mediaPaths(sample: Sample): string[] {
  const paths: string[] = [];
  const add = (parts: readonly { type: string }[], where: string) =>
    parts.forEach((part, position) => {
      if (part.type !== "text") paths.push(`${where}[${position}]`);
    });
  add(sample.system, "messages[0].content");
  add(sample.user, "messages[1].content");
  add(sample.assistant, "messages[2].content");
  add(sample.result, "messages[3].toolResults[0].content");
  add(sample.orphan, "messages[3].toolResults[1].content");
  add(sample.tail, "messages[4].content");
  return paths;
}

/** The `input_image` / `input_file` parts sent, in messages and tool outputs. */
function sentMedia(input: readonly unknown[]): number {
  let count = 0;
  for (const item of input as Json[]) {
    const list = Array.isArray(item.content) ? item.content : Array.isArray(item.output) ? item.output : [];
    for (const part of list as Json[]) if (part.type === "input_image" || part.type === "input_file") count++;
  }
  return count;
}

describe("Responses parts, property: none lost without a refusal or a warning naming it", () => {
  it("every image and file is sent, refused or warned — exactly once, by its own path", () => {
    fc.assert(
      fc.property(historyArb, (sample) => {
        const converted = convertToOpenAIResponsesInput(history(sample), {
          model: "gpt-4.1",
          origin: "openai",
          store: false,
        });
        const expected = mediaPaths(sample);
        const refused = converted.refused.map((issue) => issue.path);
        const warned = converted.warnings.flatMap((warning) => {
          const match = /^(messages\[\d+\](?:\.toolResults\[\d+\])?\.content\[\d+\]): /.exec(warning);
          return match ? [match[1]!] : [];
        });
        const named = [...refused, ...warned];
        expect(new Set(named).size, "a part named twice").toBe(named.length);
        for (const path of named) expect(expected, `${path} is not an image or file`).toContain(path);
        expect(sentMedia(converted.input) + named.length).toBe(expected.length);
        // What cannot be sent where it stands is refused only in user content and tool results.
        for (const path of refused) expect(path).not.toMatch(/^messages\[[02]\]\./);
        // System and assistant content takes text only: their images and files are warned, never sent.
        for (const path of expected.filter((entry) => /^messages\[[02]\]\./.test(entry)))
          expect(warned).toContain(path);
        expect(JSON.parse(JSON.stringify(converted.input))).toStrictEqual(converted.input);
      }),
      { numRuns: 400 },
    );
  });
});
