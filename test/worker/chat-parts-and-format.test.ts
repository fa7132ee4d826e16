/**
 * Images, files and structured output through the gateway's /v1/chat/completions, inside workerd: the
 * official `openai` client (`response_format` json_schema from a zod schema, an `image_url` data URL) and
 * the AI SDK's `generateObject` through `@ai-sdk/openai-compatible` get a schema-valid object, streamed and
 * not; refusals come back as `message.refusal`; refused fields are a 400 the client raises. The route
 * behind is a recording provider registered as a protocol (`createWorker({ providers: { factories } })`),
 * whose neutral call — the image part and the format — the test checks as any route's protocol gets it;
 * and an OpenAI Chat route whose fake upstream checks the `response_format` and the `image_url` it
 * received, as the real API would get them.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateObject, streamObject } from "ai";
import OpenAI from "openai";
import { zodResponseFormat } from "openai/helpers/zod";
import { describe, expect, it, vi } from "vitest";
import * as z from "zod";
import { FakeProvider, type FakeStep } from "../../src/testing.ts";
import { createWorker } from "../../src/worker/app.ts";
import {
  ANTHROPIC_BASE,
  anthropicMessage,
  gateway,
  gatewayEnv,
  OPENAI_BASE,
  openaiCompletion,
  openaiFrames,
  parseSse,
  sseResponse,
  streamBody,
  TOKEN,
  type UpstreamCall,
  type UpstreamHandler,
} from "./helpers.ts";

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const PDF = "JVBERi0xLjQKJcOkw7zDtsOfCjIgMCBvYmoKPDwvTGVuZ3RoIDMgMCBSPj4Kc3RyZWFtCg==";

const Invoice = z.object({ vendor: z.string(), total: z.number(), paid: z.boolean() });
const ANSWER = { vendor: "ACME", total: 42.5, paid: false };

/** A gateway whose `recorder` route is `fake` (every call recorded as the route's protocol receives it). */
function gatewayOver(...script: FakeStep[]) {
  const fake = new FakeProvider({ name: "recorder", model: "recorder-1", script });
  const worker = createWorker({
    config: { routes: { recorder: { protocol: "recorder", model: "recorder-1" } } },
    providers: { factories: { recorder: { schema: {}, build: () => fake } } },
    log: () => {},
  });
  const fetchImpl = (async (url: RequestInfo | URL, init?: RequestInit) =>
    worker.app.fetch(new Request(url, init), gatewayEnv)) as typeof fetch;
  return { fake, fetch: fetchImpl };
}

function openaiClient(fetchImpl: typeof fetch): OpenAI {
  return new OpenAI({ apiKey: TOKEN, baseURL: "http://gateway.test/v1", maxRetries: 0, fetch: fetchImpl });
}

/** The JSON of `ANSWER`, in two deltas when streamed. */
const jsonReply: FakeStep = { text: JSON.stringify(ANSWER), chunkSize: 20 };

/** What the route received: the image inline, and the format the client asked for. */
function expectImageAndFormat(fake: FakeProvider, format: Record<string, unknown>) {
  expect(fake.calls).toHaveLength(1);
  const [call] = fake.calls;
  expect(call!.messages.at(-1)!.content).toEqual([
    { type: "text", text: "Read this invoice." },
    { type: "image", mediaType: "image/png", data: PNG },
  ]);
  expect(call!.options.responseFormat).toEqual(format);
}

const INVOICE_FORMAT = {
  type: "json_schema",
  name: "invoice",
  schema: expect.objectContaining({
    type: "object",
    properties: {
      vendor: { type: "string" },
      total: { type: "number" },
      paid: { type: "boolean" },
    },
    required: ["vendor", "total", "paid"],
  }),
  strict: true,
};

