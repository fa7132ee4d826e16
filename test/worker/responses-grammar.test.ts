/**
 * The Responses event grammar the gateway writes for converted routes, read frame by frame: a request
 * shaped like Codex's (instructions, input items, flat strict function tools, reasoning, `store: false`,
 * `include: ["reasoning.encrypted_content"]`, `prompt_cache_key`) served streaming on an Anthropic route
 * over two turns; numbering, ids, appending indexes, the full output on `response.completed`; a mid-stream
 * failure as a flat `error` and `response.failed` (converted, and passed through, numbered on from the
 * upstream); the complete answer's usage, status and warnings.
 */
import { describe, expect, it } from "vitest";
import { ProviderError, type ProviderErrorKind } from "../../src/core/provider-error.ts";
import { keepAlive } from "../../src/worker/keep-alive.ts";
import { unwrapReasoning } from "../../src/worker/reasoning-envelope.ts";
import { responsesErrorCode, responsesErrorMessage } from "../../src/worker/responses-dialect/stream.ts";
import {
  ANTHROPIC_BASE,
  anthropicEvents,
  anthropicFrames,
  parseSse,
  type SseFrame,
  sseResponse,
  streamBody,
} from "./helpers.ts";
import {
  anthropicThinkingUpstream,
  responsesFrames,
  responsesGateway,
  SIGNATURE,
  THINKING,
  TOOL_USE_ID,
  UPSTREAM_TOOL_TURN,
  upstreamEvents,
} from "./responses-upstreams.ts";

// biome-ignore lint/suspicious/noExplicitAny: events are read field by field, as the SDKs read them
type Json = Record<string, any>;

/** The event types a Responses client knows (the ones the gateway may write). */
const KNOWN = new Set([
  "response.created",
  "response.in_progress",
  "response.output_item.added",
  "response.output_item.done",
  "response.content_part.added",
  "response.content_part.done",
  "response.output_text.delta",
  "response.output_text.done",
  "response.refusal.delta",
  "response.refusal.done",
  "response.reasoning_summary_part.added",
  "response.reasoning_summary_part.done",
  "response.reasoning_summary_text.delta",
  "response.reasoning_summary_text.done",
  "response.function_call_arguments.delta",
  "response.function_call_arguments.done",
  "response.custom_tool_call_input.delta",
  "response.custom_tool_call_input.done",
  "response.completed",
  "response.incomplete",
  "response.failed",
  "error",
]);

/**
 * Checks a Responses stream against the grammar and returns its events: `event:` equal to the JSON
 * `type`, `sequence_number` 0, 1, 2…, `response.created` first, output indexes that append, every delta's
 * `item_id` the id of the item at its index, every item added once and done once.
 */
function checkGrammar(frames: readonly SseFrame[]): Json[] {
  // (Comments keep the line open while the upstream is slow: the test gateway starts streams at once.)
  const events = frames
    .filter((frame) => frame.data !== "" || frame.event !== undefined)
    .map((frame) => {
      const event = JSON.parse(frame.data) as Json;
      expect(frame.event).toBe(event.type);
      expect(KNOWN.has(event.type), event.type).toBe(true);
      return event;
    });
  expect(events[0]!.type).toBe("response.created");
  expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
  const items: Json[] = [];
  const done = new Set<number>();
  for (const event of events) {
    if (event.type === "response.output_item.added") {
      expect(event.output_index).toBe(items.length);
      expect(event.item.id).toMatch(/^(rs|msg|fc|ctc)_/);
      items.push(event.item);
    } else if (event.type === "response.output_item.done") {
      expect(event.item.id).toBe(items[event.output_index]!.id);
      expect(event.item.type).toBe(items[event.output_index]!.type);
      expect(done.has(event.output_index)).toBe(false);
      done.add(event.output_index);
      items[event.output_index] = event.item;
    } else if ("item_id" in event) {
      const item = items[event.output_index]!;
      expect(event.item_id).toBe(item.id);
      expect(done.has(event.output_index)).toBe(false);
      const family = event.type.startsWith("response.reasoning")
        ? "reasoning"
        : event.type.startsWith("response.function_call")
          ? "function_call"
          : event.type.startsWith("response.custom_tool_call")
            ? "custom_tool_call"
            : "message";
      expect(item.type).toBe(family);
    }
  }
  const last = events.at(-1)!;
  if (last.type === "response.completed" || last.type === "response.incomplete") {
    expect(done.size).toBe(items.length);
    // The full output, as the items were finished.
    expect(last.response.output).toEqual(items);
  }
  return events;
}

