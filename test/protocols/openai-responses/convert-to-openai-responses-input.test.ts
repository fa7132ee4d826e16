/**
 * Neutral history → Responses `input`: order is meaning (reasoning items stay bound to the item after them),
 * reasoning replays only to its own origin and model, and replay never throws on stored history
 * (property-tested on arbitrary histories).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { collectStream, type MessageInput } from "../../../src/index.ts";
import {
  convertToOpenAIResponsesInput,
  MISSING_TOOL_RESULT,
  type OpenAIResponsesReplayTarget,
} from "../../../src/protocols/openai-responses/index.ts";
import { openaiResponses } from "../../../src/providers/openai-responses.ts";

type Json = Record<string, unknown>;

const TARGET: OpenAIResponsesReplayTarget = { model: "gpt-5", origin: "openai", store: false };
const NATIVE = { protocol: "openai-responses", origin: "openai", model: "gpt-5" };

function reasoning(id: string, summary = `thinking ${id}`): Json {
  return {
    id,
    type: "reasoning",
    encrypted_content: `gAAAA-${id}-encrypted`,
    summary: [{ type: "summary_text", text: summary }],
  };
}

function call(callId: string, name = "weather", args = '{"city":"Oslo"}'): Json {
  return {
    id: `fc_${callId}`,
    type: "function_call",
    status: "completed",
    arguments: args,
    call_id: callId,
    name,
  };
}

function message(id: string, text: string): Json {
  return {
    id,
    type: "message",
    status: "completed",
    role: "assistant",
    content: [{ type: "output_text", text, annotations: [], logprobs: [] }],
  };
}

/** An assistant turn as `openaiResponses()` records it: neutral fields plus the items verbatim. */
function turn(blocks: Json[], native = NATIVE): MessageInput {
  return {
    role: "assistant",
    content: blocks
      .filter((b) => b.type === "message")
      .map((b) => ((b.content as Json[])[0] as Json).text as string)
      .join(""),
    toolCalls: blocks
      .filter((b) => b.type === "function_call")
      .map((b) => ({
        id: b.call_id as string,
        name: b.name as string,
        arguments: JSON.parse(b.arguments as string) as Json,
        argumentsText: b.arguments as string,
      })),
    native: { ...native, blocks },
  };
}

function results(...ids: string[]): MessageInput {
  return { role: "tool", toolResults: ids.map((id) => ({ callId: id, content: `result ${id}` })) };
}

function output(callId: string, text = `result ${callId}`): Json {
  return { type: "function_call_output", call_id: callId, output: text };
}

function sse(events: Json[]): string {
  return events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join("");
}

/** A Responses stream producing `items` in order, with deltas, as OpenAI streams them. */
function streamOf(items: Json[], id = "resp_1"): string {
  const events: Json[] = [
    {
      type: "response.created",
      response: { id, model: "gpt-5-2025-08-07", status: "in_progress", output: [] },
    },
  ];
  items.forEach((item, index) => {
    if (item.type === "reasoning") {
      events.push({
        type: "response.output_item.added",
        output_index: index,
        item: { ...item, encrypted_content: "gAAAA-early-value", summary: [] },
      });
      const text = ((item.summary as Json[])[0] as Json).text as string;
      events.push({
        type: "response.reasoning_summary_text.delta",
        output_index: index,
        summary_index: 0,
        delta: text,
      });
    } else if (item.type === "function_call") {
      events.push({
        type: "response.output_item.added",
        output_index: index,
        item: { ...item, arguments: "" },
      });
      events.push({
        type: "response.function_call_arguments.delta",
        output_index: index,
        delta: item.arguments,
      });
    } else {
      events.push({
        type: "response.output_item.added",
        output_index: index,
        item: { ...item, content: [] },
      });
      const text = ((item.content as Json[])[0] as Json).text as string;
      events.push({ type: "response.output_text.delta", output_index: index, content_index: 0, delta: text });
    }
    events.push({ type: "response.output_item.done", output_index: index, item });
  });
  events.push({
    type: "response.completed",
    response: {
      id,
      model: "gpt-5-2025-08-07",
      status: "completed",
      output: items,
      usage: {
        input_tokens: 50,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 90,
        output_tokens_details: { reasoning_tokens: 64 },
      },
    },
  });
  return sse(events);
}

/** A provider whose fetch answers each call with the next body and records what was sent. */
function recording(...bodies: string[]) {
  const sent: Json[] = [];
  const provider = openaiResponses({
    apiKey: "sk-test-000000000000000000000",
    model: "gpt-5",
    fetch: async (_url, init) => {
      sent.push(JSON.parse(String(init?.body)) as Json);
      const body = bodies[sent.length - 1];
      if (body === undefined) throw new Error("unexpected request");
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    },
  });
  return { provider, sent };
}

