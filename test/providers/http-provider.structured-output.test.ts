/**
 * Structured output in the HTTP shell (src/providers/http-provider.ts with src/protocols/output-tool.ts):
 * `responseFormat` prepared once and handed to the protocol, the protocol's refusals raised before any
 * request, the forced output tool's call turned into the answer's text (whole and streamed), and
 * `Response.object` read back — parsed, validated by a zod schema, a refusal left alone.
 *
 * Driven by "events", a toy protocol written here against the contract: the request body echoes what the
 * protocol was given; an answer is `{ response }`; a stream is JSON lines of neutral events.
 */
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { ProviderError } from "../../src/core/provider-error.ts";
import type { Response as ModelResponse } from "../../src/core/response.ts";
import type { StreamEvent } from "../../src/core/stream-event.ts";
import { StructuredOutputError } from "../../src/core/structured-output.ts";
import { ValidationError } from "../../src/core/validation-error.ts";
import { outputToolAnswer, outputToolEvents, outputToolSpec } from "../../src/protocols/output-tool.ts";
import type {
  Protocol,
  ProtocolContext,
  ProtocolRequest,
  ProtocolWire,
} from "../../src/protocols/protocol.ts";
import { replaysNative } from "../../src/protocols/replays-native.ts";
import { httpProvider } from "../../src/providers/http-provider.ts";

interface EventsWire extends ProtocolWire {
  request: ProtocolRequest & { model: string };
  body: { model: string; format?: unknown; tools: string[]; outputTool?: string };
  response: { response: ModelResponse };
  frame: string;
  context: ProtocolContext & { origin: string };
  usage: unknown;
  stopReason: [];
}

/** "native-…" models take the format as it is; "tool-…" models get the forced output tool. */
const eventsProtocol: Protocol<EventsWire> = {
  name: "events",
  buildRequest: ({ model, format, tools, messages }) => {
    const refused = messages.flatMap((message, index) =>
      Array.isArray((message as { content?: unknown }).content)
        ? [{ path: `messages[${index}].content`, message: "events takes text only" }]
        : [],
    );
    const body: EventsWire["body"] = { model, tools: tools.map((tool) => tool.name) };
    if (format && model.startsWith("native")) body.format = format;
    if (format && model.startsWith("tool")) {
      try {
        const tool = outputToolSpec(format, tools);
        body.tools.push(tool.name);
        return { body: { ...body, outputTool: tool.name }, warnings: [], outputTool: tool.name, refused };
      } catch (error) {
        refused.push(...(error as ValidationError).issues);
      }
    }
    return { body, warnings: [], refused };
  },
  isResponse: (json): json is EventsWire["response"] => "response" in json,
  parseResponse: (json) => json.response,
  readFrames: async function* (body) {
    const text = await new Response(body).text();
    yield text.split("\n").filter((line) => line !== "");
  },
  assembleStream: async function* (frames) {
    for await (const batch of frames) {
      for (const line of Array.isArray(batch) ? batch : [batch]) yield JSON.parse(line) as StreamEvent;
    }
  },
  mapError: (status) => ({ kind: "bad_request", message: `HTTP ${status}` }),
  mapUsage: () => ({}),
  mapStopReason: () => "stop",
  replaysNative: (native, target) => replaysNative("events", native, target),
};

function answer(overrides: Partial<ModelResponse["message"]> = {}, extra: Partial<ModelResponse> = {}) {
  return {
    message: {
      role: "assistant" as const,
      content: "",
      toolCalls: [],
      toolResults: [],
      synthetic: false,
      ...overrides,
    },
    usage: {},
    stopReason: "stop" as const,
    model: "m",
    provider: "events-host",
    ...extra,
  } satisfies ModelResponse;
}

