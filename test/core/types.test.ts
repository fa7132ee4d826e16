import { describe, expect, it } from "vitest";
import * as zod from "zod";
import * as zm from "zod/mini";
import {
  addUsage,
  collectStream,
  normalizeMessages,
  ProviderError,
  parseCallOptions,
  parseMessages,
  type StreamEvent,
  totalInputTokens,
  ValidationError,
} from "../../src/index.ts";
import { coalesceDeltas, normalizeToolSpecs, parseToolArguments } from "../../src/protocols/index.ts";

describe("messages", () => {
  it("accepts the short form and fills defaults", () => {
    const [message] = parseMessages([{ role: "user", content: "hi" }]);
    expect(message).toEqual({
      role: "user",
      content: "hi",
      toolCalls: [],
      toolResults: [],
      synthetic: false,
    });
    expect(normalizeMessages([{ role: "assistant" }])[0]).toEqual({
      role: "assistant",
      content: "",
      toolCalls: [],
      toolResults: [],
      synthetic: false,
    });
  });

  it("names the bad field in the error", () => {
    const bad = [
      { role: "user", content: "ok" },
      { role: "assistant", toolCalls: [{ id: 7, name: "f" }] },
    ];
    const error = (() => {
      try {
        parseMessages(bad);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toMatch(/^messages\[1\]\.toolCalls\[0\]\.id: /);
    expect(() => parseMessages([{ role: "robot" }])).toThrow(/messages\[0\]\.role/);
    // A misspelt field is an error, not silently dropped content.
    expect(() => parseMessages([{ role: "assistant", tool_calls: [] }])).toThrow(/messages\[0\]/);
  });

  it("keeps native blocks and tool results intact", () => {
    const native = {
      protocol: "anthropic-messages",
      origin: "anthropic",
      model: "m",
      blocks: [{ type: "thinking", signature: "abc" }],
    };
    const [message] = parseMessages([
      { role: "assistant", native, toolCalls: [{ id: "a", name: "f", arguments: { x: 1 } }] },
    ]);
    expect(message!.native).toEqual(native);
    const [tool] = parseMessages([
      { role: "tool", toolResults: [{ callId: "a", content: "boom", isError: true }] },
    ]);
    expect(tool!.toolResults).toEqual([{ callId: "a", content: "boom", isError: true }]);
  });
});

describe("call options", () => {
  it("validates and names bad options", () => {
    expect(
      parseCallOptions({ maxTokens: 100, thinking: { budgetTokens: 2048 }, toolChoice: { name: "f" } }),
    ).toEqual({
      maxTokens: 100,
      thinking: { budgetTokens: 2048 },
      toolChoice: { name: "f" },
    });
    expect(() => parseCallOptions({ maxTokens: -1 })).toThrow(/^options\.maxTokens: /);
    expect(() => parseCallOptions({ max_tokens: 5 })).toThrow(/options/);
    expect(() => parseCallOptions({ thinking: "sometimes" })).toThrow(/options\.thinking/);
  });
});

describe("usage", () => {
  it("keeps 'not reported' distinct from zero when adding", () => {
    const total = addUsage({ inputTokens: 10, reasoningTokens: 0 }, { inputTokens: 5, outputTokens: 3 });
    expect(total).toEqual({ inputTokens: 15, outputTokens: 3, reasoningTokens: 0 });
    expect(total.cachedInputTokens).toBeUndefined();
    expect("cachedInputTokens" in total).toBe(false);
    expect(addUsage({}, {})).toEqual({});
    expect(addUsage({ outputTokens: 0 })).toEqual({ outputTokens: 0 });
  });

  it("totals input as uncached + cache reads + cache writes", () => {
    expect(totalInputTokens({ inputTokens: 10, cachedInputTokens: 100, cacheWriteTokens: 5 })).toBe(115);
    expect(totalInputTokens({ outputTokens: 3 })).toBeUndefined();
    expect(totalInputTokens({ cachedInputTokens: 0 })).toBe(0);
  });
});

describe("tool specs", () => {
  it("passes JSON Schema through and converts classic zod schemas; zod/mini goes through z.toJSONSchema", () => {
    const [plain, classic, mini] = normalizeToolSpecs([
      {
        name: "plain",
        description: "d",
        parameters: { type: "object", properties: { a: { type: "string" } } },
      },
      {
        name: "classic",
        parameters: zod.object({ city: zod.string().describe("City name"), days: zod.number().optional() }),
      },
      { name: "mini", parameters: zm.toJSONSchema(zm.object({ q: zm.string() })) },
    ]);
    expect(plain).toEqual({
      name: "plain",
      description: "d",
      parameters: { type: "object", properties: { a: { type: "string" } } },
    });
    expect(classic!.parameters).toMatchObject({
      type: "object",
      properties: { city: { type: "string", description: "City name" }, days: { type: "number" } },
      required: ["city"],
    });
    expect(classic!.parameters.$schema).toBeUndefined();
    expect(mini!.parameters.$schema).toBeUndefined();
    expect(mini!.parameters).toMatchObject({
      type: "object",
      properties: { q: { type: "string" } },
      required: ["q"],
    });
  });

  it("a zod/mini schema passed as is gets an error that says how to convert it (no 20 KB converter in the bundle)", () => {
    expect(() =>
      normalizeToolSpecs([{ name: "mini", parameters: zm.object({ q: zm.string() }) as never }]),
    ).toThrow(/^tools\[0\]\.parameters: .*z\.toJSONSchema/);
  });

  it("defaults missing parameters to an empty object schema", () => {
    expect(normalizeToolSpecs([{ name: "now" }])[0]!.parameters).toEqual({ type: "object", properties: {} });
  });

  it("rejects names providers refuse, duplicates and non-object schemas, naming the field", () => {
    expect(() => normalizeToolSpecs([{ name: "ok" }, { name: "has space" }])).toThrow(/^tools\[1\]\.name: /);
    expect(() => normalizeToolSpecs([{ name: "a" }, { name: "a" }])).toThrow(/tools\[1\]\.name: duplicate/);
    expect(() => normalizeToolSpecs([{ name: "s", parameters: zod.string() }])).toThrow(
      /tools\[0\]\.parameters\.type/,
    );
  });
});

describe("collectStream", () => {
  async function* events(list: StreamEvent[]) {
    yield* list;
  }

  it("returns the done response and shows every event to onEvent", async () => {
    const response = {
      message: {
        role: "assistant" as const,
        content: "hi",
        toolCalls: [],
        toolResults: [],
        synthetic: false,
      },
      usage: {},
      stopReason: "stop" as const,
      model: "m",
      provider: "p",
    };
    const seen: string[] = [];
    const result = await collectStream(
      events([
        { type: "text-delta", text: "hi" },
        { type: "done", response },
      ]),
      {
        onEvent: (event) => seen.push(event.type),
      },
    );
    expect(result).toBe(response);
    expect(seen).toEqual(["text-delta", "done"]);
  });

  it("turns a stream that ends without done into a truncated ProviderError, never a success", async () => {
    const error = await collectStream(events([{ type: "text-delta", text: "half" }]), {
      source: { provider: "anthropic", model: "m" },
    }).catch((e: unknown) => e);
    expect(ProviderError.is(error)).toBe(true);
    expect(error).toMatchObject({
      kind: "truncated",
      provider: "anthropic",
      partialOutput: true,
      retryable: true,
    });
  });
});

describe("parseToolArguments", () => {
  it("never throws: objects parse, everything else degrades to {}", () => {
    expect(parseToolArguments('{"a":[1,2]}')).toEqual({ a: [1, 2] });
    expect(parseToolArguments('{"a": "trunc')).toEqual({});
    expect(parseToolArguments("[1,2]")).toEqual({});
    expect(parseToolArguments('"text"')).toEqual({});
    expect(parseToolArguments("null")).toEqual({});
    expect(parseToolArguments("")).toEqual({});
  });
});

describe("coalesceDeltas", () => {
  it("merges adjacent same-kind deltas in place, keeps order and everything else", () => {
    const events: StreamEvent[] = [
      { type: "reasoning-delta", text: "a" },
      { type: "reasoning-delta", text: "b" },
      { type: "text-delta", text: "Hel" },
      { type: "text-delta", text: "lo" },
      { type: "usage", usage: { outputTokens: 1 } },
      { type: "text-delta", text: "!" },
      { type: "tool-call-start", index: 0, id: "t0", name: "f" },
      { type: "tool-call-delta", index: 0, id: "t0", argumentsDelta: '{"a"' },
      { type: "tool-call-delta", index: 0, id: "t0", argumentsDelta: ":1}" },
      { type: "tool-call-delta", index: 1, id: "t1", argumentsDelta: "{}" },
    ];
    expect(coalesceDeltas(events)).toBe(7);
    expect(events).toEqual([
      { type: "reasoning-delta", text: "ab" },
      { type: "text-delta", text: "Hello" },
      { type: "usage", usage: { outputTokens: 1 } },
      { type: "text-delta", text: "!" },
      { type: "tool-call-start", index: 0, id: "t0", name: "f" },
      { type: "tool-call-delta", index: 0, id: "t0", argumentsDelta: '{"a":1}' },
      { type: "tool-call-delta", index: 1, id: "t1", argumentsDelta: "{}" },
    ]);
  });
});