const TOOLS = [{ name: "weather", parameters: { type: "object", properties: { city: { type: "string" } } } }];

describe("convertToOpenAIResponsesInput: order is meaning", () => {
  it("a reasoning → call_a → reasoning → call_b turn round-trips in exactly that order", async () => {
    const items = [
      reasoning("rs_1"),
      call("call_a"),
      reasoning("rs_2"),
      call("call_b", "weather", '{"city":"Rome"}'),
    ];
    const { provider, sent } = recording(
      streamOf(items),
      streamOf([message("msg_1", "Sunny in both.")], "resp_2"),
    );
    const history: MessageInput[] = [{ role: "user", content: "Weather in Oslo and Rome?" }];
    const first = await collectStream(provider.stream(history, TOOLS, { thinking: { effort: "low" } }));
    // The final items, with the final encrypted_content (not output_item.added's), in emission order.
    expect(first.message.native).toStrictEqual({ ...NATIVE, blocks: items });
    expect(first.message.toolCalls.map((c) => c.id)).toEqual(["call_a", "call_b"]);
    expect(first.reasoning).toBe("thinking rs_1\n\nthinking rs_2");
    history.push(first.message, results("call_a", "call_b"));
    await collectStream(provider.stream(history, TOOLS, { thinking: { effort: "low" } }));
    expect(sent[1]!.input).toStrictEqual([
      { role: "user", content: "Weather in Oslo and Rome?" },
      items[0],
      items[1],
      items[2],
      items[3],
      output("call_a"),
      output("call_b"),
    ]);
  });

  it("the same through a JSON round trip of the stored history (what a database gives back)", () => {
    const items = [reasoning("rs_1"), call("call_a"), reasoning("rs_2"), call("call_b")];
    const stored = JSON.parse(
      JSON.stringify([{ role: "user", content: "go" }, turn(items), results("call_a", "call_b")]),
    );
    const { input, warnings } = convertToOpenAIResponsesInput(stored, TARGET);
    expect(input.map((item) => (item as Json).id ?? (item as Json).type)).toEqual([
      undefined,
      "rs_1",
      "fc_call_a",
      "rs_2",
      "fc_call_b",
      "function_call_output",
      "function_call_output",
    ]);
    expect(warnings).toEqual([]);
  });

  it("never produces the old 'all reasoning first' order, for any interleaving of one turn", () => {
    const kind = fc.constantFrom("reasoning", "call", "message");
    fc.assert(
      fc.property(fc.array(kind, { minLength: 2, maxLength: 10 }), (kinds) => {
        // Every reasoning item needs an item after it: end each sequence with a call.
        const blocks = [...kinds, "call"].map((k, i) =>
          k === "reasoning"
            ? reasoning(`rs_${i}`)
            : k === "call"
              ? call(`call_${i}`)
              : message(`msg_${i}`, `t${i}`),
        );
        const paired = blocks.filter(
          (block, i) =>
            block.type !== "reasoning" ||
            (blocks[i + 1] !== undefined && blocks[i + 1]!.type !== "reasoning"),
        );
        const { input } = convertToOpenAIResponsesInput(
          [{ role: "user", content: "go" }, turn(blocks), results(...callIds(blocks))],
          TARGET,
        );
        const replayed = input.slice(1, 1 + paired.length);
        expect(replayed).toStrictEqual(paired);
        const reasoningFirst = [
          ...paired.filter((b) => b.type === "reasoning"),
          ...paired.filter((b) => b.type !== "reasoning"),
        ];
        const interleaved =
          paired.findIndex((b) => b.type !== "reasoning") <
          paired.findLastIndex((b) => b.type === "reasoning");
        if (interleaved) expect(replayed).not.toStrictEqual(reasoningFirst);
      }),
      { numRuns: 300 },
    );
  });

  it("reasoning → call across turns stays bound to its turn's call, results in between", () => {
    const history: MessageInput[] = [
      { role: "user", content: "go" },
      turn([reasoning("rs_1"), call("call_a")]),
      results("call_a"),
      turn([reasoning("rs_2"), call("call_b")]),
      results("call_b"),
    ];
    const { input } = convertToOpenAIResponsesInput(history, TARGET);
    expect(input.map((item) => (item as Json).id ?? (item as Json).call_id ?? (item as Json).role)).toEqual([
      "user",
      "rs_1",
      "fc_call_a",
      "call_a",
      "rs_2",
      "fc_call_b",
      "call_b",
    ]);
  });

  it("a message between reasoning and call (gpt-5.5 commentary phase) is kept with its phase, in place", () => {
    const commentary = { ...message("msg_1", "Checking the tool."), phase: "commentary" };
    const blocks = [reasoning("rs_1"), commentary, call("call_a")];
    const { input } = convertToOpenAIResponsesInput([turn(blocks), results("call_a")], TARGET);
    expect(input).toStrictEqual([...blocks, output("call_a")]);
  });
});

