/**
 * Neutral history → Gemini `contents`, the cases the recordings do not show: parallel results recorded out
 * of the order of their calls (the API pairs them by order only), and a stored part that carries only a
 * thought signature.
 */
import { describe, expect, it } from "vitest";
import type { MessageInput } from "../../../src/core/message.ts";
import { buildGeminiRequest } from "../../../src/protocols/google-gemini/index.ts";

const FLASH = "gemini-2.5-flash";

function build(messages: readonly unknown[], model = FLASH) {
  return buildGeminiRequest({ messages, tools: [], options: {}, model, origin: "gemini" });
}

describe("Gemini contents", () => {
  it("function responses go in the order of the calls, not the order the results were recorded in", () => {
    const history: MessageInput[] = [
      { role: "user", content: "weather in Paris and London, and the time" },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "c_paris", name: "weather", arguments: { city: "Paris" } },
          { id: "c_london", name: "weather", arguments: { city: "London" } },
          { id: "c_time", name: "time", arguments: {} },
        ],
      },
      // London's result first, then Paris's; the time call has none (an error result is added).
      { role: "tool", toolResults: [{ callId: "c_london", content: "rain" }] },
      { role: "tool", toolResults: [{ callId: "c_paris", content: "sun" }] },
    ];
    const { body, warnings } = build(history);
    expect(body.contents[2]!.parts).toEqual([
      { functionResponse: { name: "weather", response: { output: "sun" } } },
      { functionResponse: { name: "weather", response: { output: "rain" } } },
      { functionResponse: { name: "time", response: { error: expect.any(String) } } },
    ]);
    expect(warnings.join("\n")).toMatch(/c_time have no recorded result/);
  });

  it("a replayed turn: results recorded backwards are put back in the order of its calls", () => {
    const history: unknown[] = [
      { role: "user", content: "two cities" },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "a", name: "weather", arguments: { city: "Oslo" } },
          { id: "b", name: "weather", arguments: { city: "Rome" } },
        ],
        native: {
          protocol: "google-gemini",
          origin: "gemini",
          model: FLASH,
          blocks: [
            { functionCall: { name: "weather", args: { city: "Oslo" } }, thoughtSignature: "U0lH" },
            { functionCall: { name: "weather", args: { city: "Rome" } } },
          ],
        },
      },
      {
        role: "tool",
        toolResults: [
          { callId: "b", content: "warm" },
          { callId: "a", content: "cold" },
        ],
      },
      { role: "user", content: "and now?" },
    ];
    const { body } = build(history);
    expect(body.contents[2]!.parts).toEqual([
      { functionResponse: { name: "weather", response: { output: "cold" } } },
      { functionResponse: { name: "weather", response: { output: "warm" } } },
      { text: "and now?" },
    ]);
  });

  it("a stored part with only a thought signature goes back on an empty text, never as a part without data", () => {
    const history: unknown[] = [
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: "Hello",
        native: {
          protocol: "google-gemini",
          origin: "gemini",
          model: FLASH,
          blocks: [
            { text: "Hello" },
            { thoughtSignature: "RU5ELVNJRw==" },
            { thought: true, thoughtSignature: "VA==" },
          ],
        },
      },
      { role: "user", content: "more" },
    ];
    const { body, warnings } = build(history);
    expect(body.contents[1]!.parts).toEqual([
      { text: "Hello" },
      { text: "", thoughtSignature: "RU5ELVNJRw==" },
      { text: "", thought: true, thoughtSignature: "VA==" },
    ]);
    expect(warnings).toEqual([]);
  });
});
