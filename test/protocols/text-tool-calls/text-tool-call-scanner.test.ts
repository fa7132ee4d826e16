/** The streaming scanner and the whole-message parse: their shared contract. */
import { describe, expect, it } from "vitest";
import {
  parseTextToolCalls,
  type TextToolCall,
  type TextToolCallFormat,
  TextToolCallScanner,
} from "../../../src/protocols/text-tool-calls/index.ts";
import { FORMATS } from "./helpers.ts";

describe("the scanner and the whole-message parse", () => {
  it("finish() returns every warning of the stream; a second finish() returns nothing new", () => {
    const scanner = new TextToolCallScanner("hermes");
    expect(scanner.push("<tool_call>oops ").text).toBe("<tool_call>oops ");
    const end = scanner.finish();
    expect(end).toEqual({
      text: "",
      toolCalls: [],
      warnings: ["hermes: <tool_call> is not followed by a JSON object; released as text"],
    });
    expect(scanner.finish().text).toBe("");
    expect(() => scanner.push("x")).toThrow();
  });

  it("parseTextToolCalls never throws: unknown format or non-string text", () => {
    expect(parseTextToolCalls("hi", "nope" as TextToolCallFormat)).toEqual({
      text: "hi",
      toolCalls: [],
      warnings: ['text tool calls: unknown format "nope"'],
    });
    expect(parseTextToolCalls(undefined as unknown as string, "hermes").toolCalls).toEqual([]);
    expect(parseTextToolCalls("", "hermes")).toEqual({ text: "", toolCalls: [], warnings: [] });
  });

  it("streams a 200 KB call in 1-character deltas in linear time (no re-scan per delta)", () => {
    const big = "x".repeat(200_000);
    const messages: Record<TextToolCallFormat, string> = {
      hermes: `hi <tool_call>{"name":"f","arguments":{"a":"${big}"}}</tool_call>`,
      "qwen3-coder": `hi <tool_call>\n<function=f>\n<parameter=a>\n${big}\n</parameter>\n</function>\n</tool_call>`,
      mistral: `hi [TOOL_CALLS]f[ARGS]{"a":"${big}"}`,
      "llama3-json": `{"name":"f","parameters":{"a":"${big}"}}`,
    };
    for (const format of FORMATS) {
      const message = messages[format];
      const scanner = new TextToolCallScanner(format);
      const calls: TextToolCall[] = [];
      for (let i = 0; i < message.length; i++) calls.push(...scanner.push(message[i]!).toolCalls);
      calls.push(...scanner.finish().toolCalls);
      // No wall-clock assertion (shared, noisy machines): a quadratic regression shows as a run of 10-20 s
      // here instead of ~0.1 s, and in `npm run bench`.
      expect(calls.map((c) => (c.arguments.a as string).length)).toEqual([big.length]);
    }
  });
});