describe("convertToOpenAIResponsesInput: provenance", () => {
  const blocks = [reasoning("rs_1"), message("msg_1", "Let me check."), call("call_a")];
  for (const [label, native] of [
    ["another model", { ...NATIVE, model: "o3" }],
    ["another origin", { ...NATIVE, origin: "api.deepseek.com" }],
  ] as const) {
    it(`a turn from ${label} is rebuilt from its text and calls; its reasoning is never sent`, () => {
      const { input, warnings } = convertToOpenAIResponsesInput(
        [turn(blocks, native), results("call_a")],
        TARGET,
      );
      expect(input).toStrictEqual([
        { role: "assistant", content: "Let me check." },
        { type: "function_call", call_id: "call_a", name: "weather", arguments: '{"city":"Oslo"}' },
        output("call_a"),
      ]);
      expect(warnings).toEqual([
        expect.stringMatching(
          /messages\[0\]: produced by openai-responses\/.*rebuilt.*1 reasoning block\(s\) dropped/,
        ),
      ]);
    });
  }

  it("an Anthropic turn (thinking + tool_use) is rebuilt; the thinking is dropped, never demoted to text", () => {
    const anthropicTurn: MessageInput = {
      role: "assistant",
      content: "",
      toolCalls: [{ id: "toolu_1", name: "weather", arguments: { city: "Oslo" } }],
      native: {
        protocol: "anthropic-messages",
        origin: "anthropic",
        model: "claude-sonnet-4-5",
        blocks: [
          { type: "thinking", thinking: "secret chain of thought", signature: "sig" },
          { type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Oslo" } },
        ],
      },
    };
    const { input, warnings } = convertToOpenAIResponsesInput([anthropicTurn, results("toolu_1")], TARGET);
    expect(input).toStrictEqual([
      { type: "function_call", call_id: "toolu_1", name: "weather", arguments: '{"city":"Oslo"}' },
      output("toolu_1"),
    ]);
    expect(JSON.stringify(input)).not.toContain("secret");
    expect(warnings[0]).toMatch(/1 reasoning block\(s\) dropped/);
  });
});

describe("convertToOpenAIResponsesInput: repairs", () => {
  it("store: false — reasoning without encrypted_content is left out and its items lose their ids", () => {
    const bare = { id: "rs_1", type: "reasoning", encrypted_content: null, summary: [] };
    const blocks = [bare, message("msg_1", "Hi."), reasoning("rs_2"), call("call_a")];
    const { input, warnings } = convertToOpenAIResponsesInput([turn(blocks), results("call_a")], TARGET);
    const { id: _id, ...msgWithoutId } = blocks[1]!;
    expect(input).toStrictEqual([msgWithoutId, blocks[2], blocks[3], output("call_a")]);
    expect(warnings).toEqual([
      expect.stringMatching(/reasoning item without encrypted_content .* store: false/),
    ]);
    // With store: true the server resolves it by id: sent as it is.
    const stored = convertToOpenAIResponsesInput([turn(blocks), results("call_a")], {
      ...TARGET,
      store: true,
    });
    expect(stored.input).toStrictEqual([...blocks, output("call_a")]);
  });

  it("reasoning-text items (DeepSeek, OpenRouter) replay without encrypted_content", () => {
    const raw = {
      id: "rs_1",
      type: "reasoning",
      summary: [],
      content: [{ type: "reasoning_text", text: "hmm" }],
    };
    const blocks = [raw, call("call_a")];
    const target = { ...TARGET, origin: "api.deepseek.com", model: "deepseek-v4-flash" };
    const native = { ...NATIVE, origin: target.origin, model: target.model };
    const { input } = convertToOpenAIResponsesInput([turn(blocks, native), results("call_a")], target);
    expect(input).toStrictEqual([...blocks, output("call_a")]);
  });

  it("a reasoning item with no item after it (an incomplete turn, two in a row) is left out", () => {
    const blocks = [reasoning("rs_1"), reasoning("rs_2"), message("msg_1", "Partial"), reasoning("rs_3")];
    const { input, warnings } = convertToOpenAIResponsesInput([turn(blocks)], TARGET);
    expect(input).toStrictEqual([blocks[1], blocks[2]]);
    expect(warnings).toHaveLength(2);
  });

  it("calls without a result get an error output; results answering nothing become user text", () => {
    const { input, warnings } = convertToOpenAIResponsesInput(
      [
        turn([call("call_a"), call("call_b")]),
        {
          role: "tool",
          toolResults: [
            { callId: "call_b", content: "fine" },
            { callId: "nope", content: "stray" },
          ],
        },
        { role: "user", content: "and now?" },
      ],
      TARGET,
    );
    expect(input).toStrictEqual([
      call("call_a"),
      call("call_b"),
      output("call_b", "fine"),
      output("call_a", `Error: ${MISSING_TOOL_RESULT}`),
      { role: "user", content: "[tool result for call nope]\nstray" },
      { role: "user", content: "and now?" },
    ]);
    expect(warnings).toHaveLength(2);
  });

  it("a result without a call id is bound to the first unanswered call; an error result says so", () => {
    const { input } = convertToOpenAIResponsesInput(
      [turn([call("call_a")]), { role: "tool", toolResults: [{ content: "boom", isError: true }] }],
      TARGET,
    );
    expect(input.at(-1)).toStrictEqual(output("call_a", "Error: boom"));
  });

  it("a repeated turn: item ids are not sent twice, call ids are renamed and their results follow", () => {
    const blocks = [reasoning("rs_1"), call("call_a")];
    const { input } = convertToOpenAIResponsesInput(
      [turn(blocks), results("call_a"), turn(blocks), results("call_a")],
      TARGET,
    );
    const { id: _id, ...callWithoutId } = blocks[1]!;
    expect(input).toStrictEqual([
      blocks[0],
      blocks[1],
      output("call_a"),
      { ...callWithoutId, call_id: "call_a_2" },
      output("call_a_2", "result call_a"),
    ]);
  });

  it("calls without a name or id, custom tool calls, system text", () => {
    const custom = {
      id: "ct_1",
      type: "custom_tool_call",
      call_id: "call_sql",
      name: "write_sql",
      input: "SELECT 1",
    };
    const { instructions, input } = convertToOpenAIResponsesInput(
      [
        { role: "system", content: "Be brief." },
        { role: "user", content: "go" },
        turn([custom]),
        results("call_sql"),
        { role: "system", content: "Really brief." },
        {
          role: "assistant",
          content: "",
          toolCalls: [
            { id: "", name: "weather", arguments: {} },
            { id: "call_x", name: "", arguments: {} },
          ],
        },
      ],
      TARGET,
    );
    expect(instructions).toBe("Be brief.\n\nReally brief.");
    expect(input).toStrictEqual([
      { role: "user", content: "go" },
      custom,
      { type: "custom_tool_call_output", call_id: "call_sql", output: "result call_sql" },
      { type: "function_call", call_id: "call_5_0", name: "weather", arguments: "{}" },
      { type: "function_call_output", call_id: "call_5_0", output: `Error: ${MISSING_TOOL_RESULT}` },
    ]);
  });

  it("previousResponseId: only what follows the last assistant turn is sent", () => {
    const history: MessageInput[] = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "go" },
      turn([reasoning("rs_1"), call("call_a")]),
      results("call_a"),
      { role: "user", content: "thanks" },
    ];
    const converted = convertToOpenAIResponsesInput(history, { ...TARGET, previousResponseId: "resp_1" });
    expect(converted.instructions).toBe("Be brief.");
    expect(converted.input).toStrictEqual([output("call_a"), { role: "user", content: "thanks" }]);
  });
});

