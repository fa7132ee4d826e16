import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  parseTextToolCalls,
  type TextToolCall,
  type TextToolCallFormat,
  TextToolCallScanner,
} from "../../../src/protocols/openai-chat/parse-text-tool-calls.ts";

const FORMATS: readonly TextToolCallFormat[] = ["hermes", "qwen3-coder", "mistral", "llama3-json"];
/** No part of these may ever be released as text when the calls are well formed. */
const TAGS = ["<tool_call", "</tool_call", "<function=", "[TOOL_CALLS]", "<|python_tag|>"];
const LONGEST_OPENER = Math.max(..."<tool_call>|<function=|[TOOL_CALLS]".split("|").map((t) => t.length));

interface Streamed {
  text: string;
  /** The text of each push (and of finish) that released any. */
  textChunks: string[];
  toolCalls: TextToolCall[];
  warnings: string[];
}

/** Feeds `chunks` one by one; `onPush(inputSoFar, releasedSoFar)` after each push. */
function stream(
  format: TextToolCallFormat,
  chunks: readonly string[],
  onPush?: (pushed: number, released: number) => void,
): Streamed {
  const scanner = new TextToolCallScanner(format);
  const textChunks: string[] = [];
  const toolCalls: TextToolCall[] = [];
  let pushed = 0;
  let released = 0;
  for (const chunk of chunks) {
    const out = scanner.push(chunk);
    pushed += chunk.length;
    released += out.text.length;
    if (out.text !== "") textChunks.push(out.text);
    toolCalls.push(...out.toolCalls);
    onPush?.(pushed, released);
  }
  const end = scanner.finish();
  if (end.text !== "") textChunks.push(end.text);
  toolCalls.push(...end.toolCalls);
  return { text: textChunks.join(""), textChunks, toolCalls, warnings: end.warnings };
}

function call(
  name: string,
  args: Record<string, unknown>,
  argumentsText = JSON.stringify(args),
): TextToolCall {
  return { name, arguments: args, argumentsText };
}

/** Parses whole and 1-char streamed, checks both agree, returns the whole parse. */
function parse(text: string, format: TextToolCallFormat) {
  const whole = parseTextToolCalls(text, format);
  const ones = stream(format, [...text]);
  expect({ text: ones.text, toolCalls: ones.toolCalls, warnings: ones.warnings }).toEqual(whole);
  return whole;
}

// ---------------------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------------------
// Property tests: any split of the text into deltas gives the whole-message result.

interface Sample {
  text: string;
  expectedText: string;
  expectedCalls: TextToolCall[];
  /**
   * Visible-text segments as [input offset, length] (text is released within {@link LONGEST_OPENER} of
   * arriving); undefined where text may legitimately be held longer (llama3-json calls).
   */
  visible?: [number, number][];
}

const containsTag = (s: string) => TAGS.some((tag) => s.includes(tag));

/** Prose that stresses hold-back: tag prefixes, brackets, unicode; never a whole tag. */
const proseArb: fc.Arbitrary<string> = fc
  .array(
    fc.constantFrom(
      "Hello",
      " ",
      "\n",
      "a < b",
      "x > y",
      "use {x}",
      "[1, 2]",
      "{",
      "}",
      "[",
      "]",
      '"',
      ";",
      "<",
      "<tool",
      "<tool_",
      "<tool_cal",
      "</tool_cal",
      "<func",
      "<function",
      "</function>",
      "</parameter>",
      "[TOOL",
      "[TOOL_CALLS",
      "<|",
      "<|python_",
      "é",
      "日本",
      "😀",
    ),
    { maxLength: 8 },
  )
  .map((pieces) => pieces.join(""))
  .filter((s) => !containsTag(s));

const stringPieceArb = fc.constantFrom(
  "abc",
  " ",
  "\n",
  "</tool_call>",
  "<tool_call>",
  "{",
  "}",
  "[",
  "]",
  '"',
  "\\",
  "[TOOL_CALLS]",
  "[ARGS]",
  "<|python_tag|>",
  "<function=x>",
  "</parameter>",
  "é",
  "😀",
  "true",
  "1",
);
const trickyStringArb = fc.array(stringPieceArb, { maxLength: 6 }).map((pieces) => pieces.join(""));
const keyArb = fc.stringMatching(/^[a-z_][a-z0-9_]{0,6}$/);
const nameArb = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/);

const jsonValueArb: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    trickyStringArb,
    fc.integer({ min: -1000, max: 1000 }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.uniqueArray(fc.tuple(keyArb, tie("value")), { maxLength: 3, selector: ([k]) => k }).map(objectOf),
  ),
})).value;