/** A request shaped like Codex's (codex-rs `ResponsesApiRequest`). */
function codexRequest(input: unknown[]): Json {
  return {
    model: "claude",
    instructions: "You are Codex, a coding agent. Be concise.",
    input,
    tools: [
      {
        type: "function",
        name: "shell",
        description: "Runs a shell command and returns its output.",
        strict: false,
        parameters: {
          type: "object",
          properties: { command: { type: "array", items: { type: "string" } }, workdir: { type: "string" } },
          required: ["command"],
          additionalProperties: false,
        },
      },
    ],
    tool_choice: "auto",
    parallel_tool_calls: false,
    reasoning: { effort: "medium", summary: "auto" },
    store: false,
    stream: true,
    include: ["reasoning.encrypted_content"],
    prompt_cache_key: "0199a6f2-7c1e-7a30-b5d4-3c2f1e0d9a11",
  };
}

const CODEX_USER = {
  type: "message",
  role: "user",
  content: [{ type: "input_text", text: "List the files here." }],
};

describe("a Codex-shaped request on an Anthropic route, streaming", () => {
  it("is served with the full grammar, ending with response.completed holding the full output", async () => {
    const { call, calls } = responsesGateway(anthropicThinkingUpstream);
    const response = await call("/v1/responses", { json: codexRequest([CODEX_USER]) });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const events = checkGrammar(parseSse(await response.text()));
    const upstream = calls[0]!;
    expect(upstream.url).toBe(`${ANTHROPIC_BASE}/messages`);
    expect(upstream.body.stream).toBe(true);
    expect(JSON.stringify(upstream.body.system)).toContain("You are Codex");
    expect(upstream.body.thinking).toBeDefined();
    expect((upstream.body.tools as Json[])[0]).toMatchObject({ name: "shell" });

    expect(events.map((event) => event.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.reasoning_summary_part.added",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.done",
      "response.reasoning_summary_part.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      // The reasoning item, held open for its envelope (the signature came last).
      "response.output_item.done",
      "response.completed",
    ]);
    const completed = events.at(-1)!.response;
    expect(completed).toMatchObject({
      object: "response",
      status: "completed",
      model: "claude",
      store: false,
    });
    expect(completed.id).toBe(events[0]!.response.id);
    expect(completed.usage).toMatchObject({ input_tokens: 572, output_tokens: 89, total_tokens: 661 });
    const [reasoning, functionCall] = completed.output;
    expect(reasoning.summary).toEqual([{ type: "summary_text", text: THINKING }]);
    expect(unwrapReasoning(reasoning.encrypted_content)?.native.blocks[0]).toMatchObject({
      signature: SIGNATURE,
    });
    expect(functionCall).toMatchObject({ call_id: TOOL_USE_ID, name: "get_weather", status: "completed" });
  });

  it("the next turn (the history re-sent, reasoning with its envelope) replays the thinking verbatim", async () => {
    const { call, calls } = responsesGateway(anthropicThinkingUpstream);
    const first = checkGrammar(
      parseSse(await (await call("/v1/responses", { json: codexRequest([CODEX_USER]) })).text()),
    );
    // Codex keeps the items of output_item.done as its history, in the order they arrived.
    const history = first
      .filter((event) => event.type === "response.output_item.done")
      .map((event) => event.item);
    expect(history.map((item) => item.type)).toEqual(["function_call", "reasoning"]);
    const second = await call("/v1/responses", {
      json: codexRequest([
        CODEX_USER,
        ...history,
        { type: "function_call_output", call_id: TOOL_USE_ID, output: "README.md\nsrc\n" },
      ]),
    });
    const events = checkGrammar(parseSse(await second.text()));
    expect(events.at(-1)!.type).toBe("response.completed");
    expect(events.at(-1)!.response.output).toMatchObject([
      { type: "message", content: [{ type: "output_text", text: "It is 18 °C and sunny in Paris." }] },
    ]);
    const messages = calls[1]!.body.messages as { role: string; content: Json[] }[];
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(messages[1]!.content[0]).toEqual({ type: "thinking", thinking: THINKING, signature: SIGNATURE });
    expect(messages[2]!.content[0]).toMatchObject({
      type: "tool_result",
      tool_use_id: TOOL_USE_ID,
      content: "README.md\nsrc\n",
    });
  });
});

const PATCH = "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n";

/** Codex's freeform apply_patch tool (a custom tool with a Lark grammar). */
const APPLY_PATCH = {
  type: "custom",
  name: "apply_patch",
  description: "Use the `apply_patch` tool to edit files.",
  format: {
    type: "grammar",
    syntax: "lark",
    definition: 'start: begin_patch hunk+ end_patch\nbegin_patch: "*** Begin Patch" LF',
  },
};