function eventsProvider(model: string, respond: (body: EventsWire["body"]) => Response) {
  const bodies: EventsWire["body"][] = [];
  const provider = httpProvider<EventsWire>({
    protocol: eventsProtocol,
    provider: "events-host",
    model,
    secrets: [],
    fetch: (async (_input: RequestInfo | URL, init?: RequestInit) => {
      const body = JSON.parse(String(init?.body)) as EventsWire["body"];
      bodies.push(body);
      return respond(body);
    }) as typeof fetch,
    context: { provider: "events-host", model, origin: "events-host" },
    request: (call) => ({ ...call, model }),
    endpoint: () => ({ url: "https://events.example/", headers: {} }),
  });
  return { provider, bodies };
}

const json = (value: unknown) => Response.json(value);
const lines = (events: readonly StreamEvent[]) =>
  new Response(events.map((event) => JSON.stringify(event)).join("\n"));
const HI = [{ role: "user" as const, content: "hi" }];
const City = z.object({ city: z.string(), population: z.number().int() });
const FORMAT = { type: "json_schema" as const, schema: City, name: "city" };

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const seen: StreamEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

describe("responseFormat through the shell, native", () => {
  it("hands the prepared format to the protocol and reads Response.object, validated by the zod schema", async () => {
    const { provider, bodies } = eventsProvider("native-1", () =>
      json({ response: answer({ content: '{"city":"Oslo","population":709000}' }) }),
    );
    const response = await provider.complete(HI, [], { responseFormat: FORMAT });
    expect(response.object).toEqual({ city: "Oslo", population: 709000 });
    expect(bodies[0]!.format).toMatchObject({
      type: "json_schema",
      name: "city",
      strict: true,
      schema: { type: "object", required: ["city", "population"] },
    });
  });

  it("no responseFormat: no object and no format sent", async () => {
    const { provider, bodies } = eventsProvider("native-1", () =>
      json({ response: answer({ content: "{}" }) }),
    );
    const response = await provider.complete(HI);
    expect(response).not.toHaveProperty("object");
    expect(bodies[0]).not.toHaveProperty("format");
  });

  it("JSON the schema rejects is a StructuredOutputError that keeps the raw text and names the field", async () => {
    const raw = '{"city":"Oslo","population":"many"}';
    const { provider } = eventsProvider("native-1", () => json({ response: answer({ content: raw }) }));
    const error = await provider.complete(HI, [], { responseFormat: FORMAT }).catch((caught) => caught);
    expect(StructuredOutputError.is(error)).toBe(true);
    expect((error as StructuredOutputError).response.message.content).toBe(raw);
    expect((error as StructuredOutputError).issues[0]?.path).toBe("population");
  });

  it("a refusal is returned as one, not as a parse failure", async () => {
    const { provider } = eventsProvider("native-1", () =>
      json({ response: answer({}, { refusal: "I can't help with that.", stopReason: "content-filter" }) }),
    );
    const response = await provider.complete(HI, [], { responseFormat: FORMAT });
    expect(response.refusal).toBe("I can't help with that.");
    expect(response).not.toHaveProperty("object");
  });

  it("streamed: the text as it comes, then done with the object; a bad answer throws StructuredOutputError after the text", async () => {
    const text = '{"city":"Oslo","population":709000}';
    const good = eventsProvider("native-1", () =>
      lines([
        { type: "text-delta", text: text.slice(0, 10) },
        { type: "text-delta", text: text.slice(10) },
        { type: "done", response: answer({ content: text }) },
      ]),
    );
    const events = await collect(good.provider.stream(HI, [], { responseFormat: FORMAT }));
    expect(events.map((event) => event.type)).toEqual(["text-delta", "text-delta", "done"]);
    const done = events.at(-1) as Extract<StreamEvent, { type: "done" }>;
    expect(done.response.object).toEqual({ city: "Oslo", population: 709000 });

    const bad = eventsProvider("native-1", () =>
      lines([
        { type: "text-delta", text: "not json" },
        { type: "done", response: answer({ content: "not json" }) },
      ]),
    );
    const seen: StreamEvent[] = [];
    const error = await (async () => {
      for await (const event of bad.provider.stream(HI, [], { responseFormat: FORMAT })) seen.push(event);
    })().catch((caught) => caught);
    expect(StructuredOutputError.is(error)).toBe(true);
    expect(ProviderError.is(error)).toBe(false);
    expect(seen).toEqual([{ type: "text-delta", text: "not json" }]);
  });
});

