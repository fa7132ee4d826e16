/**
 * The rows of the benchmark: modelwire and what a user would pick instead, each fed the very same body
 * through an injected `fetch`, plus two floors that do less than any real client could.
 *
 * Every contender returns what it made of the stream; {@link verify} checks it against what the generator
 * put in before a timing counts. Later adapters add their rows here (openai with the `openai` package, …).
 *
 * @module
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import Anthropic from "@anthropic-ai/sdk";
import { jsonSchema, streamText, tool } from "ai";
import { anthropic } from "../../src/index.ts";
import { type ExpectedResult, type GeneratedStream, MODEL, TOOL_NAMES } from "./generate.ts";

/** Assembled output of a client library. */
export interface Assembled {
  kind: "assembled";
  text: string;
  thinking: string;
  signature: string;
  toolCalls: { id: string; name: string; input: unknown }[];
}

/** What a floor counted. */
export interface Counted {
  kind: "counted";
  events: number;
}

export type Outcome = Assembled | Counted;

/** One row. `run` consumes `body` to the end; `onFirstText` is called when the first text event surfaces. */
export interface Contender {
  /** For `--only`. */
  id: string;
  name: string;
  /** Short label for ratio columns. */
  short: string;
  run(body: ReadableStream<Uint8Array>, stream: GeneratedStream, onFirstText?: () => void): Promise<Outcome>;
}

const API_KEY = "sk-ant-bench-0000";

// The AI SDK logs a banner and call warnings to the console by default; they would interleave with the report.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
const PROMPT = "Write the files.";

function fetchReturning(body: ReadableStream<Uint8Array>): typeof fetch {
  return (async () =>
    new Response(body, {
      status: 200,
      headers: { "content-type": "text/event-stream; charset=utf-8", "request-id": "req_bench" },
    })) as unknown as typeof fetch;
}

const modelwire: Contender = {
  id: "modelwire",
  name: "modelwire `anthropic().stream()`",
  short: "modelwire",
  async run(body, _stream, onFirstText) {
    const claude = anthropic({ apiKey: API_KEY, model: MODEL, fetch: fetchReturning(body), cache: "off" });
    let firstText = onFirstText;
    for await (const event of claude.stream([{ role: "user", content: PROMPT }])) {
      if (event.type === "text-delta" && firstText) {
        firstText();
        firstText = undefined;
      }
      if (event.type === "done") {
        const response = event.response;
        const blocks = (response.message.native?.blocks ?? []) as { type: string; signature?: string }[];
        return {
          kind: "assembled",
          text: response.message.content,
          thinking: response.reasoning ?? "",
          signature: blocks.find((block) => block.type === "thinking")?.signature ?? "",
          toolCalls: response.message.toolCalls.map((call) => ({
            id: call.id,
            name: call.name,
            input: call.arguments,
          })),
        };
      }
    }
    throw new Error("modelwire: the stream ended without done");
  },
};

const officialSdk: Contender = {
  id: "sdk",
  name: "@anthropic-ai/sdk `messages.stream().finalMessage()`",
  short: "official SDK",
  async run(body, _stream, onFirstText) {
    const client = new Anthropic({ apiKey: API_KEY, fetch: fetchReturning(body), maxRetries: 0 });
    const stream = client.messages.stream({
      model: MODEL,
      max_tokens: 64000,
      messages: [{ role: "user", content: PROMPT }],
    });
    if (onFirstText) stream.once("text", onFirstText);
    const message = await stream.finalMessage();
    const result: Assembled = { kind: "assembled", text: "", thinking: "", signature: "", toolCalls: [] };
    for (const block of message.content) {
      if (block.type === "text") result.text += block.text;
      else if (block.type === "thinking") {
        result.thinking += block.thinking;
        result.signature += block.signature;
      } else if (block.type === "tool_use") {
        result.toolCalls.push({ id: block.id, name: block.name, input: block.input });
      }
    }
    return result;
  },
};

const aiSdkTools = Object.fromEntries(
  TOOL_NAMES.map((name) => [name, tool({ description: name, inputSchema: jsonSchema({ type: "object" }) })]),
);

