/**
 * Structured output on the Responses API: `responseFormat` goes as `text.format` (`json_schema` or
 * `json_object`), the answer is read into `Response.object` on `complete()` and on the stream's `done`,
 * and a refusal (`refusal` content part; `response.refusal.delta` / `.done` events) is `Response.refusal`
 * with stop reason `content-filter` — not a parse failure — the same on both paths.
 */
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { collectStream, type StreamEvent } from "../../../src/index.ts";
import {
  buildOpenAIResponsesRequest,
  type openAIResponsesTextFormat,
  parseOpenAIResponsesResponse,
} from "../../../src/protocols/openai-responses/index.ts";
import { openaiResponses } from "../../../src/providers/openai-responses.ts";

type Json = Record<string, unknown>;

const SCHEMA = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
  additionalProperties: false,
};
const City = z.object({ city: z.string() });
const CONTEXT = { provider: "openai", model: "gpt-4.1", origin: "openai" };

function build(format: Parameters<typeof openAIResponsesTextFormat>[0] | undefined) {
  return buildOpenAIResponsesRequest({
    messages: [{ role: "user", content: "Where? Answer in JSON." }],
    tools: [],
    options: {},
    model: "gpt-4.1",
    origin: "openai",
    stream: false,
    format,
  });
}

function sse(events: Json[]): Response {
  const body = events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join("");
  return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
}

/** A provider answering every call with `answer()`, and the bodies it was sent. */
function provider(answer: () => Response) {
  const bodies: Json[] = [];
  const model = openaiResponses({
    apiKey: "sk-test",
    model: "gpt-4.1",
    fetch: async (_url, init) => {
      bodies.push(JSON.parse(String(init?.body)) as Json);
      return answer();
    },
  });
  return { model, bodies };
}

const REFUSAL_ITEM = {
  id: "msg_1",
  type: "message",
  status: "completed",
  role: "assistant",
  content: [{ type: "refusal", refusal: "I can't help with that." }],
};

function completed(output: unknown[]): Json {
  return {
    id: "resp_1",
    object: "response",
    model: "gpt-4.1-2025-04-14",
    status: "completed",
    output,
    usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
  };
}

/** A refusal streamed as OpenAI streams it: the part, its deltas, `.done`, the item, the terminal event. */
function refusalEvents(terminalOutput: unknown[] = [REFUSAL_ITEM], itemDone = true): Json[] {
  const added = { ...REFUSAL_ITEM, status: "in_progress", content: [] };
  return [
    { type: "response.created", response: { ...completed([]), status: "in_progress" } },
    { type: "response.output_item.added", output_index: 0, item: added },
    {
      type: "response.content_part.added",
      output_index: 0,
      content_index: 0,
      item_id: "msg_1",
      part: { type: "refusal", refusal: "" },
    },
    {
      type: "response.refusal.delta",
      output_index: 0,
      content_index: 0,
      item_id: "msg_1",
      delta: "I can't ",
    },
    {
      type: "response.refusal.delta",
      output_index: 0,
      content_index: 0,
      item_id: "msg_1",
      delta: "help with that.",
    },
    {
      type: "response.refusal.done",
      output_index: 0,
      content_index: 0,
      item_id: "msg_1",
      refusal: "I can't help with that.",
    },
    ...(itemDone ? [{ type: "response.output_item.done", output_index: 0, item: REFUSAL_ITEM }] : []),
    { type: "response.completed", response: completed(terminalOutput) },
  ];
}

describe("Responses text.format", () => {
  it("a JSON Schema format is json_schema with name, schema and strict; description when given", () => {
    expect(
      build({ type: "json_schema", name: "city", schema: SCHEMA, strict: true }).body.text,
    ).toStrictEqual({ format: { type: "json_schema", name: "city", schema: SCHEMA, strict: true } });
    expect(
      build({ type: "json_schema", name: "city", schema: SCHEMA, strict: false, description: "The city." })
        .body.text,
    ).toStrictEqual({
      format: { type: "json_schema", name: "city", schema: SCHEMA, strict: false, description: "The city." },
    });
  });

  it("plain JSON is json_object; no format sends no text field", () => {
    expect(build({ type: "json" }).body.text).toStrictEqual({ format: { type: "json_object" } });
    expect(build(undefined).body).not.toHaveProperty("text");
  });

  it("complete(): the shell prepares a zod schema, sends it as text.format, and parses the answer", async () => {
    const message = {
      id: "msg_1",
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: '{"city":"Oslo"}', annotations: [] }],
    };
    const { model, bodies } = provider(() => Response.json(completed([message])));
    const response = await model.complete([{ role: "user", content: "Where?" }], [], {
      responseFormat: { type: "json_schema", name: "city", schema: City },
    });
    expect(response.object).toStrictEqual({ city: "Oslo" });
    const format = (bodies[0]!.text as { format: Json }).format;
    expect(format).toMatchObject({ type: "json_schema", name: "city", strict: true });
    expect((format.schema as Json).properties).toStrictEqual({ city: { type: "string" } });
  });

  it("stream(): the JSON streams as text deltas and done carries the object, as complete() does", async () => {
    const item = {
      id: "msg_1",
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: '{"city":"Oslo"}', annotations: [] }],
    };
    const events = [
      { type: "response.created", response: { ...completed([]), status: "in_progress" } },
      { type: "response.output_item.added", output_index: 0, item: { ...item, content: [] } },
      { type: "response.output_text.delta", output_index: 0, content_index: 0, delta: '{"city":' },
      { type: "response.output_text.delta", output_index: 0, content_index: 0, delta: '"Oslo"}' },
      { type: "response.output_item.done", output_index: 0, item },
      { type: "response.completed", response: completed([item]) },
    ];
    const options = { responseFormat: { type: "json_schema" as const, name: "city", schema: City } };
    const streaming = provider(() => sse(events));
    const seen: StreamEvent[] = [];
    for await (const event of streaming.model.stream([{ role: "user", content: "Where?" }], [], options))
      seen.push(event);
    const deltas = seen.flatMap((event) => (event.type === "text-delta" ? [event.text] : []));
    expect(deltas.join("")).toBe('{"city":"Oslo"}');
    const done = seen.at(-1);
    expect(done?.type).toBe("done");
    const whole = await provider(() => Response.json(completed([item]))).model.complete(
      [{ role: "user", content: "Where?" }],
      [],
      options,
    );
    expect(done?.type === "done" ? done.response : undefined).toStrictEqual(whole);
    expect(whole.object).toStrictEqual({ city: "Oslo" });
  });
});

