import { describe, expect, it } from "vitest";
import { type Response as ModelResponse, ProviderError, type StreamEvent } from "../../../src/index.ts";
import {
  assembleBedrockConverseStream,
  BedrockConverseStreamAssembler,
  type ConverseBlock,
  mapBedrockHttpError,
  parseBedrockConverseResponse,
} from "../../../src/protocols/bedrock-converse/index.ts";
import { assembleBedrockInvokeStream } from "../../../src/protocols/bedrock-invoke/index.ts";
import { readAwsEventStream } from "../../../src/wire/aws-event-stream.ts";
import {
  chunkFrame,
  concat,
  converseEventFrame,
  converseFrames,
  encodeFrame,
} from "../../helpers/bedrock-frames.ts";
import { byteStream } from "../../helpers/byte-stream.ts";

type Json = Record<string, unknown>;
const CONTEXT = { provider: "bedrock", model: "m", origin: "bedrock" };

async function run(
  body: Uint8Array,
  sizes: number | number[] = 4,
): Promise<{ events: StreamEvent[]; response: ModelResponse }> {
  const events: StreamEvent[] = [];
  for await (const event of assembleBedrockConverseStream(
    readAwsEventStream(byteStream(body, sizes)),
    CONTEXT,
  )) {
    events.push(event);
  }
  const done = events.at(-1);
  if (done?.type !== "done") throw new Error("no done");
  return { events, response: done.response };
}

async function failure(body: Uint8Array, invoke = false): Promise<ProviderError> {
  try {
    const events = invoke
      ? assembleBedrockInvokeStream(readAwsEventStream(byteStream(body, 3)), CONTEXT)
      : assembleBedrockConverseStream(readAwsEventStream(byteStream(body, 3)), CONTEXT);
    for await (const _ of events);
  } catch (error) {
    if (ProviderError.is(error)) return error;
    throw error;
  }
  throw new Error("expected a failure");
}

const start = { messageStart: { role: "assistant" } };
const stop = (stopReason = "end_turn") => ({ messageStop: { stopReason } });
const metadata = { metadata: { usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 } } };
const delta = (index: number, value: Json) => ({
  contentBlockDelta: { contentBlockIndex: index, delta: value },
});
const blockStop = (index: number) => ({ contentBlockStop: { contentBlockIndex: index } });