function objectOf(entries: [string, unknown][]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries) out[k] = v;
  return out;
}

const argsArb: fc.Arbitrary<Record<string, unknown>> = fc
  .uniqueArray(fc.tuple(keyArb, jsonValueArb), { maxLength: 4, selector: ([k]) => k })
  .map(objectOf);

/** Builds a sample from prose and rendered call segments. */
function interleave(parts: ({ prose: string } | { call: string; calls: TextToolCall[] })[]): Sample {
  let text = "";
  let expectedText = "";
  const expectedCalls: TextToolCall[] = [];
  const visible: [number, number][] = [];
  for (const part of parts) {
    if ("prose" in part) {
      visible.push([text.length, part.prose.length]);
      text += part.prose;
      expectedText += part.prose;
    } else {
      text += part.call;
      expectedCalls.push(...part.calls);
    }
  }
  return { text, expectedText, expectedCalls, visible };
}

function interleavedArb(
  callArb: fc.Arbitrary<{ call: string; calls: TextToolCall[] }>,
): fc.Arbitrary<Sample> {
  return (
    fc
      .tuple(proseArb, fc.array(fc.tuple(callArb, proseArb), { maxLength: 4 }))
      .map(([first, rest]) => interleave([{ prose: first }, ...rest.flatMap(([c, p]) => [c, { prose: p }])]))
      // Prose on both sides of a call may join into a tag ("[TOOL_CALLS" + call + "]"): not well formed.
      .filter((sample) => !containsTag(sample.expectedText))
  );
}

const hermesObjectArb = fc.record({
  name: nameArb,
  args: argsArb,
  asString: fc.boolean(),
  key: fc.constantFrom("arguments", "parameters"),
});

/** One `<tool_call>` block, usually with one object, sometimes several (one per line). */
const hermesCallArb = fc
  .record({
    objects: fc.oneof(
      { weight: 3, arbitrary: fc.tuple(hermesObjectArb) },
      { weight: 1, arbitrary: fc.array(hermesObjectArb, { minLength: 2, maxLength: 3 }) },
    ),
    pad: fc.constantFrom(["\n", "\n"], ["", ""], [" ", "\n\n"]),
  })
  .map(({ objects, pad }) => {
    const bodies = objects.map(({ name, args, asString, key }) =>
      JSON.stringify({ name, [key]: asString ? JSON.stringify(args) : args }),
    );
    return {
      call: `<tool_call>${pad[0]}${bodies.join("\n")}${pad[1]}</tool_call>`,
      calls: objects.map(({ name, args }) => call(name, args)),
    };
  });

/** The qwen3-coder reading of a raw parameter value. */
function qwenValue(raw: string): unknown {
  try {
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === "string" ? raw : parsed;
  } catch {
    return raw;
  }
}

/** A raw value may hold `</parameter>` except right before the next structural tag. */
const qwenRawArb = fc
  .oneof(
    trickyStringArb,
    jsonValueArb.map((v) => JSON.stringify(v)),
    fc.constantFrom("def f():\n    return 1\n", "\n\nindented\n\n", "true", "null", "3.5", '"quoted"'),
  )
  .filter(
    (v) => !/<\/parameter>\s*(?:<parameter=|<\/function>)/.test(`${v}\n`) && !v.includes("<parameter="),
  );

const qwenCallArb = fc
  .record({
    name: nameArb,
    params: fc.uniqueArray(fc.tuple(keyArb, qwenRawArb), { maxLength: 4, selector: ([k]) => k }),
    wrapped: fc.boolean(),
  })
  .map(({ name, params, wrapped }) => {
    const fn = `<function=${name}>\n${params.map(([k, v]) => `<parameter=${k}>\n${v}\n</parameter>\n`).join("")}</function>`;
    const args = objectOf(params.map(([k, v]) => [k, qwenValue(v)]));
    return { call: wrapped ? `<tool_call>\n${fn}\n</tool_call>` : fn, calls: [call(name, args)] };
  });

const mistralCallArb = fc.oneof(
  fc
    .record({
      calls: fc.array(fc.record({ name: nameArb, args: argsArb }), { minLength: 1, maxLength: 3 }),
      space: fc.constantFrom("", " "),
    })
    .map(({ calls, space }) => ({
      call: `[TOOL_CALLS]${space}${JSON.stringify(calls.map(({ name, args }) => ({ name, arguments: args })))}`,
      calls: calls.map(({ name, args }) => call(name, args)),
    })),
  fc
    .record({ name: nameArb, args: argsArb, callId: fc.option(fc.stringMatching(/^[A-Za-z0-9]{9}$/)) })
    .map(({ name, args, callId }) => ({
      call: `[TOOL_CALLS]${name}${callId === null ? "" : `[CALL_ID]${callId}`}[ARGS]${JSON.stringify(args)}`,
      calls: [call(name, args)],
    })),
);

