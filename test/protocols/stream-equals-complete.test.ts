/**
 * `stream()` ≡ `complete()`, on every recorded answer in test/fixtures/ (anthropic, openai-chat,
 * openai-responses, bedrock): the `done` response of the stream and the `Response` of the whole answer are
 * deep-equal — text, reasoning, tool calls, usage, stop reason, ids and `message.native.blocks` alike.
 *
 * No fixture holds both recordings of one answer (a stream and the JSON body of the same generation; the
 * pairing by response id below finds none, and would use them if one came), so each recording is given its
 * other half by a small re-serialiser written here from the API documentation, sharing no code with
 * src/:
 * - a recorded stream → the JSON body the API would have returned for it (Messages API `message`, Chat
 *   `chat.completion`, the Responses terminal `response`, Converse `output.message`);
 * - a recorded JSON answer → the stream the API would have sent for it (its text, thinking and tool input
 *   cut into pieces).
 * Both then go through the public providers with an injected `fetch`.
 *
 * The recordings left out, and why, are listed in {@link LEFT_OUT}; a test checks that every fixture file
 * is either covered or listed there.
 */
import { describe, expect, it } from "vitest";
import {
  anthropic,
  bedrock,
  type Response as ModelResponse,
  openaiChat,
  openaiResponses,
  type Provider,
  type StreamEvent,
} from "../../src/index.ts";
import { converseEventFrame, converseFrames } from "../helpers/bedrock-frames.ts";
import { byteStream } from "../helpers/byte-stream.ts";
import { type FixtureInteraction, listFixtures, loadFixture } from "../helpers/fixtures.ts";

type Json = Record<string, unknown>;

const HISTORY = [{ role: "user" as const, content: "hi" }];
const decoder = new TextDecoder();
const encoder = new TextEncoder();
/** Odd read sizes, so events and UTF-8 characters are split across reads. */
const CHUNKS = [17, 5, 64, 1, 300, 3, 1024];

/**
 * Recordings (and whole folders or files) that are not a model answer of a protocol modelwire speaks, or
 * whose answer is a failure: neither `stream()` nor `complete()` gives a `Response` to compare.
 */
const LEFT_OUT: Record<string, string> = {
  "google/": "Gemini's API: not a protocol modelwire speaks (yet)",
  "bedrock/aws-eventstream-test-vectors/": "the AWS event-stream codec's test vectors, not answers",
  "anthropic/pydantic-ai__test_text_document_url_input.yaml#0": "the document the client downloaded first",
  "openai-chat/pydantic-ai__test_document_url_input.yaml#0": "the document the client downloaded first",
  "openai-chat/pydantic-ai__test_image_url_input_force_download.yaml#0":
    "the image the client downloaded first",
  "openai-chat/pydantic-ai__test_text_document_url_input.yaml#0": "the document the client downloaded first",
  "openai-chat/pydantic-ai__test_openrouter_stream_error.yaml#0":
    "an error stream (an `error` object inside a chunk): both paths throw",
  "openai-chat/pydantic-ai__test_tool_use_failed_error_streaming.yaml#0":
    "an error stream (Groq's `event: error`): both paths throw",
  "openai-responses/openllmetry__test_music_composer_handoff_hierarchy.yaml#0": "a trace upload (HTTP 204)",
  "openai-responses/openllmetry__test_music_composer_handoff_hierarchy.yaml#3": "a trace upload (HTTP 204)",
  "openai-responses/pydantic-ai__test_image_url_input_force_download_response_api.yaml#0":
    "the image the client downloaded first",
  "openai-responses/vercel-ai__openai-error.1.chunks.txt#0":
    "an error stream (`error`, then `response.failed`): both paths throw",
  "bedrock/openllmetry__test_nova_invoke_stream.yaml#0":
    "Nova's own chunk format on InvokeModel: api 'invoke' speaks the Anthropic body (Claude models) only",
  "bedrock/pydantic-ai__test_bedrock_streaming_error.yaml#0": "an HTTP 400 error answer, not a stream",
  "bedrock/pydantic-ai__test_document_url_input.yaml#0": "the document the client downloaded first",
  "bedrock/pydantic-ai__test_image_url_input.yaml#0": "the image the client downloaded first",
  "bedrock/pydantic-ai__test_text_document_url_input.yaml#0": "the document the client downloaded first",
};

// ---------------------------------------------------------------------------------------------------
// Reading the recordings without src/: SSE events, event-stream frames, pieces.

interface WireEvent {
  event: string | undefined;
  data: string;
}