describe("BedrockConverseStreamAssembler", () => {
  it("a tool call cut by max_tokens: {} with the raw text kept, in the event and the response", async () => {
    const { events, response } = await run(
      converseFrames([
        start,
        {
          contentBlockStart: {
            contentBlockIndex: 0,
            start: { toolUse: { toolUseId: "t1", name: "search" } },
          },
        },
        delta(0, { toolUse: { input: '{"query": "long' } }),
        stop("max_tokens"),
        metadata,
      ]),
    );
    const end = events.find((event) => event.type === "tool-call-end");
    expect(end).toEqual({
      type: "tool-call-end",
      index: 0,
      toolCall: { id: "t1", name: "search", arguments: {}, argumentsText: '{"query": "long' },
    });
    expect(response.message.toolCalls).toEqual([
      { id: "t1", name: "search", arguments: {}, argumentsText: '{"query": "long' },
    ]);
    expect(response.stopReason).toBe("length");
    expect(response.message.native!.blocks).toEqual([
      { toolUse: { toolUseId: "t1", name: "search", input: {} } },
    ]);
  });

  it("ends at the end of the body once messageStop was seen (no metadata); truncated without it", async () => {
    const { response } = await run(converseFrames([start, delta(0, { text: "hi" }), stop()]));
    expect(response).toMatchObject({ message: { content: "hi" }, usage: {}, stopReason: "stop" });
    const error = await failure(converseFrames([start, delta(0, { text: "hi" }), blockStop(0)]));
    expect(error).toMatchObject({ kind: "truncated", partialOutput: true });
  });

  it("gpt-oss style: unsigned reasoning and empty text deltas", async () => {
    const { response } = await run(
      converseFrames([
        start,
        delta(0, { reasoningContent: { text: "raw " } }),
        delta(0, { text: "" }),
        delta(0, { reasoningContent: { text: "thoughts" } }),
        blockStop(0),
        delta(1, { text: "" }),
        delta(1, { text: "Answer" }),
        blockStop(1),
        stop(),
        metadata,
      ]),
    );
    expect(response.reasoning).toBe("raw thoughts");
    expect(response.message.content).toBe("Answer");
    expect(response.message.native!.blocks).toEqual([
      { reasoningContent: { reasoningText: { text: "raw thoughts" } } },
      { text: "Answer" },
    ]);
  });

  it("a non-empty delta of another kind at an open index starts a new block there, nothing lost", async () => {
    const { response } = await run(
      converseFrames([
        start,
        delta(0, { reasoningContent: { text: "think" } }),
        delta(0, { reasoningContent: { signature: "sig" } }),
        delta(0, { text: "visible" }),
        blockStop(0),
        stop(),
        metadata,
      ]),
    );
    expect(response.message.native!.blocks).toEqual([
      { reasoningContent: { reasoningText: { text: "think", signature: "sig" } } },
      { text: "visible" },
    ]);
  });

  it("a signature sent in pieces is joined; redactedContent in pieces is joined as bytes", async () => {
    const { response } = await run(
      converseFrames([
        start,
        delta(0, { reasoningContent: { signature: "Eq" } }),
        delta(0, { reasoningContent: { signature: "QB==" } }),
        blockStop(0),
        delta(1, { reasoningContent: { redactedContent: btoa("abc") } }),
        delta(1, { reasoningContent: { redactedContent: btoa("de") } }),
        blockStop(1),
        stop(),
        metadata,
      ]),
      1,
    );
    expect(response.message.native!.blocks).toEqual([
      { reasoningContent: { reasoningText: { text: "", signature: "EqQB==" } } },
      { reasoningContent: { redactedContent: btoa("abcde") } },
    ]);
    expect(response.reasoning).toBeUndefined();
  });

  it("server tool use and its result: kept in native.blocks, not a tool call; equal to the parsed JSON", async () => {
    const events = [
      start,
      {
        contentBlockStart: {
          contentBlockIndex: 0,
          start: { toolUse: { toolUseId: "srv", name: "nova_code_interpreter", type: "server_tool_use" } },
        },
      },
      delta(0, { toolUse: { input: '{"snippet":"1+1"}' } }),
      blockStop(0),
      {
        contentBlockStart: {
          contentBlockIndex: 1,
          start: {
            toolResult: { toolUseId: "srv", status: "success", type: "nova_code_interpreter_result" },
          },
        },
      },
      delta(1, { toolResult: [{ json: { stdOut: "2" } }] }),
      blockStop(1),
      delta(2, { text: "It is 2." }),
      blockStop(2),
      stop(),
      metadata,
    ];
    const { events: streamed, response } = await run(converseFrames(events));
    expect(streamed.some((event) => event.type.startsWith("tool-call"))).toBe(false);
    const blocks: ConverseBlock[] = [
      {
        toolUse: {
          toolUseId: "srv",
          name: "nova_code_interpreter",
          type: "server_tool_use",
          input: { snippet: "1+1" },
        },
      },
      {
        toolResult: {
          toolUseId: "srv",
          status: "success",
          type: "nova_code_interpreter_result",
          content: [{ json: { stdOut: "2" } }],
        },
      },
      { text: "It is 2." },
    ];
    const parsed = parseBedrockConverseResponse(
      {
        output: { message: { role: "assistant", content: blocks } },
        stopReason: "end_turn",
        usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 },
      },
      CONTEXT,
    );
    expect(response).toEqual(parsed);
    expect(response.message.toolCalls).toEqual([]);
  });

  it("malformed events are invalid_response; unknown events and fields are ignored", async () => {
    expect(await failure(converseFrames([start, delta(0, { toolUse: { input: "{}" } })]))).toMatchObject({
      kind: "invalid_response",
    });
    expect(
      await failure(
        concat([
          converseEventFrame("messageStart", {}),
          encodeFrame({ ":event-type": "contentBlockDelta", ":message-type": "event" }, "{not json"),
        ]),
      ),
    ).toMatchObject({ kind: "invalid_response", upstreamBody: "{not json" });
    expect(
      await failure(
        converseFrames([
          start,
          { contentBlockStart: { contentBlockIndex: 0, start: { toolUse: { name: "x" } } } },
        ]),
      ),
    ).toMatchObject({ kind: "invalid_response" });
    const { response } = await run(
      converseFrames([
        start,
        { futureEvent: { x: 1 } },
        delta(0, { text: "ok", citation: {} }),
        delta(0, { image: {} }),
        stop(),
        metadata,
      ]),
    );
    expect(response.message.content).toBe("ok");
  });

  it("exception frames: `:message-type: error` and `…Exception` events too", async () => {
    const errorFrame = encodeFrame(
      {
        ":message-type": "error",
        ":error-code": "InternalFailure",
        ":error-message": "An internal error occurred",
      },
      "",
    );
    expect(await failure(concat([converseFrames([start]), errorFrame]))).toMatchObject({
      kind: "server",
      code: "InternalFailure",
      message: "bedrock: An internal error occurred",
      partialOutput: false,
    });
    const asEvent = encodeFrame(
      {
        ":event-type": "serviceUnavailableException",
        ":message-type": "event",
        ":content-type": "application/json",
      },
      JSON.stringify({ message: "Service unavailable" }),
    );
    expect(await failure(concat([converseFrames([start, delta(0, { text: "a" })]), asEvent]))).toMatchObject({
      kind: "overloaded",
      partialOutput: true,
    });
    const invokeException = concat([
      chunkFrame({ type: "message_start", message: { id: "m", content: [], usage: {} } }),
      encodeFrame(
        {
          ":exception-type": "validationException",
          ":message-type": "exception",
          ":content-type": "application/json",
        },
        JSON.stringify({ message: "prompt is too long: 215000 tokens > 200000 maximum" }),
      ),
    ]);
    expect(await failure(invokeException, true)).toMatchObject({
      kind: "context_length",
      code: "validationException",
    });
  });

  it("invoke: a chunk without base64 Anthropic JSON is invalid_response; an inner error event is mapped", async () => {
    const bad = encodeFrame(
      { ":event-type": "chunk", ":message-type": "event" },
      JSON.stringify({ bytes: "%%%" }),
    );
    expect(await failure(bad, true)).toMatchObject({ kind: "invalid_response" });
    const inner = chunkFrame({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
    expect(await failure(inner, true)).toMatchObject({ kind: "overloaded", code: "overloaded_error" });
  });

  it("apply() on decoded events: usage event per metadata, ended only after messageStop", () => {
    const assembler = new BedrockConverseStreamAssembler(CONTEXT);
    const out: StreamEvent[] = [];
    assembler.apply("metadata", { usage: { inputTokens: 1 } }, out);
    expect(assembler.ended).toBe(false);
    assembler.apply("messageStop", { stopReason: "guardrail_intervened" }, out);
    assembler.apply(
      "metadata",
      { usage: { inputTokens: 1, outputTokens: 2, cacheReadInputTokenCount: 5 } },
      out,
    );
    expect(assembler.ended).toBe(true);
    expect(out).toEqual([
      { type: "usage", usage: { inputTokens: 1 } },
      { type: "usage", usage: { inputTokens: 1, outputTokens: 2, cachedInputTokens: 5 } },
    ]);
    expect(assembler.finish()).toMatchObject({
      stopReason: "content-filter",
      rawStopReason: "guardrail_intervened",
    });
  });
});

describe("mapBedrockHttpError", () => {
  it("header, __type, status and message", () => {
    const headers = (type?: string) =>
      new Headers(type ? { "x-amzn-errortype": type, "x-amzn-requestid": "r1" } : {});
    expect(
      mapBedrockHttpError(
        400,
        { message: "bad" },
        headers("ValidationException:http://internal.amazon.com/"),
      ),
    ).toEqual({
      kind: "bad_request",
      message: "bad",
      code: "ValidationException",
      requestId: "r1",
    });
    expect(
      mapBedrockHttpError(400, { __type: "com.amazon.coral#ThrottlingException", Message: "slow" }),
    ).toMatchObject({
      kind: "rate_limit",
      message: "slow",
      code: "ThrottlingException",
    });
    expect(mapBedrockHttpError(424, {}, headers("ModelErrorException"))).toMatchObject({
      kind: "server",
      message: "Bedrock ModelErrorException",
    });
    expect(mapBedrockHttpError(408, undefined, headers("ModelTimeoutException"))).toMatchObject({
      kind: "timeout",
    });
    expect(mapBedrockHttpError(429, undefined, headers("ServiceQuotaExceededException"))).toMatchObject({
      kind: "rate_limit",
    });
    expect(mapBedrockHttpError(500, "not json")).toMatchObject({
      kind: "server",
      message: "HTTP 500",
      code: undefined,
    });
    expect(mapBedrockHttpError(400, { message: "Input is too long for requested model." })).toMatchObject({
      kind: "context_length",
    });
  });
});