const imageMessage: OpenAI.Chat.Completions.ChatCompletionMessageParam = {
  role: "user",
  content: [
    { type: "text", text: "Read this invoice." },
    { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}`, detail: "auto" } },
  ],
};

describe("the openai client: response_format json_schema and an image_url data URL", () => {
  it("chat.completions.parse: a schema-valid object; the route got the image and the format", async () => {
    const { fake, fetch } = gatewayOver(jsonReply);
    const completion = await openaiClient(fetch).chat.completions.parse({
      model: "recorder",
      messages: [{ role: "system", content: "Extract the invoice." }, imageMessage],
      response_format: zodResponseFormat(Invoice, "invoice"),
    });
    const message = completion.choices[0]!.message;
    expect(message.parsed).toEqual(ANSWER);
    expect(Invoice.parse(JSON.parse(message.content!))).toEqual(ANSWER);
    expect(message.refusal).toBeNull();
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expectImageAndFormat(fake, INVOICE_FORMAT);
  });

  it("streamed (chat.completions.stream): the same object from the deltas", async () => {
    const { fake, fetch } = gatewayOver(jsonReply);
    const runner = openaiClient(fetch).chat.completions.stream({
      model: "recorder",
      messages: [imageMessage],
      response_format: zodResponseFormat(Invoice, "invoice"),
    });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]!.message.parsed).toEqual(ANSWER);
    expect(fake.calls[0]!.method).toBe("stream");
    expectImageAndFormat(fake, INVOICE_FORMAT);
  });

  it("json_object with a PDF file part: responseFormat json, the file inline with its name", async () => {
    const { fake, fetch } = gatewayOver({ text: '{"pages":1}' });
    const completion = await openaiClient(fetch).chat.completions.create({
      model: "recorder",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "How many pages? Answer in JSON." },
            {
              type: "file",
              file: { filename: "invoice.pdf", file_data: `data:application/pdf;base64,${PDF}` },
            },
          ],
        },
      ],
      response_format: { type: "json_object" },
    });
    expect(JSON.parse(completion.choices[0]!.message.content!)).toEqual({ pages: 1 });
    expect(fake.calls[0]!.options.responseFormat).toEqual({ type: "json" });
    expect(fake.calls[0]!.messages[0]!.content).toEqual([
      { type: "text", text: "How many pages? Answer in JSON." },
      { type: "file", mediaType: "application/pdf", data: PDF, filename: "invoice.pdf" },
    ]);
  });

  it("a refusal is message.refusal (parsed null), streamed as delta.refusal; finish_reason stop", async () => {
    const refused: FakeStep = {
      events: [
        {
          type: "done",
          response: {
            message: { role: "assistant", content: "", toolCalls: [], toolResults: [], synthetic: false },
            refusal: "I can't help with that.",
            stopReason: "content-filter",
            usage: { inputTokens: 10, outputTokens: 6 },
            model: "recorder-1",
            provider: "recorder",
          },
        },
      ],
    };
    const { fetch } = gatewayOver(refused, refused);
    const client = openaiClient(fetch);
    const request = {
      model: "recorder",
      messages: [imageMessage],
      response_format: zodResponseFormat(Invoice, "invoice"),
    };
    const completion = await client.chat.completions.parse(request);
    expect(completion.choices[0]!.message).toMatchObject({
      content: null,
      refusal: "I can't help with that.",
      parsed: null,
    });
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    const streamed = await client.chat.completions.stream(request).finalChatCompletion();
    expect(streamed.choices[0]!.message.refusal).toBe("I can't help with that.");
    expect(streamed.choices[0]!.message.parsed).toBeNull();
  });

  it("a field that would change the answer is a 400 the client raises, naming it; nothing is called", async () => {
    const { fake, fetch } = gatewayOver(jsonReply);
    const error = await openaiClient(fetch)
      .chat.completions.create({ model: "recorder", messages: [imageMessage], n: 2, logprobs: true })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const body = (error as InstanceType<typeof OpenAI.BadRequestError>).error as {
      issues: { path: string }[];
    };
    expect(body.issues.map((issue) => issue.path)).toEqual(["n", "logprobs"]);
    expect(fake.calls).toHaveLength(0);
  });

  it("an input_audio part is a 400 naming it", async () => {
    const { fake, fetch } = gatewayOver(jsonReply);
    const error = await openaiClient(fetch)
      .chat.completions.create({
        model: "recorder",
        messages: [
          { role: "user", content: [{ type: "input_audio", input_audio: { data: "AAAA", format: "wav" } }] },
        ],
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain("messages[0].content[0].input_audio");
    expect(fake.calls).toHaveLength(0);
  });
});

describe("the AI SDK's generateObject through @ai-sdk/openai-compatible", () => {
  const model = (fetchImpl: typeof fetch, supportsStructuredOutputs = true) =>
    createOpenAICompatible({
      name: "modelwire",
      baseURL: "http://gateway.test/v1",
      apiKey: TOKEN,
      fetch: fetchImpl,
      supportsStructuredOutputs,
    })("recorder");

  const prompt = [
    {
      role: "user" as const,
      content: [
        { type: "text" as const, text: "Read this invoice." },
        { type: "image" as const, image: `data:image/png;base64,${PNG}`, mediaType: "image/png" },
      ],
    },
  ];

  it("generateObject: a schema-valid object; the route got the image and the json_schema format", async () => {
    const { fake, fetch } = gatewayOver(jsonReply);
    const result = await generateObject({
      model: model(fetch),
      schema: Invoice,
      schemaName: "invoice",
      messages: prompt,
    });
    expect(result.object).toEqual(ANSWER);
    expectImageAndFormat(fake, INVOICE_FORMAT);
  });

  it("streamObject: the same object from the streamed deltas", async () => {
    const { fake, fetch } = gatewayOver(jsonReply);
    const errors: unknown[] = [];
    const result = streamObject({
      model: model(fetch),
      schema: Invoice,
      schemaName: "invoice",
      messages: prompt,
      onError: ({ error }) => {
        errors.push(error);
      },
    });
    const partials: unknown[] = [];
    for await (const partial of result.partialObjectStream) partials.push(partial);
    expect(errors).toEqual([]);
    expect(partials.at(-1)).toEqual(ANSWER);
    expect(await result.object).toEqual(ANSWER);
    expect(fake.calls[0]!.method).toBe("stream");
    expectImageAndFormat(fake, INVOICE_FORMAT);
  });

  it("without supportsStructuredOutputs the SDK sends json_object: responseFormat json", async () => {
    const { fake, fetch } = gatewayOver(jsonReply);
    const result = await generateObject({ model: model(fetch, false), schema: Invoice, messages: prompt });
    expect(result.object).toEqual(ANSWER);
    expectImageAndFormat(fake, { type: "json" });
  });
});

describe("through an OpenAI Chat route: the upstream gets the image and the format", () => {
  /** The upstream: checks the body it got carries the image and the json_schema, then answers JSON. */
  function checkingUpstream(received: UpstreamCall[], answer: string | null = JSON.stringify(ANSWER)) {
    const handler: UpstreamHandler = (call) => {
      received.push(call);
      expect(call.url).toBe(`${OPENAI_BASE}/chat/completions`);
      const messages = call.body.messages as { role: string; content: unknown }[];
      expect(messages.at(-1)).toEqual({
        role: "user",
        content: [
          { type: "text", text: "Read this invoice." },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      });
      expect(call.body.response_format).toEqual({
        type: "json_schema",
        json_schema: {
          name: "invoice",
          strict: true,
          schema: expect.objectContaining({
            type: "object",
            required: ["vendor", "total", "paid"],
            properties: { vendor: { type: "string" }, total: { type: "number" }, paid: { type: "boolean" } },
          }),
        },
      });
      if (call.body.stream !== true) return Response.json(openaiCompletion("gpt-4o", answer));
      return sseResponse(
        streamBody(openaiFrames("gpt-4o", answer === null ? [] : [answer.slice(0, 9), answer.slice(9)])),
      );
    };
    return handler;
  }

  function client(handler: UpstreamHandler) {
    const { worker } = gateway(handler);
    return new OpenAI({
      apiKey: TOKEN,
      baseURL: "http://gateway.test/v1",
      maxRetries: 0,
      fetch: async (url, init) => worker.app.fetch(new Request(url, init), gatewayEnv),
    });
  }

  it("the openai client's parse: a schema-valid object", async () => {
    const received: UpstreamCall[] = [];
    const completion = await client(checkingUpstream(received)).chat.completions.parse({
      model: "gpt",
      messages: [imageMessage],
      response_format: zodResponseFormat(Invoice, "invoice"),
    });
    expect(completion.choices[0]!.message.parsed).toEqual(ANSWER);
    expect(received).toHaveLength(1);
  });

  it("the openai client's stream: a schema-valid object", async () => {
    const received: UpstreamCall[] = [];
    const final = await client(checkingUpstream(received))
      .chat.completions.stream({
        model: "gpt",
        messages: [imageMessage],
        response_format: zodResponseFormat(Invoice, "invoice"),
      })
      .finalChatCompletion();
    expect(final.choices[0]!.message.parsed).toEqual(ANSWER);
    expect(received).toHaveLength(1);
    expect(received[0]!.body.stream).toBe(true);
  });

  it("the AI SDK's generateObject: a schema-valid object", async () => {
    const received: UpstreamCall[] = [];
    const { worker } = gateway(checkingUpstream(received));
    const result = await generateObject({
      model: createOpenAICompatible({
        name: "modelwire",
        baseURL: "http://gateway.test/v1",
        apiKey: TOKEN,
        fetch: async (url, init) => worker.app.fetch(new Request(url, init), gatewayEnv),
        supportsStructuredOutputs: true,
      })("gpt"),
      schema: Invoice,
      schemaName: "invoice",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Read this invoice." },
            { type: "image", image: `data:image/png;base64,${PNG}`, mediaType: "image/png" },
          ],
        },
      ],
    });
    expect(result.object).toEqual(ANSWER);
    expect(received).toHaveLength(1);
  });

  it("the upstream's refusal reaches the client as message.refusal", async () => {
    const handler: UpstreamHandler = (call) => {
      const body = openaiCompletion("gpt-4o", null);
      const choice = (body.choices as { message: Record<string, unknown> }[])[0]!;
      choice.message.refusal = "I can't help with that.";
      expect(call.body.response_format).toMatchObject({ type: "json_schema" });
      return Response.json(body);
    };
    const completion = await client(handler).chat.completions.parse({
      model: "gpt",
      messages: [imageMessage],
      response_format: zodResponseFormat(Invoice, "invoice"),
    });
    expect(completion.choices[0]!.message).toMatchObject({
      content: null,
      refusal: "I can't help with that.",
      parsed: null,
    });
    expect(completion.choices[0]!.finish_reason).toBe("stop");
  });

  it("a streamed refusal (delta.refusal upstream) reaches the client as delta.refusal", async () => {
    const frame = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({
        id: "chatcmpl-1",
        object: "chat.completion.chunk",
        created: 1,
        model: "gpt-4o",
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      })}\n\n`;
    const handler: UpstreamHandler = () =>
      sseResponse(
        streamBody([
          frame({ role: "assistant", content: null, refusal: "" }),
          frame({ refusal: "I can't " }),
          frame({ refusal: "help with that." }),
          frame({}, "stop"),
          "data: [DONE]\n\n",
        ]),
      );
    const final = await client(handler)
      .chat.completions.stream({
        model: "gpt",
        messages: [imageMessage],
        response_format: zodResponseFormat(Invoice, "invoice"),
      })
      .finalChatCompletion();
    expect(final.choices[0]!.message).toMatchObject({ refusal: "I can't help with that.", parsed: null });
    expect(final.choices[0]!.message.content ?? "").toBe("");
    expect(final.choices[0]!.finish_reason).toBe("stop");
  });
});

