/**
 * Property: random part lists — supported and unsupported media types, inline data, s3 / https / gs URLs,
 * file names — in user messages and tool results, sent to models with different tool-result rules, never
 * make the Converse builder throw, and never lose a part without saying so: every image or file is in the
 * body (its bytes or its S3 URI), or refused naming its field, or named by a warning. Documents keep
 * unique valid names; a body that refuses nothing holds every part.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bytesToBase64 } from "../../../src/core/base64.ts";
import type { ContentPart } from "../../../src/core/content.ts";
import type { MessageInput } from "../../../src/core/message.ts";
import { anthropicModelProfile } from "../../../src/index.ts";
import { buildBedrockConverseRequest } from "../../../src/protocols/bedrock-converse/index.ts";

const MODELS = [
  "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
  "us.amazon.nova-pro-v1:0",
  "us.meta.llama4-maverick-17b-instruct-v1:0",
  "us.mistral.pixtral-large-2502-v1:0",
  "qwen.qwen3-vl-235b-a22b",
  "cohere.command-r-plus-v1:0",
];

type Shape = (n: number) => ContentPart;

const shapeArb: fc.Arbitrary<Shape> = fc.oneof(
  fc.constantFrom("hello", " ", "").map(
    (text): Shape =>
      () => ({ type: "text", text }),
  ),
  fc.constantFrom("image/png", "image/jpeg", "image/gif", "image/webp", "image/tiff", "image/svg+xml").map(
    (mediaType): Shape =>
      (n) => ({ type: "image", mediaType, data: unique(n) }),
  ),
  fc.constantFrom("https://x.test/{n}/a.png", "s3://b/{n}/a.png", "s3://b/{n}/noext", "gs://b/{n}/a.jpg").map(
    (url): Shape =>
      (n) => ({ type: "image", url: url.replace("{n}", String(n)) }),
  ),
  fc
    .record({
      mediaType: fc.constantFrom(
        "application/pdf",
        "text/plain",
        "text/csv",
        "text/markdown",
        "application/zip",
        "audio/mpeg",
        "image/png",
      ),
      filename: fc.constantFrom<string | undefined>(
        undefined,
        "a.pdf",
        "a.pdf",
        "my_file.v2.txt",
        "???",
        "Document 1",
      ),
    })
    .map(
      ({ mediaType, filename }): Shape =>
        (n) => ({
          type: "file",
          mediaType,
          data: unique(n),
          ...(filename === undefined ? {} : { filename }),
        }),
    ),
  fc.constantFrom("s3://b/{n}/doc.pdf", "https://x.test/{n}/doc.pdf", "s3://b/{n}/blob").map(
    (url): Shape =>
      (n) => ({ type: "file", url: url.replace("{n}", String(n)) }),
  ),
);

/** Bytes no other part of the sample has. */
function unique(n: number): string {
  return bytesToBase64(new TextEncoder().encode(`part-${n}-bytes`));
}

const historyArb = fc.record({
  model: fc.constantFrom(...MODELS),
  first: fc.array(shapeArb, { maxLength: 5 }),
  result: fc.array(shapeArb, { maxLength: 5 }),
  after: fc.array(shapeArb, { maxLength: 4 }),
  isError: fc.boolean(),
  cache: fc.constantFrom<"auto" | "off">("auto", "off"),
});

describe("Converse parts, property", () => {
  it("never throws and never loses a part without a refusal or a warning naming it", () => {
    fc.assert(
      fc.property(historyArb, ({ model, first, result, after, isError, cache }) => {
        let n = 0;
        const make = (shapes: Shape[]) => shapes.map((shape) => shape(n++));
        const firstParts = make(first);
        const resultParts = make(result);
        const afterParts = make(after);
        const messages: MessageInput[] = [
          { role: "user", content: [{ type: "text", text: "start" }, ...firstParts] },
          { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "get", arguments: {} }] },
          { role: "tool", toolResults: [{ callId: "c1", content: resultParts, isError }] },
        ];
        if (afterParts.length > 0) messages.push({ role: "user", content: afterParts });
        const built = buildBedrockConverseRequest({
          messages,
          tools: [{ name: "get", parameters: { type: "object" } }],
          options: { cache },
          model,
          anthropicProfile: model.includes("anthropic") ? anthropicModelProfile(model) : undefined,
        });
        const body = JSON.stringify(built.body);
        const refused = new Set((built.refused ?? []).map((issue) => issue.path));
        const said = (path: string) =>
          refused.has(path) || built.warnings.some((warning) => warning.includes(path));
        const check = (parts: ContentPart[], where: string, offset: number) => {
          parts.forEach((part, position) => {
            if (part.type === "text") return;
            const path = `${where}[${position + offset}]`;
            const mark = part.data ?? part.url;
            const sent = body.includes(JSON.stringify(mark));
            // In the body xor refused; never both, never neither.
            expect(sent || refused.has(path), path).toBe(true);
            expect(sent && refused.has(path), path).toBe(false);
            if (sent && part.url !== undefined) expect(part.url.startsWith("s3://"), path).toBe(true);
            if (!sent) expect(said(path)).toBe(true);
          });
        };
        check(firstParts, "messages[0].content", 1);
        check(resultParts, "messages[2].toolResults[0].content", 0);
        check(afterParts, "messages[3].content", 0);

        const names: string[] = [];
        for (const message of built.body.messages) {
          const blocks = message.content.flatMap((block) =>
            block.toolResult ? [block, ...(block.toolResult.content as typeof message.content)] : [block],
          );
          for (const block of blocks) {
            const document = block.document as { name?: string } | undefined;
            if (document?.name !== undefined) names.push(document.name);
          }
          if (message.role === "user" && message.content.some((block) => "document" in block)) {
            expect(message.content.some((block) => typeof block.text === "string")).toBe(true);
          }
        }
        for (const name of names) {
          expect(name).toMatch(/^[A-Za-z0-9\-()[\]]+(?: [A-Za-z0-9\-()[\]]+)*$/);
          expect(name.length).toBeLessThanOrEqual(200);
        }
        expect(new Set(names).size).toBe(names.length);
        // Roles still alternate from a user turn.
        built.body.messages.forEach((message, index) => {
          expect(message.role).toBe(index % 2 === 0 ? "user" : "assistant");
        });
      }),
      { numRuns: 300 },
    );
  });
});