const llamaSampleArb: fc.Arbitrary<Sample> = fc.oneof(
  // Prose only: the message does not start as a call (it may still start with "{" or "<|").
  proseArb.map((prose) => ({
    text: prose,
    expectedText: prose,
    expectedCalls: [],
    visible: /^\s*[{<]/.test(prose) ? undefined : ([[0, prose.length]] as [number, number][]),
  })),
  fc
    .record({
      lead: fc.constantFrom("", " ", "\n", "<|python_tag|>", " <|python_tag|>\n"),
      calls: fc.array(
        fc.record({ name: nameArb, args: argsArb, key: fc.constantFrom("parameters", "arguments") }),
        { minLength: 1, maxLength: 3 },
      ),
      seps: fc.array(fc.constantFrom(";", "; ", "\n", ";\n"), { minLength: 3, maxLength: 3 }),
      // Trailing prose that starts with "{" would be read as another (broken) call.
      trailing: fc.option(
        fc.tuple(
          fc.constantFrom(";", "\n", " "),
          proseArb.filter((p) => !/^[\s;]*\{/.test(p)),
        ),
      ),
    })
    .map(({ lead, calls, seps, trailing }) => {
      let text = lead;
      calls.forEach(({ name, args, key }, i) => {
        if (i > 0) text += seps[i]!;
        text += JSON.stringify({ name, [key]: args });
      });
      let expectedText = "";
      if (trailing) {
        const [sep, prose] = trailing;
        text += sep + prose;
        // Trailing separators alone are call syntax; anything else after the calls is text.
        expectedText = /^[\s;]*$/.test(prose) ? "" : sep + prose;
      }
      return { text, expectedText, expectedCalls: calls.map(({ name, args }) => call(name, args)) };
    }),
);

const SAMPLES: Record<TextToolCallFormat, fc.Arbitrary<Sample>> = {
  hermes: interleavedArb(hermesCallArb),
  "qwen3-coder": interleavedArb(qwenCallArb),
  mistral: interleavedArb(mistralCallArb),
  "llama3-json": llamaSampleArb,
};

type Chunking = { kind: "ones" } | { kind: "sizes"; sizes: number[] } | { kind: "points"; points: number[] };

const chunkingArb: fc.Arbitrary<Chunking> = fc.oneof(
  fc.constant({ kind: "ones" as const }),
  fc.record({
    kind: fc.constant("sizes" as const),
    sizes: fc.array(fc.integer({ min: 1, max: 16 }), { minLength: 1, maxLength: 6 }),
  }),
  fc.record({
    kind: fc.constant("points" as const),
    points: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 30 }),
  }),
);

function cut(text: string, chunking: Chunking): string[] {
  const offsets: number[] = [];
  if (chunking.kind === "ones") {
    for (let i = 1; i < text.length; i++) offsets.push(i);
  } else if (chunking.kind === "sizes") {
    for (let at = 0, i = 0; at < text.length; i++) {
      at += chunking.sizes[i % chunking.sizes.length]!;
      offsets.push(at);
    }
  } else {
    offsets.push(...chunking.points.map((p) => Math.floor(p * text.length)));
  }
  return splitAt(text, offsets);
}

function splitAt(text: string, offsets: readonly number[]): string[] {
  const sorted = [...new Set(offsets)].filter((o) => o > 0 && o < text.length).sort((a, b) => a - b);
  const chunks: string[] = [];
  let from = 0;
  for (const offset of sorted) {
    chunks.push(text.slice(from, offset));
    from = offset;
  }
  chunks.push(text.slice(from));
  return chunks;
}

/** Visible characters inside the first `pushed` characters of the input. */
function visibleBefore(visible: readonly [number, number][], pushed: number): number {
  let count = 0;
  for (const [at, length] of visible) count += Math.max(0, Math.min(length, pushed - at));
  return count;
}

function checkSample(format: TextToolCallFormat, sample: Sample, chunks: readonly string[]): void {
  const whole = parseTextToolCalls(sample.text, format);
  expect(whole).toEqual({ text: sample.expectedText, toolCalls: sample.expectedCalls, warnings: [] });
  const streamed = stream(format, chunks, (pushed, released) => {
    if (sample.visible) {
      // Visible text is released as soon as it cannot be the start of a tag.
      expect(released).toBeGreaterThanOrEqual(visibleBefore(sample.visible, pushed) - (LONGEST_OPENER - 1));
    }
  });
  expect(streamed.text).toBe(whole.text);
  expect(streamed.toolCalls).toEqual(whole.toolCalls);
  expect(streamed.warnings).toEqual(whole.warnings);
  for (const chunk of streamed.textChunks) expect(containsTag(chunk), chunk).toBe(false);
}

