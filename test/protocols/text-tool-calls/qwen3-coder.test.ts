/** The `qwen3-coder` grammar: `<function=NAME><parameter=KEY>VALUE</parameter></function>`. */
import { describe, expect, it } from "vitest";
import { call, parse } from "./helpers.ts";

describe("qwen3-coder", () => {
  const wrap = (name: string, params: [string, string][]) =>
    `<tool_call>\n<function=${name}>\n${params.map(([k, v]) => `<parameter=${k}>\n${v}\n</parameter>\n`).join("")}</function>\n</tool_call>`;

  it("single call with text before and after", () => {
    const r = parse(`Running it.\n${wrap("run", [["command", "ls -la"]])}\nok`, "qwen3-coder");
    expect(r).toEqual({
      text: "Running it.\n\nok",
      toolCalls: [call("run", { command: "ls -la" })],
      warnings: [],
    });
  });

  it("several calls, and the form without <tool_call>", () => {
    const text = `${wrap("a", [["x", "1"]])}\n${wrap("b", [])} and <function=c>\n<parameter=y>\nz\n</parameter>\n</function> end`;
    const r = parse(text, "qwen3-coder");
    expect(r.text).toBe("\n and  end");
    expect(r.toolCalls).toEqual([call("a", { x: 1 }), call("b", {}), call("c", { y: "z" })]);
    expect(r.warnings).toEqual([]);
  });

  it("values: JSON numbers, booleans, null, objects and arrays become values; other text stays a string", () => {
    const r = parse(
      wrap("f", [
        ["n", "42"],
        ["f", "-1.5e3"],
        ["t", "true"],
        ["z", "null"],
        ["o", '{"a": [1, "}"]}'],
        ["l", "[1, 2]"],
        ["quoted", '"already quoted"'],
        ["s", "hello world"],
        ["empty", ""],
        ["almost", "{not json}"],
      ]),
      "qwen3-coder",
    );
    expect(r.toolCalls[0]!.arguments).toEqual({
      n: 42,
      f: -1500,
      t: true,
      z: null,
      o: { a: [1, "}"] },
      l: [1, 2],
      quoted: '"already quoted"',
      s: "hello world",
      empty: "",
      almost: "{not json}",
    });
    expect(JSON.parse(r.toolCalls[0]!.argumentsText)).toEqual(r.toolCalls[0]!.arguments);
  });

  it("raw multi-line values: one newline trimmed each side; tags inside a value stay in it", () => {
    const code = "\ndef f():\n    return '</tool_call>' + '</parameter>' + \"<tool_call>\"\n\n";
    const r = parse(
      wrap("write", [
        ["path", "a.py"],
        ["content", code],
      ]),
      "qwen3-coder",
    );
    expect(r.toolCalls).toEqual([call("write", { path: "a.py", content: code })]);
    expect(r.warnings).toEqual([]);
  });

  it("without the newlines the model usually writes", () => {
    const r = parse(
      "<tool_call><function=f><parameter=a>1</parameter><parameter=b>x</parameter></function></tool_call>",
      "qwen3-coder",
    );
    expect(r.toolCalls).toEqual([call("f", { a: 1, b: "x" })]);
  });

  it("a Hermes JSON body inside <tool_call> is read too", () => {
    const r = parse('<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>', "qwen3-coder");
    expect(r.toolCalls).toEqual([call("f", { a: 1 })]);
  });

  it("unicode", () => {
    const r = parse(`é ${wrap("traduire", [["texte", "日本語 😀"]])} ü`, "qwen3-coder");
    expect(r.text).toBe("é  ü");
    expect(r.toolCalls).toEqual([call("traduire", { texte: "日本語 😀" })]);
  });

  it("a parameter named __proto__ is an own property", () => {
    const r = parse(wrap("f", [["__proto__", '{"polluted": true}']]), "qwen3-coder");
    const args = r.toolCalls[0]!.arguments;
    expect(Object.keys(args)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("malformed: unclosed at end, bad names, junk in the body, missing </tool_call>", () => {
    const cases: [string, string][] = [
      [
        "<tool_call>\n<function=f>\n<parameter=a>\n1",
        "qwen3-coder: unterminated <tool_call> at end of stream",
      ],
      ["<tool_call>\n<function=bad name>\n</function>\n</tool_call>", "qwen3-coder: invalid function name"],
      [
        "<tool_call>\n<function=f>\n<parameter=a b>\n1\n</parameter>\n</function>\n</tool_call>",
        "invalid parameter",
      ],
      ["<tool_call>\n<function=f>\nsome junk\n</function>\n</tool_call>", "unexpected text in <function=f>"],
      ["<tool_call>\n<function=f>\n</function>\nnope", "is not closed by </tool_call>"],
      ["<tool_call>\nhello</tool_call>", "is not followed by <function=NAME>"],
    ];
    for (const [text, warning] of cases) {
      const r = parse(text, "qwen3-coder");
      expect(r.text).toBe(text);
      expect(r.toolCalls).toEqual([]);
      expect(r.warnings.length).toBeGreaterThan(0);
      expect(r.warnings[0]).toContain(warning);
    }
  });

  it("no false positives on prose", () => {
    for (const text of ["a < b", "<function>x</function>", "f(x) = {y}", "</parameter>", "<func"]) {
      expect(parse(text, "qwen3-coder")).toEqual({ text, toolCalls: [], warnings: [] });
    }
  });
});

// ---------------------------------------------------------------------------------------------------------
