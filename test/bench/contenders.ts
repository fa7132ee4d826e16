/**
 * The rows of the benchmark: modelwire and what a user would pick instead, each fed the very same body
 * through an injected `fetch`, plus two floors that do less than any real client could.
 *
 * Every contender returns what it made of the stream; {@link verify} checks it against what the generator
 * put in before a timing counts. {@link CONTENDERS} are the Anthropic rows; {@link openAIChatContenders} the
 * Chat Completions rows (the `openai` package, the AI SDK's OpenAI-compatible provider when installed).
 *
 * @module
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import Anthropic from "@anthropic-ai/sdk";
import { jsonSchema, streamText, tool } from "ai";
import OpenAI from "openai";
import { anthropic, openaiChat } from "../../src/index.ts";
import {
  type ExpectedResult,
  type GeneratedStream,
  MODEL,
  OPENAI_CHAT_MODEL,
  TOOL_NAMES,
} from "./generate.ts";

/** Assembled output of a client library. */
export interface Assembled {
  kind: "assembled";
  text: string;
  thinking: string;
  signature: string;
  toolCalls: { id: string; name: string; input: unknown }[];
  /** All input tokens (cached included) and output tokens, where the row reports usage. */
  usage?: { input: number; output: number };
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
  /** Fields {@link verify} leaves alone because the client does not keep them (said in the report). */
  unchecked?: readonly ("thinking" | "signature" | "usage")[];
}

const API_KEY = "sk-ant-bench-0000";

// The AI SDK logs a banner and call warnings to the console by default; they would interleave with the report.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
export const PROMPT = "Write the files.";