/** SSE events of a body (the WHATWG rules this data needs: fields, comments, CRLF, a leading BOM). */
function sseEvents(body: Uint8Array): WireEvent[] {
  const events: WireEvent[] = [];
  let event: string | undefined;
  let data: string[] = [];
  const flush = () => {
    if (data.length > 0) events.push({ event, data: data.join("\n") });
    event = undefined;
    data = [];
  };
  for (const line of decoder
    .decode(body)
    .replace(/^\uFEFF/, "")
    .split(/\r\n|\r|\n/)) {
    if (line === "") {
      flush();
      continue;
    }
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") event = value;
    if (field === "data") data.push(value);
  }
  flush();
  return events;
}

function sseBytes(events: readonly WireEvent[]): Uint8Array {
  return encoder.encode(
    events.map((e) => `${e.event === undefined ? "" : `event: ${e.event}\n`}data: ${e.data}\n\n`).join(""),
  );
}

/** Splits a body into one part per answer: a new part at each event whose `type` is `first`. */
function splitAnswers(events: readonly WireEvent[], first: string): WireEvent[][] {
  const parts: WireEvent[][] = [];
  for (const event of events) {
    const type = event.data === "[DONE]" ? undefined : (JSON.parse(event.data) as Json).type;
    if (type === first || parts.length === 0) parts.push([]);
    parts.at(-1)!.push(event);
  }
  return parts;
}

/** The messages of an AWS event stream (prelude, string headers, payload; CRCs are checked elsewhere). */
function eventStreamMessages(body: Uint8Array): { headers: Record<string, string>; payload: Uint8Array }[] {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const out: { headers: Record<string, string>; payload: Uint8Array }[] = [];
  for (let at = 0; at < body.length; ) {
    const total = view.getUint32(at);
    const end = at + 12 + view.getUint32(at + 4);
    const headers: Record<string, string> = {};
    for (let h = at + 12; h < end; ) {
      const nameLength = body[h]!;
      const name = decoder.decode(body.subarray(h + 1, h + 1 + nameLength));
      h += 1 + nameLength;
      if (body[h] !== 7) throw new Error(`header ${name} is not a string (type ${body[h]})`);
      const length = view.getUint16(h + 1);
      headers[name] = decoder.decode(body.subarray(h + 3, h + 3 + length));
      h += 3 + length;
    }
    out.push({ headers, payload: body.subarray(end, at + total - 4) });
    at += total;
  }
  return out;
}

function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** `text` in pieces of `size` code points (a stream cuts text anywhere but inside a character). */
function pieces(text: string, size = 7): string[] {
  const points = Array.from(text);
  const out: string[] = [];
  for (let at = 0; at < points.length; at += size) out.push(points.slice(at, at + size).join(""));
  return out;
}

function parsesAsObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------------
// Anthropic Messages: stream events ⇄ message (https://docs.anthropic.com/en/docs/build-with-claude/streaming).

/** A message rebuilt from its stream; `cut` holds the input text of tool blocks whose JSON is incomplete. */
function anthropicMessage(events: readonly Json[]): { body: Json; cut: Map<string, string> } {
  let message: Json = {};
  const content: Json[] = [];
  const input = new Map<number, string>();
  const cut = new Map<string, string>();
  const close = (index: number) => {
    const json = input.get(index);
    input.delete(index);
    if (json === undefined || json === "") return;
    const block = content[index]!;
    if (parsesAsObject(json)) block.input = JSON.parse(json);
    else {
      // A max_tokens stop cut the input short: the whole answer could only carry an empty object.
      block.input = {};
      cut.set(String(block.id), json);
    }
  };
  for (const event of events) {
    const index = event.index as number;
    const delta = (event.delta ?? {}) as Json;
    switch (event.type) {
      case "message_start":
        message = structuredClone(event.message as Json);
        content.push(...((message.content ?? []) as Json[]));
        break;
      case "content_block_start":
        content[index] = structuredClone(event.content_block as Json);
        break;
      case "content_block_delta": {
        const block = content[index]!;
        const append = (field: string, text: unknown) => {
          block[field] = String(block[field] ?? "") + String(text);
        };
        if (delta.type === "text_delta") append("text", delta.text);
        else if (delta.type === "thinking_delta") append("thinking", delta.thinking);
        else if (delta.type === "signature_delta") append("signature", delta.signature);
        else if (delta.type === "input_json_delta")
          input.set(index, (input.get(index) ?? "") + String(delta.partial_json));
        else if (delta.type === "citations_delta")
          block.citations = [...((block.citations ?? []) as unknown[]), delta.citation];
        else if (delta.type === "compaction_delta") {
          // The delta carries the compaction block's content (a summary, or null for a failed compaction).
          block.content = delta.content;
          if ("encrypted_content" in delta) block.encrypted_content = delta.encrypted_content;
        } else throw new Error(`${String(delta.type)}: teach the re-serialiser this delta`);
        break;
      }
      case "content_block_stop":
        close(index);
        break;
      case "message_delta": {
        if ("stop_reason" in delta) message.stop_reason = delta.stop_reason;
        if ("stop_sequence" in delta) message.stop_sequence = delta.stop_sequence;
        // A refusal's `stop_details` (its explanation): on the message, as the whole answer has it.
        if ("stop_details" in delta) message.stop_details = delta.stop_details;
        // The delta's counts are cumulative: each one it reports replaces message_start's.
        const usage = { ...((message.usage ?? {}) as Json) };
        for (const [key, value] of Object.entries((event.usage ?? {}) as Json))
          if (value !== null && value !== undefined) usage[key] = value;
        message.usage = usage;
        break;
      }
      case "message_stop":
        for (const index of [...input.keys()]) close(index);
        break;
      case "ping":
        break;
      default:
        throw new Error(`${String(event.type)}: teach the re-serialiser this event`);
    }
  }
  message.content = content;
  return { body: message, cut };
}

