/**
 * Property: random part lists (valid and not: any media type, any URL scheme, bad base64) in user
 * messages, tool results and assistant messages never make `buildAnthropicRequest` throw, and every image
 * or file part is accounted for — its block is in the body, or a refusal or a warning names its field.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ContentPart } from "../../../src/core/content.ts";
import type { MessageInput } from "../../../src/core/message.ts";
import {
  type AnthropicBlock,
  buildAnthropicRequest,
} from "../../../src/protocols/anthropic-messages/index.ts";
import { anthropicModelProfile } from "../../../src/providers/anthropic-model-profiles.ts";

const mediaType = fc.constantFrom(
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "image/bmp",
  "application/pdf",
  "text/plain",
  "text/csv",
  "application/zip",
);
const url = fc.constantFrom(
  "https://example.com/a.png",
  "http://example.com/a.pdf",
  "gs://bucket/a.pdf",
  "s3://bucket/a.png",
  "https://example.com/doc",
);
const data = fc.constantFrom("iVBORw0KGgo=", "SGVsbG8=", "//79", "not base64!");
/** Each media part carries a unique marker (in its data, URL or filename) to find its block by. */
const part: fc.Arbitrary<ContentPart> = fc.oneof(
  fc.record({ type: fc.constant("text" as const), text: fc.string({ maxLength: 5 }) }),
  fc.record({ type: fc.constant("image" as const), mediaType, data }),
  fc.record({ type: fc.constant("image" as const), url }, { requiredKeys: ["type", "url"] }),
  fc.record({ type: fc.constant("file" as const), mediaType, data, filename: fc.constant("f") }),
  fc.record(
    { type: fc.constant("file" as const), url, mediaType: fc.option(mediaType, { nil: undefined }) },
    { requiredKeys: ["type", "url"] },
  ),
) as fc.Arbitrary<ContentPart>;

const parts = fc.array(part, { maxLength: 5 });

function mediaBlocks(blocks: readonly AnthropicBlock[]): number {
  let count = 0;
  for (const block of blocks) {
    if (block.type === "image" || block.type === "document") count++;
    if (block.type === "tool_result" && Array.isArray(block.content)) count += mediaBlocks(block.content);
  }
  return count;
}

describe("Anthropic parts, property", () => {
  it("never throws; every image and file part is a block, a refusal or a warning naming it", () => {
    fc.assert(
      fc.property(parts, parts, parts, fc.boolean(), (user, result, assistant, bedrock) => {
        const messages: MessageInput[] = [
          { role: "user", content: user },
          { role: "assistant", content: assistant, toolCalls: [{ id: "t1", name: "x", arguments: {} }] },
          { role: "tool", toolResults: [{ callId: "t1", content: result }] },
        ];
        const built = buildAnthropicRequest({
          messages,
          tools: [{ name: "x", parameters: { type: "object" } }],
          options: { cache: "auto" },
          target: { model: "claude-sonnet-4-5", origin: bedrock ? "bedrock" : "anthropic" },
          profile: anthropicModelProfile("claude-sonnet-4-5"),
          stream: false,
          urlSources: !bedrock,
        });
        const named = new Set([
          ...(built.refused ?? []).map((issue) => issue.path),
          ...built.warnings.map((warning) => warning.split(":")[0]!),
        ]);
        const sent = mediaBlocks(built.body.messages.flatMap((message) => message.content));
        const lists: [ContentPart[], string][] = [
          [user, "messages[0].content"],
          [assistant, "messages[1].content"],
          [result, "messages[2].toolResults[0].content"],
        ];
        let accounted = 0;
        let media = 0;
        for (const [list, where] of lists) {
          list.forEach((item, position) => {
            if (item.type === "text") return;
            media++;
            const path = `${where}[${position}]`;
            if ([...named].some((name) => name === path || name.startsWith(`${path}.`))) accounted++;
          });
        }
        // Every media part not named by a refusal or a warning is a block of the body.
        expect(sent).toBe(media - accounted);
        // The assistant turn carries text only.
        expect(
          mediaBlocks(built.body.messages.filter((m) => m.role === "assistant").flatMap((m) => m.content)),
        ).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});
