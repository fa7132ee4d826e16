/**
 * What the Messages converter says when it repairs a replayed turn: each warning names the native block
 * (`messages[i].native.blocks[j]`) or the call id it is about and what was done with it (issue 15: these
 * texts were read by no test). The blocks themselves are checked too — a warning that says "left out" or
 * "sent as {}" must be true.
 */
import { describe, expect, it } from "vitest";
import { convertToAnthropicMessages } from "../../../src/protocols/anthropic-messages/convert-to-anthropic-messages.ts";

const MODEL = "claude-sonnet-4-5-20250929";
const TARGET = { model: MODEL, origin: "anthropic" };
const native = (blocks: unknown[]) => ({
  protocol: "anthropic-messages",
  origin: "anthropic",
  model: MODEL,
  blocks,
});

function replay(blocks: unknown[], after: unknown[] = [{ role: "user", content: "next" }]) {
  return convertToAnthropicMessages(
    [{ role: "user", content: "hi" }, { role: "assistant", content: "x", native: native(blocks) }, ...after],
    TARGET,
  );
}

describe("replayed blocks the API would reject", () => {
  it("each is named by its position, and what happened to it is what the warning says", () => {
    const { messages, warnings } = replay(
      [
        { type: "thinking", thinking: "t" },
        { type: "redacted_thinking" },
        { type: "tool_use", id: "", name: "f", input: {} },
        { type: "tool_use", id: "toolu_1", name: "f", input: "not an object" },
        { type: "tool_result", tool_use_id: "toolu_1", content: "r" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
        { type: "text", text: "kept" },
      ],
      [{ role: "tool", toolResults: [{ callId: "toolu_1", content: "done", isError: false }] }],
    );
    expect(warnings).toEqual([
      "messages[1].native.blocks[0]: thinking block without its signature; left out",
      "messages[1].native.blocks[1]: redacted_thinking block without data; left out",
      "messages[1].native.blocks[2]: tool_use without an id or a name; left out",
      "messages[1].native.blocks[3]: tool_use input is not an object; sent as {}",
      "messages[1].native.blocks[4]: tool_result block in an assistant turn; left out",
      "messages[1].native.blocks[5]: image block in an assistant turn; left out",
    ]);
    expect(messages[1]!.content).toEqual([
      { type: "tool_use", id: "toolu_1", name: "f", input: {} },
      { type: "text", text: "kept" },
    ]);
  });
});

describe("tool call ids the API would reject", () => {
  it("an id repeated within one turn keeps the first call; an invalid one is renamed and its result follows", () => {
    const { messages, warnings } = replay(
      [
        { type: "tool_use", id: "call.1", name: "f", input: {} },
        { type: "tool_use", id: "call.1", name: "g", input: {} },
      ],
      [{ role: "tool", toolResults: [{ callId: "call.1", content: "done", isError: false }] }],
    );
    expect(warnings).toEqual([
      "tool call id call.1 is invalid or already used; sent as call_1",
      "tool call id call.1 repeated within one turn; the later call left out",
    ]);
    expect(messages[1]!.content).toEqual([{ type: "tool_use", id: "call_1", name: "f", input: {} }]);
    expect(messages[2]!.content).toMatchObject([{ type: "tool_result", tool_use_id: "call_1" }]);
  });

  it("an id already used by an earlier turn gets a _dup suffix, named in the warning", () => {
    const turn = native([{ type: "tool_use", id: "toolu_a", name: "f", input: {} }]);
    const { messages, warnings } = convertToAnthropicMessages(
      [
        { role: "user", content: "hi" },
        { role: "assistant", content: "", native: turn },
        { role: "tool", toolResults: [{ callId: "toolu_a", content: "1", isError: false }] },
        { role: "assistant", content: "", native: turn },
        { role: "tool", toolResults: [{ callId: "toolu_a", content: "2", isError: false }] },
      ],
      TARGET,
    );
    expect(warnings).toEqual(["tool call id toolu_a is invalid or already used; sent as toolu_a_dup2"]);
    expect(messages[3]!.content).toEqual([{ type: "tool_use", id: "toolu_a_dup2", name: "f", input: {} }]);
    expect(messages[4]!.content).toMatchObject([
      { type: "tool_result", tool_use_id: "toolu_a_dup2", content: "2" },
    ]);
  });
});