/** The stream the Messages API sends for a whole message: each block started empty, then its deltas. */
function anthropicEvents(message: Json): Json[] {
  const usage = (message.usage ?? {}) as Json;
  const events: Json[] = [
    { type: "message_start", message: { ...message, content: [], stop_reason: null, stop_sequence: null } },
  ];
  ((message.content ?? []) as Json[]).forEach((block, index) => {
    const start: Json = { ...block };
    const deltas: Json[] = [];
    if (block.type === "text") {
      start.text = "";
      for (const text of pieces(String(block.text))) deltas.push({ type: "text_delta", text });
    } else if (block.type === "thinking") {
      start.thinking = "";
      for (const thinking of pieces(String(block.thinking)))
        deltas.push({ type: "thinking_delta", thinking });
      if ("signature" in block) {
        start.signature = "";
        deltas.push({ type: "signature_delta", signature: block.signature });
      }
    } else if ("input" in block) {
      start.input = {};
      for (const partial_json of pieces(JSON.stringify(block.input)))
        deltas.push({ type: "input_json_delta", partial_json });
    }
    events.push({ type: "content_block_start", index, content_block: start });
    for (const delta of deltas) events.push({ type: "content_block_delta", index, delta });
    events.push({ type: "content_block_stop", index });
  });
  events.push({
    type: "message_delta",
    delta: {
      stop_reason: message.stop_reason,
      stop_sequence: message.stop_sequence ?? null,
      ...("stop_details" in message ? { stop_details: message.stop_details } : {}),
    },
    usage: { output_tokens: usage.output_tokens },
  });
  events.push({ type: "message_stop" });
  return events;
}

function anthropicSse(events: readonly Json[]): Uint8Array {
  return sseBytes(events.map((event) => ({ event: String(event.type), data: JSON.stringify(event) })));
}

// ---------------------------------------------------------------------------------------------------
// OpenAI Chat Completions: chunks ⇄ completion (https://platform.openai.com/docs/api-reference/chat-streaming).

function chatCompletion(chunks: readonly Json[]): Json {
  let id: unknown;
  let model: unknown;
  let content = "";
  let refusal = "";
  const reasoning: Record<string, string> = {};
  const calls = new Map<
    number,
    { id?: unknown; type: "function"; function: { name: string; arguments: string } }
  >();
  let finish: unknown = null;
  let usage: unknown = null;
  for (const chunk of chunks) {
    if (id === undefined && typeof chunk.id === "string" && chunk.id !== "") id = chunk.id;
    if (model === undefined && typeof chunk.model === "string" && chunk.model !== "") model = chunk.model;
    usage = chunk.usage ?? (chunk.x_groq as Json | undefined)?.usage ?? usage;
    for (const choice of (chunk.choices ?? []) as Json[]) {
      if ((choice.index ?? 0) !== 0) continue;
      const delta = (choice.delta ?? {}) as Json;
      if (typeof delta.content === "string") content += delta.content;
      if (typeof delta.refusal === "string") refusal += delta.refusal;
      for (const field of ["reasoning_content", "reasoning"])
        if (typeof delta[field] === "string") reasoning[field] = (reasoning[field] ?? "") + delta[field];
      for (const toolDelta of (delta.tool_calls ?? []) as Json[]) {
        if (typeof toolDelta.index !== "number") throw new Error("a tool-call delta without index: teach me");
        const fn = (toolDelta.function ?? {}) as Json;
        let call = calls.get(toolDelta.index);
        if (!call) {
          call = { type: "function", function: { name: "", arguments: "" } };
          calls.set(toolDelta.index, call);
        }
        if (call.id === undefined && typeof toolDelta.id === "string" && toolDelta.id !== "")
          call.id = toolDelta.id;
        if (call.function.name === "" && typeof fn.name === "string") call.function.name = fn.name;
        if (typeof fn.arguments === "string") call.function.arguments += fn.arguments;
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
  }
  const message: Json = { role: "assistant", content: content === "" ? null : content, ...reasoning };
  if (refusal !== "") message.refusal = refusal;
  if (calls.size > 0) message.tool_calls = [...calls.values()];
  return {
    id,
    object: "chat.completion",
    model,
    choices: [{ index: 0, message, finish_reason: finish }],
    usage,
  };
}

function chatChunks(completion: Json): WireEvent[] {
  const base = { id: completion.id, object: "chat.completion.chunk", model: completion.model };
  const choice = ((completion.choices ?? []) as Json[])[0] ?? {};
  const message = (choice.message ?? {}) as Json;
  const deltas: Json[] = [{ role: "assistant", content: "" }];
  for (const field of ["reasoning_content", "reasoning", "content", "refusal"])
    if (typeof message[field] === "string")
      for (const piece of pieces(message[field])) deltas.push({ [field]: piece });
  ((message.tool_calls ?? []) as Json[]).forEach((call, index) => {
    const fn = call.function as Json;
    deltas.push({
      tool_calls: [{ index, id: call.id, type: "function", function: { name: fn.name, arguments: "" } }],
    });
    for (const piece of pieces(String(fn.arguments)))
      deltas.push({ tool_calls: [{ index, function: { arguments: piece } }] });
  });
  const chunks: Json[] = deltas.map((delta) => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: null }],
  }));
  chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: choice.finish_reason }] });
  if (completion.usage) chunks.push({ ...base, choices: [], usage: completion.usage });
  return [
    ...chunks.map((chunk) => ({ event: undefined, data: JSON.stringify(chunk) })),
    { event: undefined, data: "[DONE]" },
  ];
}