// ---------------------------------------------------------------------------------------------------
// Property: replay never throws on stored history, and what it sends is always well formed.

function callIds(blocks: Json[]): string[] {
  return blocks.filter((b) => b.type === "function_call").map((b) => b.call_id as string);
}

const junk = fc.anything({ withNullPrototype: true, withBigInt: true, maxDepth: 2 });
const callId = fc.constantFrom("call_a", "call_b", "call_c", "", "fc:odd id");
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

const blockArb: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      type: fc.constant("reasoning"),
      id: maybe(fc.constantFrom("rs_1", "rs_2", "rs_3")),
      encrypted_content: fc.oneof(
        fc.constant(null),
        fc.constant(""),
        fc.string({ minLength: 1, maxLength: 8 }),
      ),
      summary: fc.array(fc.record({ type: fc.constant("summary_text"), text: fc.string({ maxLength: 5 }) }), {
        maxLength: 2,
      }),
      content: maybe(
        fc.array(fc.record({ type: fc.constant("reasoning_text"), text: fc.string({ maxLength: 5 }) })),
      ),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      type: fc.constant("function_call"),
      id: maybe(fc.constantFrom("fc_1", "fc_2")),
      call_id: maybe(callId),
      name: maybe(fc.constantFrom("weather", "")),
      arguments: fc.oneof(fc.string({ maxLength: 10 }), junk),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant("custom_tool_call"),
      call_id: maybe(callId),
      name: fc.constant("sql"),
      input: fc.oneof(fc.string({ maxLength: 5 }), junk),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      type: fc.constant("message"),
      id: maybe(fc.constantFrom("msg_1", "msg_2")),
      role: fc.constant("assistant"),
      content: fc.array(fc.record({ type: fc.constant("output_text"), text: fc.string({ maxLength: 5 }) }), {
        maxLength: 2,
      }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant("web_search_call"),
      id: fc.constant("ws_1"),
      status: fc.constant("completed"),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ type: fc.constant("function_call_output"), call_id: callId, output: fc.string() }),
  },
  { weight: 1, arbitrary: fc.constant("not an item") },
);

