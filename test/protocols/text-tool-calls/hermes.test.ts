/** The `hermes` grammar: `<tool_call>{json}</tool_call>`. */
import { describe, expect, it } from "vitest";
import { TextToolCallScanner } from "../../../src/protocols/text-tool-calls/index.ts";
import { call, parse } from "./helpers.ts";

describe("hermes", () => {
  it("single call with text before and after", () => {
    const r = parse(
      'Let me look.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}\n</tool_call>\nDone.',
      "hermes",
    );
    expect(r).toEqual({
      text: "Let me look.\n\nDone.",
      toolCalls: [call("get_weather", { city: "Paris", days: 3 })],
      warnings: [],
    });
  });

  it("several calls with text between", () => {
    const r = parse(
      'A<tool_call>{"name": "a", "arguments": {}}</tool_call> B <tool_call>\n{"name": "b", "arguments": {"x": [1, {"y": null}]}}\n</tool_call>C',
      "hermes",
    );
    expect(r.text).toBe("A B C");
    expect(r.toolCalls).toEqual([call("a", {}), call("b", { x: [1, { y: null }] })]);
    expect(r.warnings).toEqual([]);
  });

  it("several JSON objects in one <tool_call> block (Ollama's Qwen templates) are several calls", () => {
    const r = parse(
      '<tool_call>\n{"name": "a", "arguments": {}}\n{"name": "b", "arguments": {"x": 1}}\n</tool_call>',
      "hermes",
    );
    expect(r).toEqual({ text: "", toolCalls: [call("a", {}), call("b", { x: 1 })], warnings: [] });
    const broken = '<tool_call>\n{"name": "a"}\n{"arguments": {}}\n</tool_call>';
    expect(parse(broken, "hermes")).toEqual({
      text: broken,
      toolCalls: [],
      warnings: ['hermes: the tool call has no "name"; released as text'],
    });
  });

  it("arguments as a JSON string keep the model's text as argumentsText", () => {
    const r = parse('<tool_call>\n{"name": "f", "arguments": "{\\"a\\": 1}"}\n</tool_call>', "hermes");
    expect(r.toolCalls).toEqual([call("f", { a: 1 }, '{"a": 1}')]);
  });

  it('"parameters" is accepted for "arguments"; missing arguments are {}', () => {
    const r = parse(
      '<tool_call>{"name": "f", "parameters": {"a": 1}}</tool_call><tool_call>{"name": "g"}</tool_call>',
      "hermes",
    );
    expect(r.toolCalls).toEqual([call("f", { a: 1 }), call("g", {})]);
  });

  it("nested JSON, braces and </tool_call> inside JSON strings", () => {
    const args = {
      code: 'if (a) { b("</tool_call>") }',
      nested: { deeper: { list: ["}", "{", "]", "[", '"', "\\"] } },
      tag: "<tool_call>\n{}\n</tool_call>",
    };
    const text = `x<tool_call>\n${JSON.stringify({ name: "run", arguments: args })}\n</tool_call>y`;
    const r = parse(text, "hermes");
    expect(r).toEqual({ text: "xy", toolCalls: [call("run", args)], warnings: [] });
  });

  it("unicode in text, names and arguments", () => {
    const r = parse(
      'Voilà 😀 — <tool_call>{"name": "recherche_été", "arguments": {"q": "日本語 😀 \\u00e9"}}</tool_call> fin',
      "hermes",
    );
    expect(r.text).toBe("Voilà 😀 —  fin");
    expect(r.toolCalls).toEqual([call("recherche_été", { q: "日本語 😀 é" })]);
  });

  it("bad JSON becomes text with a warning, and a later good call is still found", () => {
    const text =
      'Hi <tool_call>{"name": "f", "arguments": {x: 1}}</tool_call> then <tool_call>{"name": "g"}</tool_call>';
    const r = parse(text, "hermes");
    expect(r.text).toBe('Hi <tool_call>{"name": "f", "arguments": {x: 1}}</tool_call> then ');
    expect(r.toolCalls).toEqual([call("g", {})]);
    expect(r.warnings).toEqual(["hermes: <tool_call> content is not valid JSON; released as text"]);
  });

  it("missing name becomes text with a warning", () => {
    for (const body of ['{"arguments": {}}', '{"name": "", "arguments": {}}', '{"name": 3}']) {
      const text = `<tool_call>${body}</tool_call>`;
      const r = parse(text, "hermes");
      expect(r.text).toBe(text);
      expect(r.toolCalls).toEqual([]);
      expect(r.warnings).toEqual(['hermes: the tool call has no "name"; released as text']);
    }
  });

  it("a JSON array or a non-object arguments value", () => {
    const r = parse('<tool_call>["f"]</tool_call>', "hermes");
    expect(r.toolCalls).toEqual([]);
    expect(r.warnings).toEqual(["hermes: <tool_call> is not followed by a JSON object; released as text"]);
    const s = parse('<tool_call>{"name": "f", "arguments": [1, 2]}</tool_call>', "hermes");
    expect(s.toolCalls).toEqual([call("f", {}, "[1,2]")]);
    expect(s.warnings).toEqual(['hermes: arguments of tool call "f" are not a JSON object; using {}']);
    const t = parse('<tool_call>{"name": "f", "arguments": "not json"}</tool_call>', "hermes");
    expect(t.toolCalls).toEqual([call("f", {}, "not json")]);
    expect(t.warnings).toHaveLength(1);
  });

  it("unclosed tag at end of stream: text with a warning", () => {
    const text = 'Sure.\n<tool_call>\n{"name": "f", "arguments": {"a": "b';
    const r = parse(text, "hermes");
    expect(r).toEqual({
      text,
      toolCalls: [],
      warnings: ["hermes: unterminated <tool_call> at end of stream; released as text"],
    });
    const closedJson = parse('<tool_call>{"name": "f"}\n', "hermes");
    expect(closedJson.text).toBe('<tool_call>{"name": "f"}\n');
    expect(closedJson.warnings).toEqual([
      "hermes: <tool_call> is not closed by </tool_call>; released as text",
    ]);
    const wrongClose = parse('<tool_call>{"name": "f"} </tool_cal> more', "hermes");
    expect(wrongClose.text).toBe('<tool_call>{"name": "f"} </tool_cal> more');
    expect(wrongClose.warnings).toHaveLength(1);
  });

  it("truncated tag at the end is plain text without a warning", () => {
    for (const text of ["Wait <", "Wait <tool_", "Wait <tool_call"]) {
      expect(parse(text, "hermes")).toEqual({ text, toolCalls: [], warnings: [] });
    }
  });

  it("a <tool_call> mention in prose is text with a warning", () => {
    const text = "Wrap it in <tool_call> tags, then </tool_call>.";
    const r = parse(text, "hermes");
    expect(r.text).toBe(text);
    expect(r.warnings).toEqual(["hermes: <tool_call> is not followed by a JSON object; released as text"]);
  });

  it("no false positives on prose with < and {", () => {
    for (const text of [
      "a < b and c > d",
      "use {x} or {y: 1}",
      "<tool>x</tool>",
      "<tool_call",
      "</tool_call>",
    ]) {
      expect(parse(text, "hermes")).toEqual({ text, toolCalls: [], warnings: [] });
    }
  });

  it("streams text before a tag at once and holds only a possible tag start", () => {
    const scanner = new TextToolCallScanner("hermes");
    expect(scanner.push("Hello <tool_")).toEqual({ text: "Hello ", toolCalls: [] });
    expect(scanner.push("x and <")).toEqual({ text: "<tool_x and ", toolCalls: [] });
    expect(scanner.push('tool_call>{"name": "f", "argu')).toEqual({ text: "", toolCalls: [] });
    expect(scanner.push('ments": {"a": 1}}\n</tool_')).toEqual({ text: "", toolCalls: [] });
    expect(scanner.push("call> after")).toEqual({ text: " after", toolCalls: [call("f", { a: 1 })] });
    expect(scanner.finish()).toEqual({ text: "", toolCalls: [], warnings: [] });
  });
});

// ---------------------------------------------------------------------------------------------------------
