/**
 * The rows of scenarios (f) OpenAI Responses and (g) Bedrock ConverseStream: modelwire, the official
 * `openai` package (Responses only: there is no official Bedrock streaming client without the whole AWS
 * SDK), the AI SDK, and the decoding floors. Same rules as {@link ./contenders.ts}: the same bytes through
 * an injected `fetch`, every result checked by `verify` before its time counts.
 *
 * @module
 */
import { createAmazonBedrock } from "@ai-sdk/amazon-bedrock";
import { createOpenAI } from "@ai-sdk/openai";
import { streamText, type TextStreamPart } from "ai";
import OpenAI from "openai";
import { bedrock, openaiResponses, type StreamEvent } from "../../src/index.ts";
import {
  type Assembled,
  aiSdkTools,
  byteScanFloor,
  type Contender,
  fetchReturning,
  jsonParseFloor,
  PROMPT,
} from "./contenders.ts";
import { BEDROCK_MODEL, createEventStreamCodec } from "./generate-bedrock.ts";
import { OPENAI_RESPONSES_MODEL } from "./generate-responses.ts";

const OPENAI_API_KEY = "sk-bench-0000";

/** Sums what a modelwire `Usage` splits: uncached + cache reads + cache writes. */
function modelwireUsage(usage: {
  inputTokens?: number;
  cachedInputTokens?: number;
  cacheWriteTokens?: number;
  outputTokens?: number;
}): { input: number; output: number } {
  return {
    input: (usage.inputTokens ?? 0) + (usage.cachedInputTokens ?? 0) + (usage.cacheWriteTokens ?? 0),
    output: usage.outputTokens ?? 0,
  };
}

/** Consumes a modelwire stream to `done`; the signature is what `signatureOf` finds in `native.blocks`. */
async function modelwireRun(
  events: AsyncIterable<StreamEvent>,
  signatureOf: (blocks: readonly Record<string, unknown>[]) => string,
  onFirstText?: () => void,
): Promise<Assembled> {
  let firstText = onFirstText;
  for await (const event of events) {
    if (event.type === "text-delta" && firstText) {
      firstText();
      firstText = undefined;
    }
    if (event.type === "done") {
      const response = event.response;
      return {
        kind: "assembled",
        text: response.message.content,
        thinking: response.reasoning ?? "",
        signature: signatureOf((response.message.native?.blocks ?? []) as Record<string, unknown>[]),
        toolCalls: response.message.toolCalls.map((call) => ({
          id: call.id,
          name: call.name,
          input: call.arguments,
        })),
        usage: modelwireUsage(response.usage),
      };
    }
  }
  throw new Error("modelwire: the stream ended without done");
}