describe("through an Anthropic route: the image as an image block, the format natively or as the output tool", () => {
  /** The Anthropic upstream: checks the image block, then answers with `reply` (a whole message). */
  function anthropicUpstream(received: UpstreamCall[], reply: Record<string, unknown>) {
    const handler: UpstreamHandler = (call) => {
      received.push(call);
      expect(call.url).toBe(`${ANTHROPIC_BASE}/messages`);
      const messages = call.body.messages as { role: string; content: Record<string, unknown>[] }[];
      expect(messages.at(-1)!.content).toMatchObject([
        { type: "text", text: "Read this invoice." },
        { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
      ]);
      return Response.json(reply);
    };
    return handler;
  }

  function client(handler: UpstreamHandler, model: string) {
    const { worker } = gateway(handler, {
      config: {
        routes: {
          claude: {
            protocol: "anthropic",
            model,
            baseURL: ANTHROPIC_BASE,
            apiKeySecret: "ANTHROPIC_API_KEY",
          },
        },
      },
    });
    return new OpenAI({
      apiKey: TOKEN,
      baseURL: "http://gateway.test/v1",
      maxRetries: 0,
      fetch: async (url, init) => worker.app.fetch(new Request(url, init), gatewayEnv),
    });
  }

  it("a model with native structured output gets output_config.format; the client parses the object", async () => {
    const received: UpstreamCall[] = [];
    const completion = await client(
      anthropicUpstream(received, anthropicMessage(JSON.stringify(ANSWER))),
      "claude-sonnet-4-5",
    ).chat.completions.parse({
      model: "claude",
      messages: [imageMessage],
      response_format: zodResponseFormat(Invoice, "invoice"),
    });
    expect(completion.choices[0]!.message.parsed).toEqual(ANSWER);
    expect(received).toHaveLength(1);
    expect((received[0]!.body.output_config as { format?: unknown }).format).toMatchObject({
      type: "json_schema",
      schema: { type: "object", required: ["vendor", "total", "paid"] },
    });
    expect(received[0]!.body.tools).toBeUndefined();
  });

  it("an older model gets the forced output tool; its call comes back as the message's JSON", async () => {
    const received: UpstreamCall[] = [];
    const reply = {
      ...anthropicMessage("", { id: "toolu_1", name: "invoice", input: ANSWER }),
      content: [{ type: "tool_use", id: "toolu_1", name: "invoice", input: ANSWER }],
    };
    const completion = await client(
      anthropicUpstream(received, reply),
      "claude-sonnet-4-20250514",
    ).chat.completions.parse({
      model: "claude",
      messages: [imageMessage],
      response_format: zodResponseFormat(Invoice, "invoice"),
    });
    expect(completion.choices[0]!.message.parsed).toEqual(ANSWER);
    expect(completion.choices[0]!.message.tool_calls ?? []).toEqual([]);
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    const body = received[0]!.body;
    expect(body.tool_choice).toEqual({ type: "any" });
    expect((body.tools as { name: string }[]).map((tool) => tool.name)).toEqual(["invoice"]);
    expect(body.output_config).toBeUndefined();
  });
});

describe("the demo route", () => {
  it("cannot give a structured answer: response_format is a 400 naming responseFormat, never ignored", async () => {
    const { call } = gateway(() => Response.json({}));
    const response = await call("/v1/chat/completions", {
      json: {
        model: "demo",
        messages: [{ role: "user", content: "hi" }],
        response_format: { type: "json_object" },
      },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { issues: [{ path: "responseFormat" }] } });
  });

  it("shows an image part as [image] in its echo", async () => {
    const { call } = gateway(() => Response.json({}));
    const response = await call("/v1/chat/completions", {
      json: {
        model: "demo",
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "see " },
              { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
            ],
          },
        ],
      },
    });
    const body = (await response.json()) as { choices: { message: { content: string } }[] };
    expect(body.choices[0]!.message.content).toBe(
      "Hello from the modelwire demo route. You said: see [image]",
    );
  });
});