// ---------------------------------------------------------------------------------------------------
// OpenAI Responses: events ⇄ response (https://platform.openai.com/docs/api-reference/responses-streaming).

/**
 * The response of a stream: its terminal event carries the whole response object; a terminal response
 * without `output` gets the `output_item.done` items, in `output_index` order.
 */
function responsesResponse(events: readonly Json[]): Json {
  const terminal = events.findLast(
    (event) => event.type === "response.completed" || event.type === "response.incomplete",
  );
  if (!terminal) throw new Error("no terminal event");
  const response = structuredClone(terminal.response as Json);
  if (!Array.isArray(response.output) || response.output.length === 0) {
    const done = events.filter((event) => event.type === "response.output_item.done");
    done.sort((a, b) => (a.output_index as number) - (b.output_index as number));
    if (done.length > 0) response.output = done.map((event) => event.item);
  }
  return response;
}

/** The stream the Responses API sends for a whole response: each item added, its deltas, done. */
function responsesEvents(response: Json): Json[] {
  const events: Json[] = [
    { type: "response.created", response: { ...response, status: "in_progress", output: [], usage: null } },
  ];
  ((response.output ?? []) as Json[]).forEach((item, output_index) => {
    const added: Json = { ...item };
    const deltas: Json[] = [];
    if (item.type === "message") {
      added.content = [];
      ((item.content ?? []) as Json[]).forEach((part, content_index) => {
        if (part.type !== "output_text") return;
        for (const delta of pieces(String(part.text)))
          deltas.push({ type: "response.output_text.delta", output_index, content_index, delta });
        deltas.push({ type: "response.output_text.done", output_index, content_index, text: part.text });
      });
    } else if (item.type === "reasoning") {
      added.summary = [];
      ((item.summary ?? []) as Json[]).forEach((part, summary_index) => {
        for (const delta of pieces(String(part.text)))
          deltas.push({ type: "response.reasoning_summary_text.delta", output_index, summary_index, delta });
      });
    } else if (item.type === "function_call") {
      added.arguments = "";
      for (const delta of pieces(String(item.arguments)))
        deltas.push({ type: "response.function_call_arguments.delta", output_index, delta });
      deltas.push({ type: "response.function_call_arguments.done", output_index, arguments: item.arguments });
    }
    events.push({ type: "response.output_item.added", output_index, item: added }, ...deltas);
    events.push({ type: "response.output_item.done", output_index, item });
  });
  events.push({ type: "response.completed", response });
  return events;
}

function responsesSse(events: readonly Json[]): Uint8Array {
  return sseBytes(events.map((event) => ({ event: String(event.type), data: JSON.stringify(event) })));
}

// ---------------------------------------------------------------------------------------------------
// Bedrock ConverseStream ⇄ Converse (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html).

interface ConverseEvent {
  type: string;
  payload: Json;
}