/** Consumes an AI SDK `fullStream`: text, reasoning (and a signature from `signatureOf`), tool calls, usage. */
async function aiSdkRun(
  result: { fullStream: AsyncIterable<TextStreamPart<typeof aiSdkTools>> },
  signatureOf: (metadata: Record<string, Record<string, unknown>> | undefined) => string | undefined,
  onFirstText?: () => void,
): Promise<Assembled> {
  const out: Assembled = { kind: "assembled", text: "", thinking: "", signature: "", toolCalls: [] };
  let firstText = onFirstText;
  for await (const part of result.fullStream) {
    switch (part.type) {
      case "text-delta":
        if (firstText) {
          firstText();
          firstText = undefined;
        }
        out.text += part.text;
        break;
      case "reasoning-delta":
        out.thinking += part.text;
        out.signature += signatureOf(part.providerMetadata as never) ?? "";
        break;
      case "reasoning-end":
        out.signature += signatureOf(part.providerMetadata as never) ?? "";
        break;
      case "tool-call":
        out.toolCalls.push({ id: part.toolCallId, name: part.toolName, input: part.input });
        break;
      case "finish":
        out.usage = { input: part.totalUsage.inputTokens ?? -1, output: part.totalUsage.outputTokens ?? -1 };
        break;
      case "error":
        throw part.error;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// (f) OpenAI Responses

const modelwireResponses: Contender = {
  id: "modelwire",
  name: "modelwire `openaiResponses().stream()`",
  short: "modelwire",
  async run(body, _stream, onFirstText) {
    const provider = openaiResponses({
      apiKey: OPENAI_API_KEY,
      model: OPENAI_RESPONSES_MODEL,
      fetch: fetchReturning(body),
    });
    return modelwireRun(
      provider.stream([{ role: "user", content: PROMPT }]),
      (blocks) => {
        const reasoning = blocks.find((block) => block.type === "reasoning");
        return typeof reasoning?.encrypted_content === "string" ? reasoning.encrypted_content : "";
      },
      onFirstText,
    );
  },
};

const openaiResponsesSdk: Contender = {
  id: "sdk",
  name: "openai `responses.stream().finalResponse()`",
  short: "official SDK",
  async run(body, _stream, onFirstText) {
    const client = new OpenAI({ apiKey: OPENAI_API_KEY, fetch: fetchReturning(body), maxRetries: 0 });
    const stream = client.responses.stream({
      model: OPENAI_RESPONSES_MODEL,
      input: PROMPT,
      store: false,
      include: ["reasoning.encrypted_content"],
    });
    if (onFirstText) stream.once("response.output_text.delta", onFirstText);
    const response = await stream.finalResponse();
    const out: Assembled = { kind: "assembled", text: "", thinking: "", signature: "", toolCalls: [] };
    for (const item of response.output) {
      if (item.type === "message") {
        for (const part of item.content) if (part.type === "output_text") out.text += part.text;
      } else if (item.type === "reasoning") {
        out.thinking += item.summary.map((part) => part.text).join("\n\n");
        out.signature += item.encrypted_content ?? "";
      } else if (item.type === "function_call") {
        out.toolCalls.push({ id: item.call_id, name: item.name, input: JSON.parse(item.arguments) });
      }
    }
    if (response.usage)
      out.usage = { input: response.usage.input_tokens, output: response.usage.output_tokens };
    return out;
  },
};

const aiSdkResponses: Contender = {
  id: "ai-sdk",
  name: "AI SDK `streamText().fullStream` (@ai-sdk/openai `responses()`)",
  short: "AI SDK",
  async run(body, _stream, onFirstText) {
    const provider = createOpenAI({ apiKey: OPENAI_API_KEY, fetch: fetchReturning(body) });
    const result = streamText({
      model: provider.responses(OPENAI_RESPONSES_MODEL),
      prompt: PROMPT,
      tools: aiSdkTools,
      maxRetries: 0,
      providerOptions: { openai: { store: false, include: ["reasoning.encrypted_content"] } },
    });
    return aiSdkRun(
      result,
      (metadata) => {
        const encrypted = metadata?.openai?.reasoningEncryptedContent;
        return typeof encrypted === "string" ? encrypted : undefined;
      },
      onFirstText,
    );
  },
};

/** Only `response.output_text.delta` counts as text. */
const isResponsesText = (event: unknown): boolean =>
  (event as { type?: unknown }).type === "response.output_text.delta";

/** The Responses rows. */
export const RESPONSES_CONTENDERS: readonly Contender[] = [
  modelwireResponses,
  openaiResponsesSdk,
  aiSdkResponses,
  jsonParseFloor(isResponsesText),
  byteScanFloor,
];

// ---------------------------------------------------------------------------------------------------------
// (g) Bedrock ConverseStream

const EVENT_STREAM = "application/vnd.amazon.eventstream";

const modelwireBedrock: Contender = {
  id: "modelwire",
  name: 'modelwire `bedrock({ api: "converse" }).stream()`',
  short: "modelwire",
  async run(body, _stream, onFirstText) {
    const provider = bedrock({
      region: "us-east-1",
      model: BEDROCK_MODEL,
      api: "converse",
      apiKey: "bedrock-bench-0000",
      logger: false,
      cache: "off",
      fetch: fetchReturning(body, EVENT_STREAM),
    });
    return modelwireRun(
      provider.stream([{ role: "user", content: PROMPT }]),
      (blocks) => {
        for (const block of blocks) {
          const reasoning = block.reasoningContent as { reasoningText?: { signature?: unknown } } | undefined;
          const signature = reasoning?.reasoningText?.signature;
          if (typeof signature === "string") return signature;
        }
        return "";
      },
      onFirstText,
    );
  },
};

const aiSdkBedrock: Contender = {
  id: "ai-sdk",
  name: "AI SDK `streamText().fullStream` (@ai-sdk/amazon-bedrock)",
  short: "AI SDK",
  async run(body, _stream, onFirstText) {
    const provider = createAmazonBedrock({
      region: "us-east-1",
      accessKeyId: "AKIDBENCH0000000000",
      secretAccessKey: "bench-secret-0000000000000000000000000000",
      fetch: fetchReturning(body, EVENT_STREAM),
    });
    const result = streamText({
      model: provider(BEDROCK_MODEL),
      prompt: PROMPT,
      tools: aiSdkTools,
      maxRetries: 0,
    });
    return aiSdkRun(
      result,
      (metadata) => {
        const signature = metadata?.bedrock?.signature;
        return typeof signature === "string" ? signature : undefined;
      },
      onFirstText,
    );
  },
};

/**
 * The decoding floor: the frames cut out by their length prefix (the codec decodes whole messages only;
 * the AWS SDK cuts them in `getChunkedStream` the same way), each decoded by `@smithy/eventstream-codec`
 * (prelude and message CRC32s, headers), one `JSON.parse` of each payload. No assembly.
 */
const eventStreamFloor: Contender = {
  id: "json-floor",
  name: "floor: @smithy/eventstream-codec decode + JSON.parse",
  short: "decoding floor",
  async run(body, stream, onFirstText) {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    const codec = createEventStreamCodec();
    let events = 0;
    const firstTextEvents = stream.firstTextEvent + 1;
    // Bytes of an unfinished frame carried over from earlier reads.
    let pending: Uint8Array = new Uint8Array(0);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      let bytes = value;
      if (pending.length > 0) {
        bytes = new Uint8Array(pending.length + value.length);
        bytes.set(pending);
        bytes.set(value, pending.length);
      }
      let at = 0;
      while (bytes.length - at >= 4) {
        const length =
          ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
        if (bytes.length - at < length) break;
        const message = codec.decode(bytes.subarray(at, at + length));
        at += length;
        events++;
        JSON.parse(decoder.decode(message.body));
        if (events === firstTextEvents) onFirstText?.();
      }
      pending = bytes.subarray(at);
    }
    if (pending.length > 0)
      throw new Error(`decoding floor: ${pending.length} bytes of a cut frame at the end`);
    return { kind: "counted", events };
  },
};

/** A bare scan of the frames' length prefixes: no CRC, no headers, no JSON. */
const frameScanFloor: Contender = {
  id: "byte-floor",
  name: "floor: bare frame-length scan",
  short: "frame-scan floor",
  async run(body, stream, onFirstText) {
    const reader = body.getReader();
    let events = 0;
    // Bytes still to skip in the current frame, and the length prefix being read (0–3 bytes of it so far).
    let skip = 0;
    let prefix = 0;
    let prefixBytes = 0;
    const firstTextEvents = stream.firstTextEvent + 1;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      let at = 0;
      while (at < value.length) {
        if (skip > 0) {
          const step = Math.min(skip, value.length - at);
          skip -= step;
          at += step;
          continue;
        }
        prefix = prefix * 256 + value[at++]!;
        if (++prefixBytes === 4) {
          skip = prefix - 4;
          prefix = 0;
          prefixBytes = 0;
          events++;
          if (events === firstTextEvents) onFirstText?.();
        }
      }
    }
    return { kind: "counted", events };
  },
};

/** The Bedrock rows (no official SDK row: `@aws-sdk/client-bedrock-runtime` is not a devDependency). */
export const BEDROCK_CONTENDERS: readonly Contender[] = [
  modelwireBedrock,
  aiSdkBedrock,
  eventStreamFloor,
  frameScanFloor,
];