const NATIVE_ARBS = {
  protocol: fc.constantFrom("openai-responses", "anthropic-messages"),
  origin: fc.constantFrom("openai", "anthropic"),
  model: fc.constantFrom("gpt-5", "o3"),
};

const provenance = fc.constantFrom(
  NATIVE,
  NATIVE,
  NATIVE,
  { ...NATIVE, model: "o3" },
  { ...NATIVE, origin: "api.deepseek.com" },
  { protocol: "anthropic-messages", origin: "anthropic", model: "claude" },
);

const toolCallArb = fc.oneof(
  fc.record({
    id: maybe(callId),
    name: maybe(fc.constantFrom("weather", "")),
    arguments: maybe(junk),
    argumentsText: maybe(fc.string({ maxLength: 6 })),
  }),
  junk,
);

const systemArb = fc.record({
  role: fc.constant("system"),
  content: fc.oneof(fc.string({ maxLength: 6 }), junk),
});

const userArb = fc.record({
  role: fc.constantFrom("user", "tool"),
  content: maybe(fc.oneof(fc.string({ maxLength: 6 }), junk)),
  toolResults: maybe(
    fc.array(
      fc.oneof(
        fc.record({
          callId: maybe(callId),
          content: maybe(fc.oneof(fc.string({ maxLength: 6 }), junk)),
          isError: maybe(fc.boolean()),
        }),
        junk,
      ),
      { maxLength: 3 },
    ),
  ),
});

const assistantArb = fc.record({
  role: fc.constant("assistant"),
  content: maybe(fc.oneof(fc.string({ maxLength: 6 }), junk)),
  toolCalls: maybe(fc.oneof(fc.array(toolCallArb, { maxLength: 3 }), junk)),
  native: fc.option(
    fc.oneof(
      {
        weight: 6,
        arbitrary: fc
          .record({ provenance, blocks: fc.array(blockArb, { maxLength: 7, size: "medium" }) })
          .map(({ provenance: p, blocks }) => ({ ...p, blocks })),
      },
      { weight: 1, arbitrary: fc.record({ ...NATIVE_ARBS, blocks: junk }) },
      { weight: 1, arbitrary: junk },
    ),
    { nil: undefined, freq: 5 },
  ),
});

const messageArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 1, arbitrary: systemArb },
  { weight: 4, arbitrary: userArb },
  { weight: 4, arbitrary: assistantArb },
  { weight: 1, arbitrary: junk },
);

/** Stamps every record block of every native with a unique `tag` (its message and position). */
function tagged(history: unknown[]): unknown[] {
  return history.map((raw, m) => {
    if (typeof raw !== "object" || raw === null) return raw;
    const native = (raw as Json).native;
    if (typeof native !== "object" || native === null || !Array.isArray((native as Json).blocks)) return raw;
    const blocks = ((native as Json).blocks as unknown[]).map((block, b) =>
      typeof block === "object" && block !== null && !Array.isArray(block)
        ? { ...block, tag: [m, b] }
        : block,
    );
    return { ...(raw as Json), native: { ...(native as Json), blocks } };
  });
}

function matches(raw: unknown, target: OpenAIResponsesReplayTarget): boolean {
  const native = (raw as Json | null)?.native as Json | undefined;
  return (
    typeof native === "object" &&
    native !== null &&
    native.protocol === "openai-responses" &&
    native.origin === target.origin &&
    native.model === target.model
  );
}