/** The Converse body of a stream; `cut` holds the input text of tool calls whose JSON is incomplete. */
function converseResponse(events: readonly ConverseEvent[]): { body: Json; cut: Map<string, string> } {
  const blocks = new Map<number, Json>();
  const input = new Map<number, string>();
  const redacted = new Map<number, Uint8Array[]>();
  const cut = new Map<string, string>();
  const body: Json = {};
  const block = (index: number, kind: string): Json => {
    let found = blocks.get(index);
    if (!found) {
      found = {};
      blocks.set(index, found);
    }
    const kinds = Object.keys(found);
    if (kinds.length > 0 && !kinds.includes(kind)) throw new Error(`index ${index}: ${kind} after ${kinds}`);
    return found;
  };
  for (const { type, payload } of events) {
    const index = payload.contentBlockIndex as number;
    if (type === "contentBlockStart") {
      const start = payload.start as Json;
      if (start.toolUse) {
        block(index, "toolUse").toolUse = { ...(start.toolUse as Json), input: {} };
        input.set(index, "");
      } else if (start.toolResult)
        block(index, "toolResult").toolResult = { ...(start.toolResult as Json), content: [] };
      else throw new Error(`contentBlockStart ${Object.keys(start)}: teach the re-serialiser`);
    } else if (type === "contentBlockDelta") {
      const delta = payload.delta as Json;
      const reasoning = delta.reasoningContent as Json | undefined;
      if (typeof delta.text === "string") {
        const target = block(index, "text");
        target.text = String(target.text ?? "") + delta.text;
      } else if (reasoning && typeof reasoning.redactedContent === "string") {
        block(index, "reasoningContent");
        redacted.set(index, [...(redacted.get(index) ?? []), fromBase64(reasoning.redactedContent)]);
      } else if (reasoning) {
        const target = block(index, "reasoningContent");
        const text = ((target.reasoningContent ?? {}) as Json).reasoningText as Json | undefined;
        const next: Json = { text: String(text?.text ?? "") + String(reasoning.text ?? "") };
        if (typeof reasoning.signature === "string" || text?.signature !== undefined)
          next.signature = String(text?.signature ?? "") + String(reasoning.signature ?? "");
        target.reasoningContent = { reasoningText: next };
      } else if (delta.toolUse)
        input.set(index, (input.get(index) ?? "") + String((delta.toolUse as Json).input));
      else if (Array.isArray(delta.toolResult))
        ((blocks.get(index)!.toolResult as Json).content as unknown[]).push(...delta.toolResult);
      else throw new Error(`contentBlockDelta ${Object.keys(delta)}: teach the re-serialiser`);
    } else if (type === "messageStop") {
      body.stopReason = payload.stopReason;
      if (payload.additionalModelResponseFields !== undefined)
        body.additionalModelResponseFields = payload.additionalModelResponseFields;
    } else if (type === "metadata") {
      body.usage = payload.usage;
      body.metrics = payload.metrics;
    }
  }
  for (const [index, json] of input) {
    const toolUse = blocks.get(index)!.toolUse as Json;
    if (json === "") continue;
    if (parsesAsObject(json)) toolUse.input = JSON.parse(json);
    else cut.set(String(toolUse.toolUseId), json);
  }
  for (const [index, parts] of redacted) {
    const bytes = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
    let at = 0;
    for (const part of parts) {
      bytes.set(part, at);
      at += part.length;
    }
    blocks.get(index)!.reasoningContent = { redactedContent: toBase64(bytes) };
  }
  body.output = { message: { role: "assistant", content: [...blocks.values()] } };
  return { body, cut };
}

/** The ConverseStream events of a whole Converse answer, block by block. */
function converseEvents(response: Json): ConverseEvent[] {
  const message = ((response.output as Json | undefined)?.message ?? {}) as Json;
  const events: ConverseEvent[] = [{ type: "messageStart", payload: { role: "assistant" } }];
  ((message.content ?? []) as Json[]).forEach((block, contentBlockIndex) => {
    const delta = (value: Json) =>
      events.push({ type: "contentBlockDelta", payload: { contentBlockIndex, delta: value } });
    const reasoning = block.reasoningContent as Json | undefined;
    if (typeof block.text === "string") for (const text of pieces(block.text)) delta({ text });
    else if (reasoning?.redactedContent !== undefined)
      delta({ reasoningContent: { redactedContent: reasoning.redactedContent } });
    else if (reasoning?.reasoningText) {
      const text = reasoning.reasoningText as Json;
      for (const piece of pieces(String(text.text))) delta({ reasoningContent: { text: piece } });
      if (text.signature !== undefined) delta({ reasoningContent: { signature: text.signature } });
    } else if (block.toolUse) {
      const { input, ...start } = block.toolUse as Json;
      events.push({ type: "contentBlockStart", payload: { contentBlockIndex, start: { toolUse: start } } });
      for (const piece of pieces(JSON.stringify(input))) delta({ toolUse: { input: piece } });
    } else throw new Error(`Converse block ${Object.keys(block)}: teach the re-serialiser`);
    events.push({ type: "contentBlockStop", payload: { contentBlockIndex } });
  });
  events.push({ type: "messageStop", payload: { stopReason: response.stopReason } });
  events.push({
    type: "metadata",
    payload: { usage: response.usage, metrics: response.metrics ?? { latencyMs: 1 } },
  });
  return events;
}

