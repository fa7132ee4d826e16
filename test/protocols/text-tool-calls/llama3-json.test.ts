/** The `llama3-json` grammar: the message itself is the call(s). */
import { describe, expect, it } from "vitest";
import { TextToolCallScanner } from "../../../src/protocols/text-tool-calls/index.ts";
import { call, parse } from "./helpers.ts";

describe("llama3-json", () => {
  it("a single call with parameters, or arguments, after optional whitespace", () => {
    expect(parse('{"name": "get_weather", "parameters": {"city": "Paris"}}', "llama3-json")).toEqual({
      text: "",
      toolCalls: [call("get_weather", { city: "Paris" })],
      warnings: [],
    });
    expect(parse('\n  {"name": "f", "arguments": {"a": [1]}}\n', "llama3-json").toolCalls).toEqual([
      call("f", { a: [1] }),
    ]);
  });

  it("<|python_tag|> prefix, several calls separated by ; or newlines", () => {
    const r = parse(
      '<|python_tag|>{"name": "a", "parameters": {}}; {"name": "b", "parameters": {"x": 1}}\n{"name": "c", "parameters": {}}',
      "llama3-json",
    );
    expect(r).toEqual({
      text: "",
      toolCalls: [call("a", {}), call("b", { x: 1 }), call("c", {})],
      warnings: [],
    });
  });

  it("arguments as a JSON string, nested JSON with braces in strings, unicode", () => {
    const r = parse(
      '{"name": "f", "parameters": "{\\"s\\": \\"}{\\", \\"u\\": \\"日本語 😀\\"}"}',
      "llama3-json",
    );
    expect(r.toolCalls).toEqual([call("f", { s: "}{", u: "日本語 😀" }, '{"s": "}{", "u": "日本語 😀"}')]);
  });

  it("text after the calls stays text", () => {
    const r = parse('{"name": "f", "parameters": {}}\nI called f.', "llama3-json");
    expect(r).toEqual({ text: "\nI called f.", toolCalls: [call("f", {})], warnings: [] });
  });

  it("prose is text, even when it contains a call later", () => {
    for (const text of [
      "a < b",
      "use {x}",
      "{x} is a placeholder",
      'Sure: {"name": "f", "parameters": {}}',
      "<b>bold</b>",
      "<|",
      "   ",
    ]) {
      expect(parse(text, "llama3-json")).toEqual({ text, toolCalls: [], warnings: [] });
    }
  });

  it("a JSON answer that is not a call is text without a warning", () => {
    const text = '{"name": "Alice", "age": 3}';
    expect(parse(text, "llama3-json")).toEqual({ text, toolCalls: [], warnings: [] });
  });

  it("malformed calls are text with a warning", () => {
    const cases: [string, string][] = [
      ['{"name": "f", "parameters": {"a": 1}', "unterminated tool call at end of stream"],
      ['{"name": "f", "parameters": {a: 1}}', "tool call is not valid JSON"],
      ["<|python_tag|>hello", "<|python_tag|> is not followed by a JSON object"],
      ['<|python_tag|>{"parameters": {}}', 'JSON object is not a tool call ("name" and "parameters")'],
      ["<|python_tag|>", "no tool call after <|python_tag|>"],
    ];
    for (const [text, warning] of cases) {
      const r = parse(text, "llama3-json");
      expect(r.text).toBe(text);
      expect(r.toolCalls).toEqual([]);
      expect(r.warnings).toEqual([`llama3-json: ${warning}; released as text`]);
    }
  });

  it("a broken call after a good one: the rest is text with a warning", () => {
    const r = parse('{"name": "f", "parameters": {}}; {"name": "g", "parameters": {oops}}', "llama3-json");
    expect(r.toolCalls).toEqual([call("f", {})]);
    expect(r.text).toBe('; {"name": "g", "parameters": {oops}}');
    expect(r.warnings).toEqual(["llama3-json: tool call is not valid JSON; released as text"]);
  });

  it("streams prose at once and holds only what could still be a call", () => {
    const prose = new TextToolCallScanner("llama3-json");
    expect(prose.push("  Hel")).toEqual({ text: "  Hel", toolCalls: [] });
    expect(prose.push('lo {"name": "f"}')).toEqual({ text: 'lo {"name": "f"}', toolCalls: [] });
    expect(prose.finish()).toEqual({ text: "", toolCalls: [], warnings: [] });

    const tagLike = new TextToolCallScanner("llama3-json");
    expect(tagLike.push(" <|py")).toEqual({ text: "", toolCalls: [] });
    expect(tagLike.push("x")).toEqual({ text: " <|pyx", toolCalls: [] });

    const calls = new TextToolCallScanner("llama3-json");
    expect(calls.push('{"name": "f", "param')).toEqual({ text: "", toolCalls: [] });
    expect(calls.push('eters": {}};')).toEqual({ text: "", toolCalls: [call("f", {})] });
    expect(calls.push(" {")).toEqual({ text: "", toolCalls: [] });
    expect(calls.push('"name": "g", "parameters": {}}')).toEqual({ text: "", toolCalls: [call("g", {})] });
    expect(calls.finish()).toEqual({ text: "", toolCalls: [], warnings: [] });
  });
});

// ---------------------------------------------------------------------------------------------------------
