/** The `mistral` grammar: `[TOOL_CALLS]` + JSON, or `name[ARGS]{json}`. */
import { describe, expect, it } from "vitest";
import { call, parse } from "./helpers.ts";

describe("mistral", () => {
  it("JSON array form: one and several calls, text before", () => {
    const r = parse(
      'Checking. [TOOL_CALLS] [{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": "{\\"y\\": 2}"}]',
      "mistral",
    );
    expect(r).toEqual({
      text: "Checking. ",
      toolCalls: [call("a", { x: 1 }), call("b", { y: 2 }, '{"y": 2}')],
      warnings: [],
    });
  });

  it("[ARGS] form, repeated, with [CALL_ID], and name{json} without [ARGS]", () => {
    const r = parse(
      'Hi[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]add[CALL_ID]a1B2c3D4e[ARGS] {"a": 1, "b": 2}[TOOL_CALLS]noop{}',
      "mistral",
    );
    expect(r.text).toBe("Hi");
    expect(r.toolCalls).toEqual([
      call("get_weather", { city: "Paris" }, '{"city": "Paris"}'),
      call("add", { a: 1, b: 2 }, '{"a": 1, "b": 2}'),
      call("noop", {}, "{}"),
    ]);
    expect(r.warnings).toEqual([]);
  });

  it("text after the calls stays text", () => {
    const r = parse(
      '[TOOL_CALLS]f[ARGS]{"a": "]"} and then [TOOL_CALLS][{"name": "g", "arguments": {}}]!',
      "mistral",
    );
    expect(r.text).toBe(" and then !");
    expect(r.toolCalls).toEqual([call("f", { a: "]" }, '{"a": "]"}'), call("g", {})]);
  });

  it("nested JSON and tags inside JSON strings; unicode", () => {
    const args = { q: "[TOOL_CALLS]x[ARGS]{}", deep: { a: [{ b: "}]" }] }, u: "日本語 😀" };
    const r = parse(`né [TOOL_CALLS]${JSON.stringify([{ name: "s", arguments: args }])}`, "mistral");
    expect(r).toEqual({ text: "né ", toolCalls: [call("s", args)], warnings: [] });
    const v11 = parse(`[TOOL_CALLS]s[ARGS]${JSON.stringify(args)}`, "mistral");
    expect(v11.toolCalls).toEqual([call("s", args)]);
  });

  it("malformed: bad JSON, missing name, unterminated, prose after the token, [ARGS] without JSON", () => {
    const cases: [string, string][] = [
      ['[TOOL_CALLS] [{"name": "a", "arguments": {x}}]', "content is not valid JSON"],
      ['[TOOL_CALLS] [{"arguments": {}}]', 'the tool call has no "name"'],
      ["[TOOL_CALLS] []", "has no tool call"],
      ['[TOOL_CALLS] [{"name": "a", "arguments": {', "unterminated [TOOL_CALLS] at end of stream"],
      ["[TOOL_CALLS]f[ARGS]", "unterminated [TOOL_CALLS] at end of stream"],
      ["[TOOL_CALLS] is a special token.", "invalid tool name after [TOOL_CALLS]"],
      ["[TOOL_CALLS]f[ARGS]hello", "[ARGS] is not followed by JSON"],
      ["[TOOL_CALLS]f[ARGS]{x: 1}", 'arguments of tool call "f" are not valid JSON'],
      ["[TOOL_CALLS]f[OOPS]{}", "is not followed by [ARGS]"],
    ];
    for (const [text, warning] of cases) {
      const r = parse(text, "mistral");
      expect(r.text).toBe(text);
      expect(r.toolCalls).toEqual([]);
      expect(r.warnings).toHaveLength(1);
      expect(r.warnings[0]).toContain(warning);
    }
  });

  it("non-object arguments give {} and keep the text", () => {
    const r = parse("[TOOL_CALLS]f[ARGS][1, 2]", "mistral");
    expect(r.toolCalls).toEqual([call("f", {}, "[1, 2]")]);
    expect(r.warnings).toEqual(['mistral: arguments of tool call "f" are not a JSON object; using {}']);
  });

  it("no false positives on prose with [ and {", () => {
    for (const text of ["see [1, 2] and {x}", "[TOOL]", "[TOOL_CALLS", "a < b"]) {
      expect(parse(text, "mistral")).toEqual({ text, toolCalls: [], warnings: [] });
    }
  });
});

// ---------------------------------------------------------------------------------------------------------