function converseBody(events: readonly ConverseEvent[]): Uint8Array {
  const frames = events.map(({ type, payload }, index) => converseEventFrame(type, payload, index));
  const body = new Uint8Array(frames.reduce((sum, frame) => sum + frame.length, 0));
  let at = 0;
  for (const frame of frames) {
    body.set(frame, at);
    at += frame.length;
  }
  return body;
}

// ---------------------------------------------------------------------------------------------------
// Cases: one per recorded answer.

type Fetch = (body: Uint8Array | string, contentType: string) => typeof fetch;

const respond: Fetch = (body, contentType) => async () =>
  new Response(typeof body === "string" ? body : byteStream(body, CHUNKS), {
    headers: { "content-type": contentType },
  });

interface Case {
  /** `<fixture path>#<interaction>`, plus `/<answer>` in bodies that hold several answers. */
  name: string;
  /** Response id, for pairing a recorded stream with a recorded JSON body of the same answer. */
  id: unknown;
  /** Which half was recorded; the other is re-serialised here. */
  recorded: "stream" | "json";
  stream: { body: Uint8Array; contentType: string };
  json: Json;
  provider(fetchImpl: typeof fetch): Provider;
  /** Tool calls (by id) whose streamed input was cut off, with that input: the JSON body cannot carry it. */
  cut: Map<string, string>;
}

const SSE = "text/event-stream";
const EVENT_STREAM = "application/vnd.amazon.eventstream";
const ANTHROPIC_MODEL = "claude-sonnet-4-5";

function anthropicProvider(fetchImpl: typeof fetch): Provider {
  return anthropic({ apiKey: "test-key", model: ANTHROPIC_MODEL, fetch: fetchImpl });
}

/** The endpoint a Chat recording came from, as `openaiChat()` is told it. */
function chatProvider(path: string, uri: string | undefined, model: string) {
  const host = uri === undefined ? undefined : new URL(uri).host;
  const hosted = host === "api.openai.com" || path.includes("azure-model-router");
  const kind = host?.includes("deepseek")
    ? "deepseek"
    : host?.includes("openrouter")
      ? "openrouter"
      : host?.includes("groq")
        ? "groq"
        : path.includes("xai")
          ? "xai"
          : "anthropic-compat";
  return (fetchImpl: typeof fetch): Provider =>
    openaiChat({
      apiKey: "test-key",
      model,
      ...(hosted ? {} : { endpoint: { kind }, baseURL: `https://${kind}.example/v1` }),
      fetch: fetchImpl,
    });
}

function responsesProvider(uri: string | undefined, model: string) {
  const base = uri === undefined ? "https://api.openai.com/v1/responses" : uri;
  const baseURL = base.slice(0, base.lastIndexOf("/responses"));
  return (fetchImpl: typeof fetch): Provider =>
    openaiResponses({ apiKey: "test-key", model, baseURL, fetch: fetchImpl });
}

function bedrockProvider(api: "invoke" | "converse", model: string) {
  return (fetchImpl: typeof fetch): Provider =>
    bedrock({
      region: "us-east-1",
      model,
      api,
      auth: "bearer",
      apiKey: "test-key",
      logger: false,
      fetch: fetchImpl,
    });
}

function modelOfUri(uri: string | undefined): string {
  const match = /\/model\/([^/]+)\//.exec(uri ?? "");
  if (!match) throw new Error(`no model in ${uri}`);
  return decodeURIComponent(match[1]!);
}

function interactionName(path: string, interaction: FixtureInteraction): string {
  return `${path}#${interaction.index}`;
}