describe("the neutral /v1/complete and /v1/stream: parts and responseFormat as the library takes them", () => {
  const FORMAT = {
    type: "json_schema",
    name: "invoice",
    schema: {
      type: "object",
      properties: { vendor: { type: "string" }, total: { type: "number" }, paid: { type: "boolean" } },
      required: ["vendor", "total", "paid"],
    },
  };
  const MESSAGES = [
    {
      role: "user",
      content: [
        { type: "text", text: "Read this invoice." },
        { type: "image", url: `data:image/png;base64,${PNG}` },
      ],
    },
  ];

  function neutral(...script: FakeStep[]) {
    const { fake, fetch: fetchImpl } = gatewayOver(...script);
    const send = (path: string, json: unknown) =>
      fetchImpl(`http://gateway.test${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify(json),
      });
    return { fake, send };
  }

  it("/v1/complete: the route gets the image inline and the format; the response carries object", async () => {
    const { fake, send } = neutral(jsonReply);
    const response = await send("/v1/complete", {
      route: "recorder",
      messages: MESSAGES,
      options: { responseFormat: FORMAT },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      object: ANSWER,
      message: { content: JSON.stringify(ANSWER) },
    });
    expectImageAndFormat(fake, FORMAT);
  });

  it("/v1/stream: the done event's response carries object", async () => {
    const { fake, send } = neutral(jsonReply);
    const response = await send("/v1/stream", {
      route: "recorder",
      messages: MESSAGES,
      options: { responseFormat: FORMAT },
    });
    const frames = parseSse(await response.text());
    expect(frames.at(-1)!.event).toBe("done");
    expect(JSON.parse(frames.at(-1)!.data)).toMatchObject({ type: "done", response: { object: ANSWER } });
    expectImageAndFormat(fake, FORMAT);
  });

  it("a bad part or format is a 400 naming the field, before any call", async () => {
    const { fake, send } = neutral(jsonReply);
    const response = await send("/v1/complete", {
      route: "recorder",
      messages: [
        { role: "user", content: [{ type: "image", mediaType: "image/png", data: "not base64!" }] },
        { role: "user", content: [{ type: "file", url: "ftp://example.com/a.pdf" }] },
      ],
      // A zod schema cannot travel over HTTP: the schema is JSON Schema, an object.
      options: { responseFormat: { type: "json_schema", schema: "z.object({})" } },
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { issues: { path: string }[] } };
    expect(body.error.issues.map((issue) => issue.path)).toEqual([
      "messages[0].content[0].data",
      "messages[1].content[0].url",
      "options.responseFormat.schema",
    ]);
    expect(fake.calls).toHaveLength(0);
  });

  it("an https image URL reaches the route as a URL: the gateway downloads nothing", async () => {
    const { fake, send } = neutral({ text: "A cat." }, { text: "A dog." });
    const fetchSpy = vi.spyOn(globalThis, "fetch");
    try {
      const response = await send("/v1/complete", {
        route: "recorder",
        messages: [{ role: "user", content: [{ type: "image", url: "https://example.com/cat.jpg" }] }],
      });
      expect(response.status).toBe(200);
      const chat = await send("/v1/chat/completions", {
        model: "recorder",
        messages: [
          {
            role: "user",
            content: [{ type: "image_url", image_url: { url: "https://example.com/dog.jpg" } }],
          },
        ],
      });
      expect(chat.status).toBe(200);
    } finally {
      fetchSpy.mockRestore();
    }
    expect(fetchSpy).not.toHaveBeenCalled();
    expect(fake.calls[0]!.messages[0]!.content).toEqual([
      { type: "image", url: "https://example.com/cat.jpg" },
    ]);
  });

  it("an answer that is not the JSON asked for: a 502 of kind structured_output keeping the text (complete and stream)", async () => {
    const { send } = neutral({ text: "Paris, I think." }, { text: "Paris, I think." });
    const complete = await send("/v1/complete", {
      route: "recorder",
      messages: MESSAGES,
      options: { responseFormat: FORMAT },
    });
    expect(complete.status).toBe(502);
    expect(await complete.json()).toMatchObject({
      error: { kind: "structured_output", response: { message: { content: "Paris, I think." } } },
    });
    const stream = await send("/v1/stream", {
      route: "recorder",
      messages: MESSAGES,
      options: { responseFormat: FORMAT },
    });
    const frames = parseSse(await stream.text());
    expect(frames.at(-1)!.event).toBe("error");
    expect(JSON.parse(frames.at(-1)!.data)).toMatchObject({
      kind: "structured_output",
      response: { message: { content: "Paris, I think." } },
    });
  });
});