const aiSdk: Contender = {
  id: "ai-sdk",
  name: "AI SDK `streamText().fullStream`",
  short: "AI SDK",
  async run(body, _stream, onFirstText) {
    const provider = createAnthropic({ apiKey: API_KEY, fetch: fetchReturning(body) });
    const result = streamText({
      model: provider(MODEL),
      prompt: PROMPT,
      tools: aiSdkTools,
      maxRetries: 0,
    });
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
        case "reasoning-delta": {
          out.thinking += part.text;
          const signature = part.providerMetadata?.anthropic?.signature;
          if (typeof signature === "string") out.signature += signature;
          break;
        }
        case "tool-call":
          out.toolCalls.push({ id: part.toolCallId, name: part.toolName, input: part.input });
          break;
        case "error":
          throw part.error;
      }
    }
    return out;
  },
};

/** Floor 1: streaming `TextDecoder`, split on blank lines, `JSON.parse` of each event's data. No assembly. */
const jsonParseFloor: Contender = {
  id: "json-floor",
  name: "floor: TextDecoder + blank-line split + JSON.parse",
  short: "JSON.parse floor",
  async run(body, _stream, onFirstText) {
    const decoder = new TextDecoder();
    const reader = body.getReader();
    let buffer = "";
    let events = 0;
    let firstText = onFirstText;
    const handle = (block: string): void => {
      events++;
      const data = block.indexOf("data: ");
      if (data < 0) return;
      const end = block.indexOf("\n", data);
      const event = JSON.parse(block.slice(data + 6, end < 0 ? block.length : end)) as {
        delta?: { type?: string };
      };
      if (firstText && event.delta?.type === "text_delta") {
        firstText();
        firstText = undefined;
      }
    };
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let start = 0;
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n", start)) {
        handle(buffer.slice(start, end));
        start = end + 2;
      }
      if (start > 0) buffer = buffer.slice(start);
    }
    buffer += decoder.decode();
    if (buffer.trim() !== "") handle(buffer);
    return { kind: "counted", events };
  },
};

/** Floor 2: a bare byte scan counting blank lines (`\n\n`). No decoding, no parsing. */
const byteScanFloor: Contender = {
  id: "byte-floor",
  name: "floor: bare byte scan for blank lines",
  short: "byte-scan floor",
  async run(body, stream, onFirstText) {
    const reader = body.getReader();
    let events = 0;
    let previous = 0;
    const firstTextEvents = stream.firstTextEvent + 1;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (let i = 0; i < value.length; i++) {
        const byte = value[i]!;
        if (byte === 10 && previous === 10) {
          events++;
          if (events === firstTextEvents) onFirstText?.();
        }
        previous = byte;
      }
    }
    return { kind: "counted", events };
  },
};

export const CONTENDERS: readonly Contender[] = [
  modelwire,
  officialSdk,
  aiSdk,
  jsonParseFloor,
  byteScanFloor,
];

/** Throws unless `outcome` is exactly what the generator put in `stream`. */
export function verify(contender: Contender, outcome: Outcome, stream: GeneratedStream): void {
  const fail = (what: string): never => {
    throw new Error(`${contender.short}: ${what} differs from what was generated`);
  };
  if (outcome.kind === "counted") {
    if (outcome.events !== stream.events) fail(`event count (${outcome.events} vs ${stream.events})`);
    return;
  }
  const expected: ExpectedResult = stream.expected;
  if (outcome.text !== expected.text) fail("text");
  if (outcome.thinking !== expected.thinking) fail("thinking");
  if (outcome.signature !== expected.signature) fail("signature");
  if (outcome.toolCalls.length !== expected.toolCalls.length) fail("number of tool calls");
  expected.toolCalls.forEach((call, index) => {
    const got = outcome.toolCalls[index]!;
    if (got.id !== call.id || got.name !== call.name) fail(`tool call ${index} id or name`);
    if (JSON.stringify(got.input) !== JSON.stringify(call.input)) fail(`tool call ${index} input`);
  });
}