export function fetchReturning(
  body: ReadableStream<Uint8Array>,
  contentType = "text/event-stream; charset=utf-8",
): typeof fetch {
  return (async () =>
    new Response(body, {
      status: 200,
      headers: { "content-type": contentType, "request-id": "req_bench" },
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

export const aiSdkTools = Object.fromEntries(
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

/**
 * Floor 1: streaming `TextDecoder`, split on blank lines, `JSON.parse` of each event's data. No assembly.
 * `isText` says whether a parsed event carries text (for the first-text callback); data that is not JSON
 * (`[DONE]`) is in `sentinels` and only counted.
 *
 * Each read's text is searched once: an event that spans reads is kept as pieces and joined once when its
 * blank line comes. (Until issue 22 the floor appended every read to one string and searched it from the
 * start, which copies a growing string on every read: harmless for small events, but quadratic in the size
 * of one, and ~1.8× slower on the Responses stream's 0.5 MB `response.completed` — no floor at all.)
 */
export function jsonParseFloor(
  isText: (event: unknown) => boolean,
  sentinels: readonly string[] = [],
): Contender {
  return {
    id: "json-floor",
    name: "floor: TextDecoder + blank-line split + JSON.parse",
    short: "JSON.parse floor",
    async run(body, _stream, onFirstText) {
      const decoder = new TextDecoder();
      const reader = body.getReader();
      // The unfinished event's text, in pieces; whether its last piece ends with a newline.
      const pending: string[] = [];
      let pendingNewline = false;
      let events = 0;
      let firstText = onFirstText;
      const handle = (block: string): void => {
        events++;
        const data = block.indexOf("data: ");
        if (data < 0) return;
        const end = block.indexOf("\n", data);
        const text = block.slice(data + 6, end < 0 ? block.length : end);
        if (sentinels.includes(text)) return;
        const event: unknown = JSON.parse(text);
        if (firstText && isText(event)) {
          firstText();
          firstText = undefined;
        }
      };
      const take = (text: string): void => {
        if (text === "") return;
        let start = 0;
        // A blank line cut between two reads: "…\n" | "\n…".
        if (pendingNewline && text.charCodeAt(0) === 10) {
          handle(pending.join("").slice(0, -1));
          pending.length = 0;
          start = 1;
        }
        for (let end = text.indexOf("\n\n", start); end >= 0; end = text.indexOf("\n\n", start)) {
          const piece = text.slice(start, end);
          if (pending.length > 0) {
            pending.push(piece);
            handle(pending.join(""));
            pending.length = 0;
          } else handle(piece);
          start = end + 2;
        }
        if (start < text.length) pending.push(text.slice(start));
        pendingNewline = pending.length > 0 && text.charCodeAt(text.length - 1) === 10;
      };
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        take(decoder.decode(value, { stream: true }));
      }
      take(decoder.decode());
      const rest = pending.join("");
      if (rest.trim() !== "") handle(rest);
      return { kind: "counted", events };
    },
  };
}

/** Floor 2: a bare byte scan counting blank lines (`\n\n`). No decoding, no parsing. */
export const byteScanFloor: Contender = {
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
  jsonParseFloor((event) => (event as { delta?: { type?: string } }).delta?.type === "text_delta"),
  byteScanFloor,
];

// ---------------------------------------------------------------------------------------------------------
// OpenAI Chat Completions

const OPENAI_API_KEY = "sk-bench-0000";
const OPENAI_BASE_URL = "https://api.deepseek.example/v1";

/** Only `delta.content` counts as text. */
const isChatText = (event: unknown): boolean => {
  const content = (event as { choices?: { delta?: { content?: unknown } }[] }).choices?.[0]?.delta?.content;
  return typeof content === "string" && content !== "";
};

const modelwireChat: Contender = {
  id: "modelwire",
  name: "modelwire `openaiChat().stream()`",
  short: "modelwire",
  async run(body, _stream, onFirstText) {
    const chat = openaiChat({
      apiKey: OPENAI_API_KEY,
      model: OPENAI_CHAT_MODEL,
      fetch: fetchReturning(body),
      endpoint: { kind: "deepseek-like", baseURL: OPENAI_BASE_URL, streamUsage: true, echoReasoning: true },
    });
    let firstText = onFirstText;
    for await (const event of chat.stream([{ role: "user", content: PROMPT }])) {
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
          signature: "",
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

/**
 * The `openai` package. Its accumulator copies unknown delta fields onto the message, so
 * `reasoning_content` ends up as the last piece only: reasoning is not checked for this row.
 */
const openaiSdk: Contender = {
  id: "sdk",
  name: "openai `chat.completions.stream().finalChatCompletion()`",
  short: "official SDK",
  unchecked: ["thinking"],
  async run(body, _stream, onFirstText) {
    const client = new OpenAI({
      apiKey: OPENAI_API_KEY,
      baseURL: OPENAI_BASE_URL,
      fetch: fetchReturning(body),
      maxRetries: 0,
    });
    const stream = client.chat.completions.stream({
      model: OPENAI_CHAT_MODEL,
      messages: [{ role: "user", content: PROMPT }],
      stream_options: { include_usage: true },
    });
    if (onFirstText) stream.once("content", onFirstText);
    const completion = await stream.finalChatCompletion();
    const message = completion.choices[0]?.message;
    if (!message) throw new Error("openai: no choice in the final completion");
    return {
      kind: "assembled",
      text: message.content ?? "",
      thinking: "",
      signature: "",
      toolCalls: (message.tool_calls ?? []).map((call) => {
        if (call.type !== "function") throw new Error(`openai: unexpected ${call.type} tool call`);
        return { id: call.id, name: call.function.name, input: JSON.parse(call.function.arguments) };
      }),
    };
  },
};

/** What the bench uses of an AI SDK OpenAI-compatible provider package (loaded only when installed). */
interface AiSdkChatPackage {
  /** `createOpenAICompatible` from `@ai-sdk/openai-compatible`. */
  createOpenAICompatible?: (settings: {
    name: string;
    baseURL: string;
    apiKey: string;
    fetch: typeof fetch;
    includeUsage: boolean;
  }) => { chatModel(id: string): unknown };
  /** `createOpenAI` from `@ai-sdk/openai`. */
  createOpenAI?: (settings: { baseURL: string; apiKey: string; fetch: typeof fetch }) => {
    chat(id: string): unknown;
  };
}

/**
 * The AI SDK row over `@ai-sdk/openai-compatible` (reads `reasoning_content`) or, failing that,
 * `@ai-sdk/openai` (does not: reasoning unchecked). Neither is a devDependency; the row runs when one is
 * installed.
 */
function aiSdkChat(packageName: string, loaded: AiSdkChatPackage): Contender | undefined {
  const modelFor = (body: ReadableStream<Uint8Array>): unknown => {
    const fetchBody = fetchReturning(body);
    if (loaded.createOpenAICompatible) {
      return loaded
        .createOpenAICompatible({
          name: "deepseek-like",
          baseURL: OPENAI_BASE_URL,
          apiKey: OPENAI_API_KEY,
          fetch: fetchBody,
          includeUsage: true,
        })
        .chatModel(OPENAI_CHAT_MODEL);
    }
    return loaded
      .createOpenAI?.({ baseURL: OPENAI_BASE_URL, apiKey: OPENAI_API_KEY, fetch: fetchBody })
      .chat(OPENAI_CHAT_MODEL);
  };
  if (!loaded.createOpenAICompatible && !loaded.createOpenAI) return undefined;
  return {
    id: "ai-sdk",
    name: `AI SDK \`streamText().fullStream\` (${packageName})`,
    short: "AI SDK",
    unchecked: loaded.createOpenAICompatible ? [] : ["thinking"],
    async run(body, _stream, onFirstText) {
      const result = streamText({
        model: modelFor(body) as Parameters<typeof streamText>[0]["model"],
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
          case "reasoning-delta":
            out.thinking += part.text;
            break;
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
}

/** The AI SDK's OpenAI-compatible provider packages, in order of preference. */
const AI_SDK_CHAT_PACKAGES = ["@ai-sdk/openai-compatible", "@ai-sdk/openai"];

/**
 * The Chat Completions rows. The AI SDK row is there only when `@ai-sdk/openai-compatible` or
 * `@ai-sdk/openai` is installed; `notes` says when it is not.
 */
export async function openAIChatContenders(): Promise<{ contenders: Contender[]; notes: string[] }> {
  const notes: string[] = [];
  let aiSdkRow: Contender | undefined;
  for (const packageName of AI_SDK_CHAT_PACKAGES) {
    let loaded: AiSdkChatPackage;
    try {
      // A specifier in a variable: neither package is a dependency, so neither may be resolved statically.
      loaded = (await import(packageName)) as AiSdkChatPackage;
    } catch {
      continue;
    }
    aiSdkRow = aiSdkChat(packageName, loaded);
    if (aiSdkRow) break;
  }
  if (!aiSdkRow) {
    notes.push(
      `No AI SDK row: neither ${AI_SDK_CHAT_PACKAGES.map((name) => `\`${name}\``).join(" nor ")} is installed ` +
        "(not a devDependency), so the AI SDK cannot read a Chat Completions stream here.",
    );
  }
  const contenders = [
    modelwireChat,
    openaiSdk,
    ...(aiSdkRow ? [aiSdkRow] : []),
    jsonParseFloor(isChatText, ["[DONE]"]),
    byteScanFloor,
  ];
  return { contenders, notes };
}

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
  const unchecked = contender.unchecked ?? [];
  if (!unchecked.includes("thinking") && outcome.thinking !== expected.thinking) fail("thinking");
  if (!unchecked.includes("signature") && outcome.signature !== expected.signature) fail("signature");
  if (outcome.toolCalls.length !== expected.toolCalls.length) fail("number of tool calls");
  expected.toolCalls.forEach((call, index) => {
    const got = outcome.toolCalls[index]!;
    if (got.id !== call.id || got.name !== call.name) fail(`tool call ${index} id or name`);
    if (JSON.stringify(got.input) !== JSON.stringify(call.input)) fail(`tool call ${index} input`);
  });
  if (expected.usage && !unchecked.includes("usage")) {
    if (outcome.usage?.input !== expected.usage.input || outcome.usage.output !== expected.usage.output)
      fail(`usage (${JSON.stringify(outcome.usage)} vs ${JSON.stringify(expected.usage)})`);
  }
}
