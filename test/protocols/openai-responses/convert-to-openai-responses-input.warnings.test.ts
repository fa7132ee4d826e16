/**
 * What the Responses converter says when it repairs a stored history: every warning names the message,
 * call or native block it is about and what was done, because a user reading `response.warnings` must be
 * able to find the record. (Issue 15: these texts were read by no test, so a mutant naming the wrong thing
 * survived.) One bug the exact texts found: a reasoning item left out for having no item after it was
 * still counted as sent, so the same item in a later turn was dropped as "already sent".
 */
import { describe, expect, it } from "vitest";
import { convertToOpenAIResponsesInput } from "../../../src/protocols/openai-responses/convert-to-openai-responses-input.ts";

const TARGET = { model: "gpt-5", origin: "openai", store: false };
const native = (blocks: unknown[]) => ({
  protocol: "openai-responses",
  origin: "openai",
  model: "gpt-5",
  blocks,
});
const message = (id: string, text: string) => ({
  id,
  type: "message",
  role: "assistant",
  content: [{ type: "output_text", text }],
});

describe("rebuilt turns (neutral fields)", () => {
  it("names each call it repaired by its position, and the turn it left out", () => {
    const { input, warnings } = convertToOpenAIResponsesInput(
      [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: "",
          toolCalls: [
            { id: "", name: "a", arguments: {} },
            { id: "x", name: "" },
            { id: "c1", name: "b" },
            { id: "c1", name: "c" },
          ],
        },
        {
          role: "tool",
          toolResults: [
            { callId: "call_1_0", content: "r0", isError: false },
            { callId: "c1", content: "r1", isError: false },
            { callId: "c1", content: "r2", isError: false },
          ],
        },
        { role: "assistant", content: "" },
      ],
      TARGET,
    );
    expect(warnings).toEqual([
      "messages[1].toolCalls[0]: tool call without an id; sent as call_1_0",
      "messages[1].toolCalls[1]: tool call without a name; left out",
      "messages[1].toolCalls[3]: call id c1 already used in this request; sent as c1_2",
      "messages[3]: assistant turn with no text and no tool calls; left out",
    ]);
    // The renamed call is answered under its new id, in order.
    expect(
      input.filter((item) => "call_id" in item).map((item) => (item as { call_id: string }).call_id),
    ).toEqual(["call_1_0", "c1", "c1_2", "call_1_0", "c1", "c1_2"]);
  });
});

describe("replayed turns (native items)", () => {
  it("names each native block it repaired or left out, and why", () => {
    const { warnings } = convertToOpenAIResponsesInput(
      [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: "x",
          native: native([
            { id: "rs_1", type: "reasoning", summary: [] },
            "junk",
            { type: 7 },
            { id: "fc_1", type: "function_call", call_id: "", name: "f", arguments: "{}" },
            { id: "fc_2", type: "function_call", call_id: "k1", name: "f", arguments: { a: 1 } },
            { id: "fc_3", type: "custom_tool_call", call_id: "k2", name: "g", input: 5 },
            { type: "function_call_output", call_id: "k1", output: "o" },
            { id: "rs_2", type: "reasoning", encrypted_content: "enc", summary: [] },
          ]),
        },
        {
          role: "tool",
          toolResults: [
            { callId: "k1", content: "o1", isError: false },
            { callId: "k2", content: "o2", isError: false },
          ],
        },
      ],
      TARGET,
    );
    expect(warnings).toEqual([
      "messages[1].native.blocks[1]: not a content block; left out",
      "messages[1].native.blocks[0]: reasoning item without encrypted_content cannot be resolved with store: false; left out",
      "messages[1].native.blocks[2]: not an output item; left out",
      "messages[1].native.blocks[3]: function_call without a call_id or a name; left out",
      'messages[1].native.blocks[4]: arguments is not text; sent as "{\\"a\\":1}"',
      'messages[1].native.blocks[5]: input is not text; sent as ""',
      "messages[1].native.blocks[6]: a tool result inside an assistant turn; left out",
      "messages[1]: reasoning item rs_2 has no item after it; left out",
    ]);
  });

  it("a reasoning item left out for having nothing after it is not 'already sent': a later turn sends it", () => {
    const { input, warnings } = convertToOpenAIResponsesInput(
      [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: "",
          native: native([{ id: "rs_2", type: "reasoning", encrypted_content: "enc", summary: [] }]),
        },
        { role: "user", content: "again" },
        {
          role: "assistant",
          content: "y",
          native: native([
            { id: "rs_2", type: "reasoning", encrypted_content: "enc", summary: [] },
            message("msg_1", "y"),
            message("msg_1", "y again"),
          ]),
        },
      ],
      TARGET,
    );
    expect(warnings).toEqual([
      "messages[1]: reasoning item rs_2 has no item after it; left out",
      "messages[1]: nothing in native.blocks could be replayed; rebuilt from its text and tool calls",
      "messages[1]: assistant turn with no text and no tool calls; left out",
      "messages[3]: item id msg_1 already sent in this request; id removed",
    ]);
    expect(input.filter((item) => (item as { type?: string }).type === "reasoning")).toEqual([
      { id: "rs_2", type: "reasoning", encrypted_content: "enc", summary: [] },
    ]);
    expect(input.at(-1)).toEqual({
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text: "y again" }],
    });
  });

  it("a reasoning item sent in an earlier turn is left out the second time, saying so", () => {
    const turn = native([
      { id: "rs_9", type: "reasoning", encrypted_content: "enc", summary: [] },
      message("msg_9", "z"),
    ]);
    const { input, warnings } = convertToOpenAIResponsesInput(
      [
        { role: "user", content: "hi" },
        { role: "assistant", content: "z", native: turn },
        { role: "user", content: "again" },
        { role: "assistant", content: "z", native: turn },
      ],
      TARGET,
    );
    expect(warnings).toEqual([
      "messages[3].native.blocks[0]: reasoning item rs_9 already sent in this request; left out",
    ]);
    // The message it led to loses its id (it would name a reasoning item the request no longer binds).
    expect(input.at(-1)).toEqual({
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text: "z" }],
    });
  });
});
