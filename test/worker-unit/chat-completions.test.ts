/**
 * The Chat Completions facade's mapping, outside workerd: request fields (each one mapped, ignored or
 * refused by name), content parts and tool results with parts, `response_format`, and the answer's
 * `refusal` in the JSON and the chunks.
 */
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import type { Response as ModelResponse } from "../../src/core/response.ts";
import type { StreamEvent } from "../../src/core/stream-event.ts";
import { StructuredOutputError } from "../../src/core/structured-output.ts";
import { ValidationError, type ValidationIssue } from "../../src/core/validation-error.ts";
import {
  CHAT_REQUEST_FIELDS,
  ChatCompletionsRequestSchema,
  chatChunksOf,
  chatCompletionOf,
  chatRequestToNeutral,
  completedOrRaw,
} from "../../src/worker/chat-completions.ts";

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const PDF = "JVBERi0xLjQKJcOkw7zDtsOfCjIgMCBvYmoKPDwvTGVuZ3RoIDMgMCBSPj4Kc3RyZWFtCg==";

const user = (content: unknown) => ({ model: "claude", messages: [{ role: "user", content }] });

/** The issues of the ValidationError `body` raises (fails when it does not raise one). */
function issuesOf(body: unknown): readonly ValidationIssue[] {
  try {
    chatRequestToNeutral(body);
  } catch (error) {
    if (ValidationError.is(error)) return error.issues;
    throw error;
  }
  throw new Error("expected a ValidationError");
}

describe("the field table", () => {
  it("names every field of the official client's request type, and the schema takes exactly those", () => {
    // Compile-time: a field the `openai` client can send and the table does not list fails `npm run lint`.
    type ClientField = keyof OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;
    type Unlisted = Exclude<ClientField, keyof typeof CHAT_REQUEST_FIELDS>;
    const everyFieldListed: [Unlisted] extends [never] ? true : Unlisted = true;
    expect(everyFieldListed).toBe(true);
    const schemaFields = Object.keys(ChatCompletionsRequestSchema.def.shape).sort();
    expect(schemaFields).toEqual(Object.keys(CHAT_REQUEST_FIELDS).sort());
  });

  it("an unknown field is refused by name, as OpenAI refuses one", () => {
    expect(issuesOf({ ...user("hi"), top_k: 5 })).toEqual([
      { path: "top_k", message: 'unknown field "top_k"' },
    ]);
  });

  const refusedValues: [string, unknown][] = [
    ["n", 2],
    ["logprobs", true],
    ["top_logprobs", 3],
    ["logit_bias", { "50256": -100 }],
    ["frequency_penalty", 0.5],
    ["presence_penalty", -1],
    ["audio", { voice: "alloy", format: "mp3" }],
    ["modalities", ["text", "audio"]],
    ["prediction", { type: "content", content: "old code" }],
    ["web_search_options", {}],
    ["verbosity", "low"],
    ["moderation", { input: {} }],
    ["functions", [{ name: "f", parameters: {} }]],
    ["function_call", "auto"],
  ];

  it("every refused field is listed as refused", () => {
    const refused = Object.entries(CHAT_REQUEST_FIELDS)
      .filter(([, field]) => field.handling === "refused")
      .map(([name]) => name)
      .sort();
    expect(refused).toEqual(refusedValues.map(([name]) => name).sort());
  });

  it.each(refusedValues)("%s that changes the answer is a 400 naming it", (field, value) => {
    const issues = issuesOf({ ...user("hi"), [field]: value });
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toBe(field);
  });

  it("every refused field is named at once", () => {
    const body = { ...user("hi"), ...Object.fromEntries(refusedValues) };
    expect(issuesOf(body).map((issue) => issue.path)).toEqual(
      expect.arrayContaining(refusedValues.map(([name]) => name)),
    );
  });

  it("a refused field at its default (or null) is accepted: n 1, logprobs false, zero penalties, text modality", () => {
    const call = chatRequestToNeutral({
      ...user("hi"),
      n: 1,
      logprobs: false,
      top_logprobs: 0,
      logit_bias: {},
      frequency_penalty: 0,
      presence_penalty: 0,
      modalities: ["text"],
      audio: null,
      prediction: null,
      verbosity: null,
    });
    expect(call.messages).toEqual([{ role: "user", content: "hi" }]);
    expect(call.options).toEqual({});
  });

  it("the harmless fields are accepted and leave the call as it was", () => {
    const call = chatRequestToNeutral({
      ...user("hi"),
      metadata: { team: "a" },
      store: true,
      service_tier: "flex",
      seed: 42,
      prompt_cache_key: "k",
      prompt_cache_retention: "24h",
      prompt_cache_options: {},
      stream_options: { include_usage: true, include_obfuscation: false },
    });
    expect(call.options).toEqual({});
    expect(call.includeUsage).toBe(true);
  });

  it("reasoning_effort: none is thinking off, xhigh and max the highest effort", () => {
    expect(chatRequestToNeutral({ ...user("hi"), reasoning_effort: "none" }).options.thinking).toBe("off");
    expect(chatRequestToNeutral({ ...user("hi"), reasoning_effort: "xhigh" }).options.thinking).toEqual({
      effort: "max",
    });
    expect(chatRequestToNeutral({ ...user("hi"), reasoning_effort: "low" }).options.thinking).toEqual({
      effort: "low",
    });
  });

  it("safety_identifier is the user id when user is absent", () => {
    expect(chatRequestToNeutral({ ...user("hi"), safety_identifier: "u-1" }).options.metadata).toEqual({
      user_id: "u-1",
    });
  });

  it("custom tools and tool choices other than functions are refused by name", () => {
    const issues = issuesOf({
      ...user("hi"),
      tools: [{ type: "custom", custom: { name: "grammar" } }],
    });
    expect(issues).toEqual([
      { path: "tools[0].type", message: 'only function tools are supported, got "custom"' },
    ]);
  });
});

