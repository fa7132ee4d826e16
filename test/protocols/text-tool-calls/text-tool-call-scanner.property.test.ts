/** Properties over random samples and random splits: streaming is the whole parse, tags never leak. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  parseTextToolCalls,
  type TextToolCall,
  type TextToolCallFormat,
} from "../../../src/protocols/text-tool-calls/index.ts";
import { call, FORMATS, LONGEST_OPENER, stream, TAGS } from "./helpers.ts";

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