async function loadCases(): Promise<{ cases: Case[]; leftOut: string[]; files: Set<string> }> {
  const cases: Case[] = [];
  const leftOut: string[] = [];
  const files = new Set<string>();
  for (const info of listFixtures()) {
    const folderRule = Object.keys(LEFT_OUT).find((key) => key.endsWith("/") && info.path.startsWith(key));
    if (folderRule) {
      leftOut.push(folderRule);
      continue;
    }
    files.add(info.path);
    const fixture = await loadFixture(info.path);
    for (const interaction of fixture.interactions) {
      const name = interactionName(info.path, interaction);
      if (name in LEFT_OUT) {
        leftOut.push(name);
        continue;
      }
      const uri = interaction.request?.uri;
      const kind = interaction.bodyKind;
      if (info.folder === "anthropic") {
        if (kind === "json") {
          const json = interaction.json as Json;
          cases.push({
            name,
            id: json.id,
            recorded: "json",
            stream: { body: anthropicSse(anthropicEvents(json)), contentType: SSE },
            json,
            provider: anthropicProvider,
            cut: new Map(),
          });
          continue;
        }
        const all = sseEvents(interaction.body);
        const answers = splitAnswers(all, "message_start");
        answers.forEach((events, answer) => {
          const wire = events.map((event) => JSON.parse(event.data) as Json);
          const { body, cut } = anthropicMessage(wire);
          cases.push({
            name: answers.length === 1 ? name : `${name}/${answer}`,
            id: body.id,
            recorded: "stream",
            stream: { body: answers.length === 1 ? interaction.body : sseBytes(events), contentType: SSE },
            json: body,
            provider: anthropicProvider,
            cut,
          });
        });
        continue;
      }
      if (info.folder === "openai-chat") {
        if (kind === "json") {
          const json = interaction.json as Json;
          cases.push({
            name,
            id: json.id,
            recorded: "json",
            stream: { body: sseBytes(chatChunks(json)), contentType: SSE },
            json,
            provider: chatProvider(info.path, uri, String(json.model)),
            cut: new Map(),
          });
          continue;
        }
        const chunks = sseEvents(interaction.body)
          .filter((event) => event.data !== "[DONE]")
          .map((event) => JSON.parse(event.data) as Json);
        const json = chatCompletion(chunks);
        cases.push({
          name,
          id: json.id,
          recorded: "stream",
          stream: { body: interaction.body, contentType: SSE },
          json,
          provider: chatProvider(info.path, uri, String(json.model ?? "unknown-model")),
          cut: new Map(),
        });
        continue;
      }
      if (info.folder === "openai-responses") {
        if (kind === "json") {
          const json = interaction.json as Json;
          cases.push({
            name,
            id: json.id,
            recorded: "json",
            stream: { body: responsesSse(responsesEvents(json)), contentType: SSE },
            json,
            provider: responsesProvider(uri, String(json.model)),
            cut: new Map(),
          });
          continue;
        }
        const answers = splitAnswers(sseEvents(interaction.body), "response.created");
        answers.forEach((events, answer) => {
          const wire = events.filter((e) => e.data !== "[DONE]").map((e) => JSON.parse(e.data) as Json);
          const json = responsesResponse(wire);
          cases.push({
            name: answers.length === 1 ? name : `${name}/${answer}`,
            id: json.id,
            recorded: "stream",
            stream: { body: answers.length === 1 ? interaction.body : sseBytes(events), contentType: SSE },
            json,
            provider: responsesProvider(uri, String(json.model)),
            cut: new Map(),
          });
        });
        continue;
      }
      if (info.folder === "bedrock") {
        if (kind === "json") {
          const json = interaction.json as Json;
          cases.push({
            name,
            id: undefined,
            recorded: "json",
            stream: { body: converseBody(converseEvents(json)), contentType: EVENT_STREAM },
            json,
            provider: bedrockProvider("converse", modelOfUri(uri)),
            cut: new Map(),
          });
          continue;
        }
        if (kind === "jsonl") {
          // vercel's decoded ConverseStream events, framed again (the bytes were not kept).
          const decoded = (interaction.events as Json[]).map((event) => {
            const [type, payload] = Object.entries(event)[0]!;
            return { type, payload: payload as Json };
          });
          const { body, cut } = converseResponse(decoded);
          cases.push({
            name,
            id: undefined,
            recorded: "stream",
            stream: { body: converseFrames(interaction.events as Json[]), contentType: EVENT_STREAM },
            json: body,
            provider: bedrockProvider("converse", "amazon.nova-pro-v1:0"),
            cut,
          });
          continue;
        }
        const messages = eventStreamMessages(interaction.body);
        if (uri?.includes("/invoke-with-response-stream")) {
          // Each chunk's base64 `bytes` is one Messages API event.
          const wire = messages.map((message) => {
            const chunk = JSON.parse(decoder.decode(message.payload)) as { bytes: string };
            return JSON.parse(decoder.decode(fromBase64(chunk.bytes))) as Json;
          });
          const { body, cut } = anthropicMessage(wire);
          cases.push({
            name,
            id: body.id,
            recorded: "stream",
            stream: { body: interaction.body, contentType: EVENT_STREAM },
            json: body,
            provider: bedrockProvider("invoke", modelOfUri(uri)),
            cut,
          });
          continue;
        }
        const decoded = messages.map((message) => ({
          type: message.headers[":event-type"]!,
          payload: JSON.parse(decoder.decode(message.payload)) as Json,
        }));
        const { body, cut } = converseResponse(decoded);
        cases.push({
          name,
          id: undefined,
          recorded: "stream",
          stream: { body: interaction.body, contentType: EVENT_STREAM },
          json: body,
          provider: bedrockProvider("converse", modelOfUri(uri)),
          cut,
        });
        continue;
      }
      throw new Error(`${name}: a recording in a folder this test does not know`);
    }
  }
  return { cases, leftOut, files };
}