describe("refusals and bad formats before any request", () => {
  it("the protocol's refused issues are one ValidationError naming the fields, and nothing is sent", async () => {
    const { provider, bodies } = eventsProvider("native-1", () => json({ response: answer() }));
    const parts = [{ role: "user" as const, content: [{ type: "text" as const, text: "a" }] }];
    const error = await provider.complete([...parts, ...parts]).catch((caught) => caught);
    expect(ValidationError.is(error)).toBe(true);
    expect((error as ValidationError).issues.map((issue) => issue.path)).toEqual([
      "messages[0].content",
      "messages[1].content",
    ]);
    await expect(collect(provider.stream(parts))).rejects.toThrow(/messages\[0\]\.content/);
    expect(bodies).toHaveLength(0);
  });

  it("a bad responseFormat names its field and sends nothing", async () => {
    const { provider, bodies } = eventsProvider("native-1", () => json({ response: answer() }));
    const error = await provider
      .complete(HI, [], { responseFormat: { type: "json_schema", schema: { type: "array" } } })
      .catch((caught) => caught);
    expect(ValidationError.is(error)).toBe(true);
    expect((error as ValidationError).issues[0]?.path).toBe("responseFormat.schema.type");
    expect(bodies).toHaveLength(0);
  });

  it("an output tool named like one of the call's tools is refused, naming responseFormat.name", async () => {
    const { provider, bodies } = eventsProvider("tool-1", () => json({ response: answer() }));
    const tools = [{ name: "city", description: "look up", parameters: { type: "object" } }];
    const error = await provider.complete(HI, tools, { responseFormat: FORMAT }).catch((caught) => caught);
    expect(ValidationError.is(error)).toBe(true);
    expect((error as ValidationError).issues[0]?.path).toBe("responseFormat.name");
    expect(bodies).toHaveLength(0);
  });
});