describe("content parts in", () => {
  it("an image_url data: URL is an inline image; an https URL stays a URL (never downloaded)", () => {
    const call = chatRequestToNeutral(
      user([
        { type: "text", text: "What is in these?" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}`, detail: "high" } },
        { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
      ]),
    );
    expect(call.messages[0]!.content).toEqual([
      { type: "text", text: "What is in these?" },
      { type: "image", mediaType: "image/png", data: PNG },
      { type: "image", url: "https://example.com/cat.jpg" },
    ]);
  });

  it("a file part's file_data (a data: URL) is an inline file with its filename", () => {
    const call = chatRequestToNeutral(
      user([
        { type: "file", file: { filename: "invoice.pdf", file_data: `data:application/pdf;base64,${PDF}` } },
      ]),
    );
    expect(call.messages[0]!.content).toEqual([
      { type: "file", mediaType: "application/pdf", data: PDF, filename: "invoice.pdf" },
    ]);
  });

  it("a file_id is refused: the gateway has no file store", () => {
    const [issue] = issuesOf(user([{ type: "file", file: { file_id: "file-abc" } }]));
    expect(issue!.path).toBe("messages[0].content[0].file.file_id");
    expect(issue!.message).toMatch(/no file store/);
  });

  it("file_data that is not a data: URL is refused at file_data", () => {
    const [issue] = issuesOf(user([{ type: "file", file: { file_data: PDF } }]));
    expect(issue!.path).toBe("messages[0].content[0].file.file_data");
    expect(issue!.message).toMatch(/data: URL/);
  });

  it("input_audio is refused naming the field; an unknown part type naming its type", () => {
    expect(
      issuesOf(
        user([
          { type: "input_audio", input_audio: { data: "AAAA", format: "wav" } },
          { type: "video_url", video_url: { url: "https://example.com/a.mp4" } },
        ]),
      ),
    ).toEqual([
      { path: "messages[0].content[0].input_audio", message: "audio input is not supported by the gateway" },
      {
        path: "messages[0].content[1].type",
        message: '"video_url" parts are not supported (text, image_url and file are)',
      },
    ]);
  });

  it("bad base64, a non-image media type or a bad URL is named at image_url.url", () => {
    const issues = issuesOf(
      user([
        { type: "image_url", image_url: { url: "data:image/png;base64,not base64!" } },
        { type: "image_url", image_url: { url: `data:application/pdf;base64,${PDF}` } },
        { type: "image_url", image_url: { url: "file:///etc/passwd" } },
        { type: "image_url", image_url: { url: "https://example.com/a.png", detail: "ultra" } },
      ]),
    );
    expect(issues.map((issue) => issue.path)).toEqual([
      "messages[0].content[0].image_url.url",
      "messages[0].content[1].image_url.url",
      "messages[0].content[2].image_url.url",
      "messages[0].content[3].image_url.detail",
    ]);
    expect(issues[0]!.message).toMatch(/base64/);
    expect(issues[1]!.message).toMatch(/image media type/);
  });

  it("a tool message's parts are the tool result's content", () => {
    const call = chatRequestToNeutral({
      model: "claude",
      messages: [
        { role: "user", content: "Screenshot?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name: "shot", arguments: "{}" } }],
        },
        {
          role: "tool",
          tool_call_id: "call_1",
          content: [
            { type: "text", text: "Here:" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
          ],
        },
      ],
    });
    expect(call.messages[2]).toEqual({
      role: "tool",
      toolResults: [
        {
          callId: "call_1",
          content: [
            { type: "text", text: "Here:" },
            { type: "image", mediaType: "image/png", data: PNG },
          ],
        },
      ],
    });
  });

  it("system and developer messages take text parts only", () => {
    expect(
      issuesOf({
        model: "claude",
        messages: [
          { role: "system", content: [{ type: "text", text: "Be brief." }] },
          {
            role: "developer",
            content: [{ type: "image_url", image_url: { url: "https://example.com/a.png" } }],
          },
          { role: "user", content: "hi" },
        ],
      }),
    ).toEqual([
      { path: "messages[1].content[0].type", message: 'this message takes text parts only, got "image_url"' },
    ]);
  });

  it("an assistant message sent back as the response had it: its refusal is its text; response-only fields are ignored", () => {
    const call = chatRequestToNeutral({
      model: "claude",
      messages: [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: null,
          refusal: "I can't help with that.",
          annotations: [],
          audio: null,
        },
        { role: "assistant", content: [{ type: "refusal", refusal: "No." }], name: "bot" },
        { role: "user", content: "ok" },
      ],
    });
    expect(call.messages[1]).toMatchObject({ role: "assistant", content: "I can't help with that." });
    expect(call.messages[2]).toMatchObject({ role: "assistant", content: "No." });
  });

  it("assistant audio, function_call and custom tool calls are refused by name", () => {
    const paths = issuesOf({
      model: "claude",
      messages: [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          audio: { id: "audio_1" },
          function_call: { name: "f", arguments: "{}" },
          tool_calls: [{ id: "c1", type: "custom", custom: { name: "g", input: "x" } }],
        },
      ],
    }).map((issue) => issue.path);
    expect(paths).toEqual([
      "messages[1].audio",
      "messages[1].function_call",
      "messages[1].tool_calls[0].type",
    ]);
  });
});

describe("response_format in", () => {
  it("json_object is responseFormat json; text is none", () => {
    expect(chatRequestToNeutral({ ...user("hi"), response_format: { type: "json_object" } }).options).toEqual(
      {
        responseFormat: { type: "json" },
      },
    );
    expect(chatRequestToNeutral({ ...user("hi"), response_format: { type: "text" } }).options).toEqual({});
  });

  it("json_schema is responseFormat json_schema with name, schema, strict and description", () => {
    const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
    expect(
      chatRequestToNeutral({
        ...user("hi"),
        response_format: {
          type: "json_schema",
          json_schema: { name: "place", schema, strict: true, description: "A place" },
        },
      }).options.responseFormat,
    ).toEqual({ type: "json_schema", name: "place", schema, strict: true, description: "A place" });
  });

  it("strict defaults to false, as in Chat Completions", () => {
    const format = chatRequestToNeutral({
      ...user("hi"),
      response_format: { type: "json_schema", json_schema: { name: "x", schema: { type: "object" } } },
    }).options.responseFormat;
    expect(format).toMatchObject({ strict: false });
  });

  it("a bad name, a non-object schema or no schema is named under response_format.json_schema", () => {
    const at = (json_schema: unknown) =>
      issuesOf({ ...user("hi"), response_format: { type: "json_schema", json_schema } }).map(
        (issue) => issue.path,
      );
    expect(at({ name: "has space", schema: { type: "object" } })).toEqual([
      "response_format.json_schema.name",
    ]);
    expect(at({ name: "list", schema: { type: "array" } })).toEqual([
      "response_format.json_schema.schema.type",
    ]);
    expect(at({ name: "none" })).toEqual(["response_format.json_schema.schema"]);
    expect(at({ name: "x", schema: {}, extra: 1 })).toEqual(["response_format.json_schema.extra"]);
  });

  it("an unknown response_format type is refused", () => {
    expect(issuesOf({ ...user("hi"), response_format: { type: "grammar" } })[0]!.path).toMatch(
      /^response_format/,
    );
  });
});

const base: ModelResponse = {
  message: { role: "assistant", content: "", toolCalls: [], toolResults: [], synthetic: false },
  stopReason: "stop",
  usage: { inputTokens: 10, outputTokens: 5 },
  model: "m",
  provider: "p",
} as ModelResponse;

describe("the answer out", () => {
  it("the JSON text is the content; refusal is null when the model did not refuse", () => {
    const completion = chatCompletionOf(
      { ...base, message: { ...base.message, content: '{"city":"Paris"}' }, object: { city: "Paris" } },
      "gpt",
      "id",
      1,
    );
    expect((completion.choices as { message: unknown; finish_reason: string }[])[0]).toMatchObject({
      message: { role: "assistant", content: '{"city":"Paris"}', refusal: null },
      finish_reason: "stop",
    });
  });

  it("a refusal is message.refusal with finish_reason stop (as OpenAI answers one), the content null", () => {
    const refused: ModelResponse = {
      ...base,
      message: { ...base.message, content: "I can't help with that." },
      refusal: "I can't help with that.",
      stopReason: "content-filter",
    };
    const choice = (chatCompletionOf(refused, "gpt", "id", 1).choices as Record<string, unknown>[])[0]!;
    expect(choice.message).toEqual({ role: "assistant", content: null, refusal: "I can't help with that." });
    expect(choice.finish_reason).toBe("stop");
  });

  it("a content filter without a refusal text is content_filter", () => {
    const choice = (
      chatCompletionOf({ ...base, stopReason: "content-filter" }, "gpt", "id", 1).choices as Record<
        string,
        unknown
      >[]
    )[0]!;
    expect(choice.finish_reason).toBe("content_filter");
    expect(choice.message).toEqual({ role: "assistant", content: null, refusal: null });
  });

  async function chunks(events: AsyncIterable<StreamEvent>) {
    const out: unknown[] = [];
    for await (const frame of chatChunksOf(events, "gpt", "id", 1, false)) out.push(frame.data);
    return out;
  }

  it("the response's warnings reach the client: on the completion, and on the stream's finish chunk", async () => {
    const warned: ModelResponse = {
      ...base,
      warnings: ["messages[0].content[1]: the text/plain file is sent as a text part"],
    };
    expect(chatCompletionOf(warned, "gpt", "id", 1).warnings).toEqual(warned.warnings);
    expect(chatCompletionOf(base, "gpt", "id", 1)).not.toHaveProperty("warnings");
    async function* events(): AsyncGenerator<StreamEvent> {
      yield { type: "text-delta", text: "ok" };
      yield { type: "done", response: warned };
    }
    const frames = (await chunks(events())).filter((frame) => typeof frame !== "string") as Record<
      string,
      unknown
    >[];
    const finish = frames.find(
      (frame) => (frame.choices as { finish_reason: unknown }[])[0]?.finish_reason === "stop",
    );
    expect(finish?.warnings).toEqual(warned.warnings);
    expect(frames.filter((frame) => "warnings" in frame)).toHaveLength(1);
  });

  it("streamed: a refusal delta, then the finish reason stop", async () => {
    const refused: ModelResponse = { ...base, refusal: "No.", stopReason: "content-filter" };
    async function* events(): AsyncGenerator<StreamEvent> {
      yield { type: "done", response: refused };
    }
    const frames = await chunks(events());
    const deltas = frames.flatMap((frame): unknown[] =>
      typeof frame === "string" ? [frame] : (frame as { choices: unknown[] }).choices,
    );
    expect(deltas).toEqual([
      expect.objectContaining({ delta: { role: "assistant", content: "" }, finish_reason: null }),
      expect.objectContaining({ delta: { refusal: "No." }, finish_reason: null }),
      expect.objectContaining({ delta: {}, finish_reason: "stop" }),
      "[DONE]",
    ]);
  });

  it("an answer that is not the JSON asked for is sent as the model wrote it, streamed and not", async () => {
    const prose: ModelResponse = { ...base, message: { ...base.message, content: "Paris, I think." } };
    const error = new StructuredOutputError("p: the answer is not JSON", prose);
    async function* events(): AsyncGenerator<StreamEvent> {
      yield { type: "text-delta", text: "Paris, I think." };
      throw error;
    }
    const frames = await chunks(events());
    expect(frames.at(-1)).toBe("[DONE]");
    expect(JSON.stringify(frames)).toContain('"content":"Paris, I think."');
    expect(JSON.stringify(frames)).toContain('"finish_reason":"stop"');
    await expect(completedOrRaw(Promise.reject(error))).resolves.toBe(prose);
    const other = new Error("boom");
    await expect(completedOrRaw(Promise.reject(other))).rejects.toBe(other);
  });
});