describe("every split of well-formed samples gives the whole-message result (property)", () => {
  for (const format of FORMATS) {
    it(format, () => {
      fc.assert(
        fc.property(SAMPLES[format], chunkingArb, (sample, chunking) => {
          checkSample(format, sample, cut(sample.text, chunking));
        }),
        { numRuns: 300 },
      );
    });
  }

  it("the samples do contain calls and text (the generators are not vacuous)", () => {
    for (const format of FORMATS) {
      const samples = fc.sample(SAMPLES[format], { numRuns: 200, seed: 7 });
      expect(samples.filter((s) => s.expectedCalls.length > 1).length, format).toBeGreaterThan(20);
      expect(
        samples.filter((s) => s.expectedText !== "" && s.expectedCalls.length > 0).length,
        format,
      ).toBeGreaterThan(20);
    }
  });
});

/** Tag fragments, broken calls and good calls mixed at random: streaming must still equal the whole parse. */
const soupArb = (format: TextToolCallFormat) =>
  fc
    .array(
      fc.oneof(
        fc.constantFrom(
          "<tool_call>",
          "</tool_call>",
          "<function=f>",
          "<function=",
          "<parameter=a>",
          "</parameter>",
          "</function>",
          "[TOOL_CALLS]",
          "[ARGS]",
          "[CALL_ID]",
          "<|python_tag|>",
          "{",
          "}",
          "[",
          "]",
          '"',
          "\\",
          ";",
          "\n",
          " ",
          "f",
          '"name": "f"',
          '"arguments": {}',
          '"parameters": {',
          ":",
          ",",
          "<",
          "é",
        ),
        SAMPLES[format].map((s) => s.text),
      ),
      { maxLength: 14 },
    )
    .map((parts) => parts.join(""));

describe("streaming equals the whole parse on arbitrary, malformed input too (property)", () => {
  for (const format of FORMATS) {
    it(format, () => {
      fc.assert(
        fc.property(soupArb(format), chunkingArb, (text, chunking) => {
          const whole = parseTextToolCalls(text, format);
          const streamed = stream(format, cut(text, chunking));
          expect({ text: streamed.text, toolCalls: streamed.toolCalls, warnings: streamed.warnings }).toEqual(
            whole,
          );
          // Nothing is dropped: without a call, all of the input is text.
          if (whole.toolCalls.length === 0) expect(whole.text).toBe(text);
          for (const c of whole.toolCalls) {
            expect(Object.getPrototypeOf(c.arguments)).toBe(Object.prototype);
            expect(Array.isArray(c.arguments)).toBe(false);
          }
        }),
        { numRuns: 300 },
      );
    });
  }
});

describe("exhaustive 2-way and 3-way splits of one short sample per format", () => {
  const short: Record<TextToolCallFormat, Sample> = {
    hermes: {
      text: 'Hi <tool_call>\n{"name": "f", "arguments": {"a": "</tool_call>"}}\n</tool_call> ok',
      expectedText: "Hi  ok",
      expectedCalls: [call("f", { a: "</tool_call>" })],
    },
    "qwen3-coder": {
      text: "Hi <tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call> ok",
      expectedText: "Hi  ok",
      expectedCalls: [call("f", { a: 1 })],
    },
    mistral: {
      text: 'Hi [TOOL_CALLS]f[ARGS]{"a": "]"}[TOOL_CALLS] [{"name": "g", "arguments": {}}] ok',
      expectedText: "Hi  ok",
      expectedCalls: [call("f", { a: "]" }, '{"a": "]"}'), call("g", {})],
    },
    "llama3-json": {
      text: ' <|python_tag|>{"name": "f", "parameters": {"a": "}"}}; {"name": "g", "parameters": {}}',
      expectedText: "",
      expectedCalls: [call("f", { a: "}" }), call("g", {})],
    },
  };
  for (const format of FORMATS) {
    it(format, () => {
      const sample = short[format];
      const n = sample.text.length;
      let splits = 0;
      for (let i = 0; i <= n; i++) {
        checkSample(format, sample, splitAt(sample.text, [i]));
        splits++;
        for (let j = i + 1; j < n; j++) {
          checkSample(format, sample, splitAt(sample.text, [i, j]));
          splits++;
        }
      }
      expect(splits).toBeGreaterThan((n * (n - 1)) / 2);
    });
  }
});