describe("Responses refusals", () => {
  it("a refusal part is Response.refusal with stop reason content-filter; the item stays verbatim", () => {
    const response = parseOpenAIResponsesResponse(completed([REFUSAL_ITEM]) as never, CONTEXT);
    expect(response.refusal).toBe("I can't help with that.");
    expect(response.stopReason).toBe("content-filter");
    expect(response.message.content).toBe("I can't help with that.");
    expect(response.message.native?.blocks).toStrictEqual([REFUSAL_ITEM]);
  });

  it("text beside a refusal stays the content; the refusal is still reported", () => {
    const item = {
      ...REFUSAL_ITEM,
      content: [{ type: "output_text", text: "Partly: ", annotations: [] }, ...REFUSAL_ITEM.content],
    };
    const response = parseOpenAIResponsesResponse(completed([item]) as never, CONTEXT);
    expect(response.message.content).toBe("Partly: ");
    expect(response.refusal).toBe("I can't help with that.");
    expect(response.stopReason).toBe("content-filter");
  });

  it("no refusal part, no refusal", () => {
    const item = { ...REFUSAL_ITEM, content: [{ type: "output_text", text: "ok", annotations: [] }] };
    const response = parseOpenAIResponsesResponse(completed([item]) as never, CONTEXT);
    expect(response).not.toHaveProperty("refusal");
    expect(response.stopReason).toBe("stop");
  });

  it("with responseFormat, a refusal is returned as a refusal, not a StructuredOutputError", async () => {
    const { model } = provider(() => Response.json(completed([REFUSAL_ITEM])));
    const response = await model.complete([{ role: "user", content: "?" }], [], {
      responseFormat: { type: "json_schema", name: "city", schema: City },
    });
    expect(response.refusal).toBe("I can't help with that.");
    expect(response.stopReason).toBe("content-filter");
    expect(response).not.toHaveProperty("object");
  });

  it("a streamed refusal: done equals complete(), and the refusal is not streamed as text", async () => {
    const options = { responseFormat: { type: "json_schema" as const, name: "city", schema: City } };
    const seen: StreamEvent[] = [];
    for await (const event of provider(() => sse(refusalEvents())).model.stream(
      [{ role: "user", content: "?" }],
      [],
      options,
    ))
      seen.push(event);
    expect(seen.some((event) => event.type === "text-delta")).toBe(false);
    const done = seen.at(-1);
    const whole = await provider(() => Response.json(completed([REFUSAL_ITEM]))).model.complete(
      [{ role: "user", content: "?" }],
      [],
      options,
    );
    expect(done).toStrictEqual({ type: "done", response: whole });
    expect(whole.refusal).toBe("I can't help with that.");
  });

  it("a terminal response without output: the refusal is rebuilt from its deltas", async () => {
    const response = await collectStream(
      provider(() => sse(refusalEvents([], false))).model.stream([{ role: "user", content: "?" }]),
    );
    expect(response.refusal).toBe("I can't help with that.");
    expect(response.stopReason).toBe("content-filter");
    expect(response.message.native?.blocks).toStrictEqual([
      {
        ...REFUSAL_ITEM,
        status: "in_progress",
        content: [{ type: "refusal", refusal: "I can't help with that." }],
      },
    ]);
    expect(response.warnings?.[0]).toMatch(/never got its output_item\.done/);
  });

  it("refusal.done alone (no deltas) gives the whole refusal", async () => {
    const events = refusalEvents([], false).filter((event) => event.type !== "response.refusal.delta");
    const response = await collectStream(
      provider(() => sse(events)).model.stream([{ role: "user", content: "?" }]),
    );
    expect(response.refusal).toBe("I can't help with that.");
  });
});