describe("Codex's freeform apply_patch (a custom tool) on an Anthropic route", () => {
  it("is offered as a function of one string, and its call comes back as a custom_tool_call", async () => {
    const pieces = JSON.stringify({ input: PATCH }).match(/.{1,12}/gs)!;
    const { call, calls } = responsesGateway((upstream) => {
      const messages = upstream.body.messages as { content: unknown }[];
      const answered = JSON.stringify(messages.at(-1)).includes("tool_result");
      return sseResponse(
        streamBody(
          anthropicFrames(
            answered
              ? anthropicEvents(["Created hello.txt."])
              : anthropicEvents(["Adding the file."], { id: "toolu_patch1", name: "apply_patch", pieces }),
          ),
        ),
      );
    });
    const request = { ...codexRequest([CODEX_USER]), tools: [APPLY_PATCH] };
    const events = checkGrammar(parseSse(await (await call("/v1/responses", { json: request })).text()));
    const tool = (calls[0]!.body.tools as Json[])[0]!;
    expect(tool.name).toBe("apply_patch");
    expect(tool.description).toContain("lark grammar");
    expect(tool.input_schema).toMatchObject({
      required: ["input"],
      properties: { input: { type: "string" } },
    });
    const inputEvents = events.filter((event) => event.type.startsWith("response.custom_tool_call_input"));
    expect(inputEvents).toMatchObject([
      { type: "response.custom_tool_call_input.delta", delta: PATCH },
      { type: "response.custom_tool_call_input.done", input: PATCH },
    ]);
    const output = events.at(-1)!.response.output as Json[];
    expect(output.map((item) => item.type)).toEqual(["message", "custom_tool_call"]);
    expect(output[1]).toMatchObject({ call_id: "toolu_patch1", name: "apply_patch", input: PATCH });
    expect(output[1]!.id).toMatch(/^ctc_/);

    // The next turn: the call and its output go back to Anthropic as tool_use and tool_result.
    const history = output;
    await (
      await call("/v1/responses", {
        json: {
          ...request,
          input: [
            CODEX_USER,
            ...history,
            {
              type: "custom_tool_call_output",
              call_id: "toolu_patch1",
              output: "Success. Updated: A hello.txt",
            },
          ],
        },
      })
    ).text();
    const messages = calls[1]!.body.messages as { role: string; content: Json[] }[];
    expect(messages[1]!.content.at(-1)).toMatchObject({
      type: "tool_use",
      id: "toolu_patch1",
      name: "apply_patch",
      input: { input: PATCH },
    });
    expect(messages[2]!.content[0]).toMatchObject({
      type: "tool_result",
      tool_use_id: "toolu_patch1",
      content: "Success. Updated: A hello.txt",
    });
  });
});

describe("a stream that fails after it started", () => {
  it("converted: a flat error with its sequence_number, then response.failed", async () => {
    const events = anthropicEvents(["Hel", "lo"]);
    const { call } = responsesGateway(() =>
      sseResponse(streamBody(anthropicFrames(events.slice(0, 5)), { end: "error" })),
    );
    const response = await call("/v1/responses", { json: { model: "claude", input: "hi", stream: true } });
    expect(response.status).toBe(200);
    const parsed = checkGrammar(parseSse(await response.text()));
    const [error, failed] = parsed.slice(-2);
    expect(error).toEqual({
      type: "error",
      sequence_number: parsed.length - 2,
      code: "server_error",
      message: expect.any(String),
      param: null,
    });
    expect(failed).toMatchObject({
      type: "response.failed",
      sequence_number: parsed.length - 1,
      response: { status: "failed", error: { code: "server_error" }, id: parsed[0]!.response.id },
    });
  });

  it("passed through: the upstream's events, then error and response.failed numbered on from them", async () => {
    const events = upstreamEvents(UPSTREAM_TOOL_TURN);
    const { call } = responsesGateway(() =>
      sseResponse(streamBody(responsesFrames(events.slice(0, 6)), { end: "error" })),
    );
    const response = await call("/v1/responses", { json: { model: "gpt5", input: "hi", stream: true } });
    const frames = parseSse(await response.text()).filter((frame) => frame.data !== "");
    const parsed = checkGrammar(frames);
    expect(frames.slice(0, 6).map((frame) => frame.data)).toEqual(
      events.slice(0, 6).map((e) => JSON.stringify(e)),
    );
    expect(parsed.slice(-2)).toMatchObject([
      { type: "error", sequence_number: 6, code: "server_error", param: null },
      {
        type: "response.failed",
        sequence_number: 7,
        response: { id: "resp_upstream_68af", status: "failed", error: { code: "server_error" } },
      },
    ]);
  });

  it("a rate limit mid-stream says how long to wait, in the words Codex reads", async () => {
    const { call } = responsesGateway(() =>
      sseResponse(
        streamBody([
          ...anthropicFrames(anthropicEvents(["Hel"]).slice(0, 4)),
          `event: error\ndata: ${JSON.stringify({ type: "error", error: { type: "rate_limit_error", message: "Rate limited" } })}\n\n`,
        ]),
      ),
    );
    const parsed = checkGrammar(
      parseSse(
        await (await call("/v1/responses", { json: { model: "claude", input: "hi", stream: true } })).text(),
      ),
    );
    expect(parsed.at(-1)).toMatchObject({
      type: "response.failed",
      response: { error: { code: "rate_limit_exceeded" } },
    });
  });
});