describe("convertToOpenAIResponsesInput: property", () => {
  it("never throws on stored history, and what it sends is well formed (fast-check)", () => {
    const coverage = { runs: 0, replayed: 0, reasoning: 0, outputs: 0 };
    fc.assert(
      fc.property(
        fc.array(messageArb, { minLength: 1, maxLength: 10, size: "medium" }),
        fc.boolean(),
        (raw, store) => {
          const history = tagged(raw);
          const target = { ...TARGET, store };
          const { input, warnings } = convertToOpenAIResponsesInput(history, target);
          expect(Array.isArray(warnings)).toBe(true);
          // JSON-serialisable, so the request body can be built.
          JSON.stringify(input);

          const calls = new Set<string>();
          const answered = new Set<string>();
          let lastTag: [number, number] | undefined;
          input.forEach((item, position) => {
            const record = item as Json;
            if (record.type === "function_call" || record.type === "custom_tool_call") {
              const id = record.call_id as string;
              expect(typeof id === "string" && id !== "", "call ids are never empty").toBe(true);
              expect(calls.has(id), `call id ${id} sent twice`).toBe(false);
              calls.add(id);
            }
            if (record.type === "function_call_output" || record.type === "custom_tool_call_output") {
              const id = record.call_id as string;
              // Every output answers a call sent earlier, of the matching kind, once.
              expect(calls.has(id), `output for ${id} without an earlier call`).toBe(true);
              expect(answered.has(id)).toBe(false);
              answered.add(id);
              const callItem = input.find(
                (c) => (c as Json).call_id === id && (c as Json).type !== record.type,
              ) as Json;
              expect(record.type).toBe(
                callItem.type === "custom_tool_call" ? "custom_tool_call_output" : "function_call_output",
              );
            }
            if (record.type === "reasoning") {
              // Reasoning only from a turn of this protocol, origin and model, and only resolvable reasoning.
              const tag = record.tag as [number, number];
              expect(tag, "reasoning that came from no native block").toBeDefined();
              expect(matches(history[tag[0]], target), "reasoning from another provenance").toBe(true);
              if (!store)
                expect(
                  (typeof record.encrypted_content === "string" && record.encrypted_content !== "") ||
                    (Array.isArray(record.content) && record.content.some((p) => (p as Json).text)),
                ).toBe(true);
              // …bound to the item after it, of the same turn.
              const next = input[position + 1] as Json | undefined;
              expect(next?.tag, "reasoning without its following item").toBeDefined();
              expect((next!.tag as number[])[0]).toBe(tag[0]);
              expect(next!.type).not.toBe("reasoning");
            }
            if (Array.isArray(record.tag)) {
              // Native items keep their order, within a turn and across turns.
              const tag = record.tag as [number, number];
              expect(matches(history[tag[0]], target)).toBe(true);
              if (lastTag)
                expect(tag[0] > lastTag[0] || (tag[0] === lastTag[0] && tag[1] > lastTag[1])).toBe(true);
              lastTag = tag;
            }
          });
          coverage.runs++;
          if (input.some((i) => (i as Json).type === "reasoning")) coverage.reasoning++;
          if (answered.size > 0) coverage.outputs++;
          if (lastTag) coverage.replayed++;
          // And every call is answered.
          for (const id of calls) expect(answered.has(id), `call ${id} without an output`).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
    // Not vacuous: a good share of the histories replay native items, reasoning and tool outputs.
    expect(coverage.runs).toBe(500);
    expect(coverage.replayed).toBeGreaterThan(100);
    expect(coverage.reasoning).toBeGreaterThan(40);
    expect(coverage.outputs).toBeGreaterThan(100);
  });
});

describe("convertToOpenAIResponsesInput: gaps mutation testing found", () => {
  const user: MessageInput = { role: "user", content: "Weather in Oslo?" };

  it("mutation gap 5: blocks of another protocol with the same origin and model are rebuilt, never replayed", () => {
    const blocks = [reasoning("rs_1"), call("call_1")];
    const history = [user, turn(blocks, { ...NATIVE, protocol: "openai-chat" }), results("call_1")];
    const { input, warnings } = convertToOpenAIResponsesInput(history, TARGET);
    expect(input.some((item) => (item as Json).type === "reasoning")).toBe(false);
    expect(input).toContainEqual(
      expect.objectContaining({ type: "function_call", call_id: "call_1", name: "weather" }),
    );
    expect(warnings.join("\n")).toMatch(/produced by openai-chat\/openai\/gpt-5.*rebuilt/);
  });

  it("mutation gap 5: a matching turn whose items are all unusable is rebuilt from its text and calls, not dropped", () => {
    // store: false needs encrypted_content: a reasoning item without it cannot go back; nothing else is left.
    const bare = { id: "rs_2", type: "reasoning", summary: [] };
    const history: MessageInput[] = [
      user,
      { role: "assistant", content: "It is sunny.", toolCalls: [], native: { ...NATIVE, blocks: [bare] } },
      { role: "user", content: "And tomorrow?" },
    ];
    const { input, warnings } = convertToOpenAIResponsesInput(history, TARGET);
    expect(JSON.stringify(input)).toContain("It is sunny.");
    expect(input.some((item) => (item as Json).type === "reasoning")).toBe(false);
    expect(warnings.length).toBeGreaterThan(0);
  });

  it("mutation gap 5: an orphan tool result is kept as text, not lost", () => {
    const history: MessageInput[] = [
      user,
      { role: "tool", toolResults: [{ callId: "call_nowhere", content: "22 °C" }] },
    ];
    const { input, warnings } = convertToOpenAIResponsesInput(history, TARGET);
    expect(input.some((item) => (item as Json).type === "function_call_output")).toBe(false);
    expect(JSON.stringify(input)).toContain("22 °C");
    expect(JSON.stringify(input)).toContain("call_nowhere");
    expect(warnings.join("\n")).toContain("call_nowhere");
  });

  it("mutation gap 5: with previous_response_id only what follows the last assistant turn is sent", () => {
    const history = [
      { role: "system" as const, content: "Be brief." },
      user,
      turn([reasoning("rs_0"), message("msg_0", "Which city?")]),
      { role: "user" as const, content: "Oslo." },
      turn([reasoning("rs_1"), call("call_1")]),
      results("call_1"),
    ];
    const { input, instructions } = convertToOpenAIResponsesInput(history, {
      ...TARGET,
      store: true,
      previousResponseId: "resp_1",
    });
    expect(input).toEqual([output("call_1")]);
    expect(instructions).toBe("Be brief.");
  });

  it("mutation gap 5: a truncated call is replayed as the exact text the model produced", () => {
    const truncated = '{"city":"Os';
    const history: MessageInput[] = [
      user,
      {
        role: "assistant",
        toolCalls: [{ id: "call_t", name: "weather", arguments: {}, argumentsText: truncated }],
        native: { ...NATIVE, blocks: [call("call_t", "weather", truncated)] },
      },
      results("call_t"),
    ];
    for (const target of [TARGET, { ...TARGET, model: "gpt-5-mini" }]) {
      const { input } = convertToOpenAIResponsesInput(history, target);
      expect(input.find((item) => (item as Json).type === "function_call")).toMatchObject({
        arguments: truncated,
      });
    }
  });
});

describe("convertToOpenAIResponsesInput: previous_response_id, held calls and blank messages", () => {
  const user: MessageInput = { role: "user", content: "Weather in Oslo?" };
  const custom = (callId: string): Json => ({
    id: `ct_${callId}`,
    type: "custom_tool_call",
    call_id: callId,
    name: "write_sql",
    input: "SELECT 1",
  });

  it("an empty previousResponseId is no previous response: the whole history is sent", () => {
    const history = [user, turn([message("msg_0", "Sunny.")]), { role: "user" as const, content: "Thanks." }];
    const { input } = convertToOpenAIResponsesInput(history, { ...TARGET, previousResponseId: "" });
    expect(input).toStrictEqual([
      { role: "user", content: "Weather in Oslo?" },
      message("msg_0", "Sunny."),
      { role: "user", content: "Thanks." },
    ]);
  });

  it("previousResponseId with the assistant turn first in the history: only what follows it is sent", () => {
    const history = [
      turn([message("msg_0", "Hello! How can I help?")]),
      { role: "user" as const, content: "Hi." },
    ];
    const { input } = convertToOpenAIResponsesInput(history, { ...TARGET, previousResponseId: "resp_0" });
    expect(input).toStrictEqual([{ role: "user", content: "Hi." }]);
  });

  it("previousResponseId: the results answer the held turn's calls by their kind (a custom tool's result is a custom_tool_call_output)", () => {
    const history = [
      user,
      turn([call("call_f"), custom("call_c")]),
      {
        role: "tool" as const,
        toolResults: [
          { callId: "call_c", content: "1 row" },
          { callId: "call_f", content: "22 °C" },
        ],
      },
    ];
    const { input, warnings } = convertToOpenAIResponsesInput(history, {
      ...TARGET,
      previousResponseId: "resp_1",
    });
    expect(input).toStrictEqual([
      { type: "custom_tool_call_output", call_id: "call_c", output: "1 row" },
      output("call_f", "22 °C"),
    ]);
    expect(warnings).toEqual([]);
  });

  it("previousResponseId: a held turn stored without native items is answered through its toolCalls", () => {
    const history: MessageInput[] = [
      user,
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "call_h", name: "weather", arguments: { city: "Oslo" } }],
      },
      results("call_h"),
    ];
    const { input, warnings } = convertToOpenAIResponsesInput(history, {
      ...TARGET,
      previousResponseId: "resp_1",
    });
    expect(input).toStrictEqual([output("call_h")]);
    expect(warnings).toEqual([]);
  });

  it("blank system and user messages add nothing: no instructions, no empty user message", () => {
    const { instructions, input, refused } = convertToOpenAIResponsesInput(
      [
        { role: "system", content: "  \n" },
        { role: "user", content: " " },
        { role: "user", content: [{ type: "image", url: "gs://bucket/a.png" }] },
        user,
      ],
      TARGET,
    );
    expect(instructions).toBeUndefined();
    expect(input).toStrictEqual([{ role: "user", content: "Weather in Oslo?" }]);
    // The image the API cannot fetch is refused (the request does not go out), not sent as an empty message.
    expect(refused.map((issue) => issue.path)).toEqual(["messages[2].content[0]"]);
  });

  it("store: false — a reasoning item whose reasoning text is empty or missing cannot be resolved and is left out", () => {
    const blocks = [
      {
        id: "rs_1",
        type: "reasoning",
        summary: [],
        content: [{ type: "reasoning_text", text: "" }, { type: "reasoning_text" }, "junk"],
      },
      message("msg_1", "Sunny."),
    ];
    const { input, warnings } = convertToOpenAIResponsesInput([user, turn(blocks)], TARGET);
    const { id: _id, ...withoutId } = blocks[1] as Json;
    expect(input).toStrictEqual([{ role: "user", content: "Weather in Oslo?" }, withoutId]);
    expect(warnings).toEqual([
      "messages[1].native.blocks[0]: reasoning item without encrypted_content cannot be resolved with store: false; left out",
    ]);
  });

  it("a replayed call whose arguments are not text goes as their JSON; arguments that are no object as {}", () => {
    const blocks = [
      { ...call("call_1"), arguments: { city: "Oslo" } },
      { ...call("call_2"), arguments: 42 },
      { ...call("call_3"), arguments: ["Oslo"] },
    ];
    // Stored by hand or by another tool: the items as they are, no toolCalls.
    const stored: MessageInput = { role: "assistant", content: "", native: { ...NATIVE, blocks } };
    const { input, warnings } = convertToOpenAIResponsesInput(
      [user, stored, results("call_1", "call_2", "call_3")],
      TARGET,
    );
    expect(
      input.filter((item) => (item as Json).type === "function_call").map((item) => (item as Json).arguments),
    ).toEqual(['{"city":"Oslo"}', "{}", "{}"]);
    expect(warnings).toEqual([
      'messages[1].native.blocks[0]: arguments is not text; sent as "{\\"city\\":\\"Oslo\\"}"',
      'messages[1].native.blocks[1]: arguments is not text; sent as "{}"',
      'messages[1].native.blocks[2]: arguments is not text; sent as "{}"',
    ]);
  });

  it("a replayed call without a call_id or name, and a tool result inside the turn, are left out of the input", () => {
    const blocks = [
      { ...call("call_1"), call_id: "" },
      { ...call("call_2"), name: "" },
      { type: "custom_tool_call_output", call_id: "call_9", output: "stray" },
      message("msg_1", "Sunny."),
    ];
    const { input, warnings } = convertToOpenAIResponsesInput([user, turn(blocks)], TARGET);
    expect(input).toStrictEqual([{ role: "user", content: "Weather in Oslo?" }, blocks[3]]);
    expect(warnings).toEqual([
      "messages[1].native.blocks[0]: function_call without a call_id or a name; left out",
      "messages[1].native.blocks[1]: function_call without a call_id or a name; left out",
      "messages[1].native.blocks[2]: a tool result inside an assistant turn; left out",
    ]);
  });

  it("the item id of a call left out is not counted as sent: a later item with that id keeps it", () => {
    const bad = { ...call("call_1"), id: "fc_same", call_id: "" };
    const good = { ...call("call_2"), id: "fc_same" };
    const { input, warnings } = convertToOpenAIResponsesInput(
      [
        user,
        turn([bad, message("msg_1", "Retrying.")]),
        { role: "user", content: "Go on." },
        turn([good]),
        results("call_2"),
      ],
      TARGET,
    );
    expect(input).toContainEqual(good);
    expect(warnings).toEqual([
      "messages[1].native.blocks[0]: function_call without a call_id or a name; left out",
    ]);
  });

  it("a call id replayed three times is sent as id, id_2 and id_3, each renaming named in a warning", () => {
    const history = [
      user,
      turn([call("call_a")]),
      results("call_a"),
      turn([call("call_a")]),
      results("call_a"),
      turn([call("call_a")]),
      results("call_a"),
    ];
    const { input, warnings } = convertToOpenAIResponsesInput(history, TARGET);
    expect(
      input.filter((item) => (item as Json).type === "function_call").map((item) => (item as Json).call_id),
    ).toEqual(["call_a", "call_a_2", "call_a_3"]);
    expect(warnings).toEqual([
      "messages[3]: item id fc_call_a already sent in this request; id removed",
      "messages[3].native: call id call_a already used in this request; sent as call_a_2",
      "messages[5]: item id fc_call_a already sent in this request; id removed",
      "messages[5].native: call id call_a already used in this request; sent as call_a_3",
    ]);
  });
});