/**
 * Where one answer was recorded both ways (a stream and a JSON body with the same response id), the
 * recorded JSON replaces the re-serialised one, and the JSON recording is not run on its own.
 */
function pairTwins(cases: Case[]): { cases: Case[]; twins: string[] } {
  const twins: string[] = [];
  const json = cases.filter((c) => c.recorded === "json" && typeof c.id === "string");
  const paired = new Set<Case>();
  for (const stream of cases) {
    if (stream.recorded !== "stream" || typeof stream.id !== "string") continue;
    const twin = json.find((c) => c.id === stream.id && c.name.split("/")[0] === stream.name.split("/")[0]);
    if (!twin) continue;
    stream.json = twin.json;
    paired.add(twin);
    twins.push(`${stream.name} = ${twin.name}`);
  }
  return { cases: cases.filter((c) => !paired.has(c)), twins };
}

const loaded = await loadCases();
const { cases: CASES, twins: TWINS } = pairTwins(loaded.cases);

async function streamed(provider: Provider): Promise<ModelResponse> {
  const events: StreamEvent[] = [];
  for await (const event of provider.stream(HISTORY)) events.push(event);
  const done = events.at(-1);
  if (done?.type !== "done") throw new Error("the stream ended without done");
  expect(events.filter((event) => event.type === "done")).toHaveLength(1);
  return done.response;
}

// ---------------------------------------------------------------------------------------------------

describe("stream() and complete() give one Response for every recorded answer", () => {
  it("covers every fixture file: each recording is a case or left out with its reason", () => {
    const covered = new Set([
      ...CASES.map((c) => c.name.split("#")[0]!),
      ...loaded.leftOut.map((n) => n.split("#")[0]!),
    ]);
    for (const info of listFixtures()) {
      const folderRule = Object.keys(LEFT_OUT).find((key) => key.endsWith("/") && info.path.startsWith(key));
      expect(folderRule !== undefined || covered.has(info.path), info.path).toBe(true);
    }
    // Every listed exclusion matched a recording (a stale entry would hide nothing but mislead).
    expect(new Set(loaded.leftOut)).toEqual(new Set(Object.keys(LEFT_OUT)));
    // No fixture holds both halves of one answer today: every case has a re-serialised half.
    expect(TWINS).toEqual([]);
    const count = (folder: string, recorded: Case["recorded"]) =>
      CASES.filter((c) => c.name.startsWith(`${folder}/`) && c.recorded === recorded).length;
    expect({
      anthropicStreams: count("anthropic", "stream"),
      anthropicJson: count("anthropic", "json"),
      chatStreams: count("openai-chat", "stream"),
      chatJson: count("openai-chat", "json"),
      responsesStreams: count("openai-responses", "stream"),
      responsesJson: count("openai-responses", "json"),
      bedrockStreams: count("bedrock", "stream"),
      bedrockJson: count("bedrock", "json"),
    }).toEqual({
      // 15 raw bodies + 10 chunks.txt files holding 26 messages (programmatic tool calling: 15, bm25: 3).
      anthropicStreams: 41,
      // pydantic-ai keeps non-streaming answers decoded (`parsed_body`).
      anthropicJson: 13,
      chatStreams: 12,
      chatJson: 13,
      // The encrypted-reasoning chunks.txt concatenates 4 responses.
      responsesStreams: 20,
      responsesJson: 12,
      // 6 ConverseStream bodies, 1 InvokeModel (Claude) body, 2 vercel files of decoded Converse events.
      bedrockStreams: 9,
      bedrockJson: 20,
    });
  });

  it("the compaction recording keeps its summary (compaction_delta) on both paths", async () => {
    const compaction = CASES.find((c) => c.name.includes("compaction_usage_with_cache_streaming"))!;
    const block = (compaction.json.content as Json[])[0]!;
    expect(block.type).toBe("compaction");
    expect(block.content).toMatch(/^The user provided a very long context/);
    const response = await streamed(compaction.provider(respond(compaction.stream.body, SSE)));
    expect(response.message.native!.blocks[0]).toStrictEqual(block);
  });

  for (const c of CASES) {
    it(`${c.name} (${c.recorded} recorded)`, async () => {
      const stream = await streamed(c.provider(respond(c.stream.body, c.stream.contentType)));
      const whole = await c.provider(respond(JSON.stringify(c.json), "application/json")).complete(HISTORY);
      // A tool input cut off mid-stream (a max_tokens stop) is `{}` both ways; only the stream has its text.
      for (const call of stream.message.toolCalls) {
        const text = c.cut.get(call.id);
        if (text === undefined) continue;
        expect(call.arguments).toStrictEqual({});
        expect(call.argumentsText).toBe(text);
        delete call.argumentsText;
      }
      expect(stream).toStrictEqual(whole);
    });
  }
});