describe("failure codes and messages", () => {
  it("say what Codex and the AI SDK act on: the code by kind, the wait in Codex's words", () => {
    const failure = (
      kind: ProviderErrorKind,
      extra: Partial<ConstructorParameters<typeof ProviderError>[0]> = {},
    ) =>
      new ProviderError({ kind, message: "upstream said no", provider: "anthropic", model: "m", ...extra });
    expect(responsesErrorCode(failure("context_length"))).toBe("context_length_exceeded");
    expect(responsesErrorCode(failure("rate_limit"))).toBe("rate_limit_exceeded");
    expect(responsesErrorCode(failure("rate_limit", { code: "insufficient_quota" }))).toBe(
      "insufficient_quota",
    );
    expect(responsesErrorCode(failure("overloaded"))).toBe("server_is_overloaded");
    expect(responsesErrorCode(failure("server", { code: "Weird Code!" }))).toBe("server_error");
    expect(responsesErrorMessage(failure("rate_limit", { retryAfterMs: 1500 }), false)).toBe(
      "upstream said no. Please try again in 1.5s.",
    );
  });
});

describe("the complete answer", () => {
  it("a converted answer stopped by the output limit is incomplete, with max_output_tokens", async () => {
    const { call, calls } = responsesGateway(() =>
      Response.json({
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [{ type: "text", text: "Once upon a" }],
        stop_reason: "max_tokens",
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 16 },
      }),
    );
    const response = await call("/v1/responses", {
      json: { model: "claude", input: "Tell me a story", max_output_tokens: 16, temperature: 0.2 },
    });
    const body = (await response.json()) as Json;
    expect(calls[0]!.body).toMatchObject({ max_tokens: 16, temperature: 0.2 });
    expect(body).toMatchObject({
      object: "response",
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
      max_output_tokens: 16,
      temperature: 0.2,
      output: [
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Once upon a" }] },
      ],
      // Reported: input and output; not reported: cache reads and reasoning, so no details.
      usage: { input_tokens: 10, output_tokens: 16, total_tokens: 26 },
    });
    expect(body.usage.input_tokens_details).toBeUndefined();
    expect(body.usage.output_tokens_details).toBeUndefined();
  });

  it("what the request lost is listed in warnings and in x-modelwire-warnings", async () => {
    const { call } = responsesGateway(anthropicThinkingUpstream);
    const response = await call("/v1/responses", {
      json: {
        model: "claude",
        input: [
          { role: "user", content: "hi" },
          { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "thought" }] },
          { role: "assistant", content: "hello" },
          { role: "user", content: "and?" },
        ],
        text: { verbosity: "low" },
      },
    });
    const body = (await response.json()) as Json;
    const expected = [
      'text.verbosity: "low" is not supported by the gateway; ignored',
      "input[1]: a reasoning item without encrypted_content does not replay; left out",
    ];
    expect(body.warnings).toEqual(expected);
    expect(JSON.parse(response.headers.get("x-modelwire-warnings")!)).toEqual(expected);
  });

  it("the demo route answers a Responses request too", async () => {
    const { call } = responsesGateway(() => new Response("unused", { status: 500 }));
    const response = await call("/v1/responses", { json: { model: "demo", input: "ping" } });
    const body = (await response.json()) as Json;
    expect(response.status).toBe(200);
    expect(body.status).toBe("completed");
    expect(body.output[0]).toMatchObject({ type: "message", role: "assistant" });
  });
});

describe("keepAlive", () => {
  it("sends a comment while the source is silent, and every frame in order", async () => {
    async function* slow() {
      yield { event: "a", data: "1" };
      await new Promise((resolve) => setTimeout(resolve, 40));
      yield { event: "b", data: "2" };
    }
    const out: unknown[] = [];
    for await (const frame of keepAlive(slow(), 10)) out.push(frame);
    expect(out[0]).toEqual({ event: "a", data: "1" });
    expect(out.at(-1)).toEqual({ event: "b", data: "2" });
    const comments = out.slice(1, -1);
    expect(comments.length).toBeGreaterThanOrEqual(2);
    for (const comment of comments) expect(comment).toEqual({ comment: "keep-alive" });
  });

  it("passes a failure of the source on", async () => {
    async function* failing() {
      yield { event: "a", data: "1" };
      throw new Error("cut");
    }
    const out: unknown[] = [];
    await expect(async () => {
      for await (const frame of keepAlive(failing(), 10)) out.push(frame);
    }).rejects.toThrow("cut");
    expect(out).toEqual([{ event: "a", data: "1" }]);
  });
});