describe("the forced output tool", () => {
  const call = (id: string, name: string, args: Record<string, unknown>, argumentsText?: string) => ({
    id,
    name,
    arguments: args,
    ...(argumentsText === undefined ? {} : { argumentsText }),
  });

  it("outputToolSpec: the format's name and schema; plain JSON gets an object schema", () => {
    expect(
      outputToolSpec({ type: "json_schema", name: "city", schema: { type: "object" }, strict: true }, []),
    ).toMatchObject({ name: "city", parameters: { type: "object" } });
    const plain = outputToolSpec({ type: "json" }, []);
    expect(plain).toMatchObject({ name: "output", parameters: { type: "object" } });
    expect(plain.description).toMatch(/final answer/);
  });

  it("complete: the call's input is the answer text and the object; the call, its native blocks and tool-calls stop are gone", async () => {
    const text = '{"city":"Oslo","population":709000}';
    const { provider, bodies } = eventsProvider("tool-1", () =>
      json({
        response: answer(
          {
            toolCalls: [call("t1", "city", { city: "Oslo", population: 709000 }, text)],
            native: {
              protocol: "events",
              origin: "events-host",
              model: "tool-1",
              blocks: [{ a: 1 }, { b: 2 }],
            },
          },
          { stopReason: "tool-calls" },
        ),
      }),
    );
    const response = await provider.complete(HI, [], { responseFormat: FORMAT });
    expect(bodies[0]).toMatchObject({ tools: ["city"], outputTool: "city" });
    expect(response.message.content).toBe(text);
    expect(response.message.toolCalls).toEqual([]);
    expect(response.message).not.toHaveProperty("native");
    expect(response.stopReason).toBe("stop");
    expect(response.object).toEqual({ city: "Oslo", population: 709000 });
    expect(response.warnings?.join("\n")).toMatch(/native blocks are not kept for replay/);
  });

  it("without argumentsText the parsed arguments are the text; a model that answered in text is read as it is", () => {
    const viaArgs = outputToolAnswer(answer({ toolCalls: [call("t1", "out", { a: 1 })] }), "out");
    expect(viaArgs.message.content).toBe('{"a":1}');
    const plain = answer({ content: '{"a":2}' });
    expect(outputToolAnswer(plain, "out")).toBe(plain);
  });

  it("another tool called beside it stays in toolCalls with its stop reason, and both that and stray text are warned", () => {
    const response = outputToolAnswer(
      answer(
        { content: "Sure.", toolCalls: [call("t1", "lookup", { q: 1 }), call("t2", "out", { a: 1 })] },
        { stopReason: "tool-calls" },
      ),
      "out",
    );
    expect(response.message.toolCalls.map((entry) => entry.name)).toEqual(["lookup"]);
    expect(response.stopReason).toBe("tool-calls");
    expect(response.message.content).toBe('{"a":1}');
    const warnings = response.warnings?.join("\n") ?? "";
    expect(warnings).toMatch(/called lookup beside the output tool out/);
    expect(warnings).toMatch(/5 characters of text beside the output tool out/);
  });

  it("streamed: the call's argument pieces come out as text-deltas, other calls keep coming with their index shifted", async () => {
    const events: StreamEvent[] = [
      { type: "tool-call-start", index: 0, id: "t1", name: "out" },
      { type: "tool-call-delta", index: 0, id: "t1", argumentsDelta: '{"a"' },
      { type: "tool-call-delta", index: 0, id: "t1", argumentsDelta: "" },
      { type: "tool-call-start", index: 1, id: "t2", name: "lookup" },
      { type: "tool-call-delta", index: 1, id: "t2", argumentsDelta: "{}" },
      { type: "tool-call-delta", index: 0, id: "t1", argumentsDelta: ":1}" },
      { type: "tool-call-end", index: 0, toolCall: call("t1", "out", { a: 1 }, '{"a":1}') },
      { type: "tool-call-end", index: 1, toolCall: call("t2", "lookup", {}) },
      {
        type: "done",
        response: answer(
          { toolCalls: [call("t1", "out", { a: 1 }, '{"a":1}'), call("t2", "lookup", {})] },
          { stopReason: "tool-calls" },
        ),
      },
    ];
    async function* source() {
      yield* events;
    }
    const out = await collect(outputToolEvents(source(), "out"));
    expect(out.slice(0, -1)).toEqual([
      { type: "text-delta", text: '{"a"' },
      { type: "tool-call-start", index: 0, id: "t2", name: "lookup" },
      { type: "tool-call-delta", index: 0, id: "t2", argumentsDelta: "{}" },
      { type: "text-delta", text: ":1}" },
      { type: "tool-call-end", index: 0, toolCall: call("t2", "lookup", {}) },
    ]);
    const done = out.at(-1) as Extract<StreamEvent, { type: "done" }>;
    expect(done.response.message.content).toBe('{"a":1}');
    expect(done.response.message.toolCalls.map((entry) => entry.name)).toEqual(["lookup"]);
  });

  it("through the shell, stream equals complete", async () => {
    const text = '{"city":"Oslo","population":709000}';
    const final = answer(
      { toolCalls: [call("t1", "city", JSON.parse(text), text)] },
      { stopReason: "tool-calls" },
    );
    const streamed = eventsProvider("tool-1", () =>
      lines([
        { type: "tool-call-start", index: 0, id: "t1", name: "city" },
        { type: "tool-call-delta", index: 0, id: "t1", argumentsDelta: text },
        { type: "tool-call-end", index: 0, toolCall: final.message.toolCalls[0]! },
        { type: "done", response: final },
      ]),
    );
    const whole = eventsProvider("tool-1", () => json({ response: final }));
    const events = await collect(streamed.provider.stream(HI, [], { responseFormat: FORMAT }));
    expect(events.map((event) => event.type)).toEqual(["text-delta", "done"]);
    const done = (events.at(-1) as Extract<StreamEvent, { type: "done" }>).response;
    expect(done).toEqual(await whole.provider.complete(HI, [], { responseFormat: FORMAT }));
    expect(done.object).toEqual({ city: "Oslo", population: 709000 });
  });
});
