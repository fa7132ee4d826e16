/**
 * NDJSON Chat: a fifth protocol, written from outside the package against its public entry points only
 * (`modelwire` and `modelwire/protocols`) — the way an outside author adds Gemini. It is a test fixture:
 * `test/protocols/protocol.test.ts` holds it to the contract beside the built-in protocols, and
 * `test/substrate/outside-protocol.test.ts` and `test/worker/outside-protocol.test.ts` serve it through
 * `createProvider`, `fallback` and the Worker. Its wire (made up, small, and not SSE, so its framing is its
 * own):
 *
 * - request: `{ model, system?, messages: [{ role: "user" | "assistant", parts }], tools?, tool_choice?,
 *   max_tokens?, temperature?, stream? }`, a part being `{ type: "text", text }`, `{ type: "call", id, name,
 *   arguments }` or `{ type: "result", callId, text, isError }`;
 * - answer: `{ object: "answer", model, parts, finish, usage?: { input?, output?, cached? } }` — `input`
 *   counts cached tokens too, `finish` is `end`, `limit`, `calls` or `filtered`;
 * - stream: one JSON object a line — `{ type: "text", delta }`, `{ type: "call", id, name, arguments }`,
 *   `{ type: "end", finish, usage? }` last, or `{ type: "error", code, message }`;
 * - error: an HTTP status with `{ error: { code, message } }`.
 *
 * @module
 */
import {
  type AssistantMessage,
  ProviderError,
  type ProviderErrorKind,
  type Response,
  type StopReason,
  type StreamEvent,
  type Usage,
} from "modelwire";
import {
  assistantBlocksOf,
  type BatchAssembler,
  deliverBatches,
  type ErrorBodyInfo,
  errorKindFromStatus,
  forEachStoredMessage,
  isContextOverflow,
  isPlainObject,
  isRecord,
  type NeutralBlockWriter,
  type Protocol,
  type ProtocolContext,
  type ProtocolRequest,
  type ProtocolWire,
  replayOrRebuild,
  replaysNative,
  resolveToolChoice,
  systemTextOf,
  userBlocksOf,
} from "modelwire/protocols";

/** `native.protocol` and `Provider.protocol`: stored histories carry it, so it never changes. */
export const NDJSON_CHAT = "ndjson-chat";

/** One item of a turn, as the wire carries it (and as `native.blocks` keeps an answer's). */
export type NdjsonPart =
  | { type: "text"; text: string }
  | { type: "call"; id: string; name: string; arguments: Record<string, unknown> }
  | { type: "result"; callId: string; text: string; isError: boolean };

/** The request body. */
export interface NdjsonRequestBody {
  model: string;
  system?: string;
  messages: { role: "user" | "assistant"; parts: NdjsonPart[] }[];
  tools?: { name: string; description?: string; parameters: Record<string, unknown> }[];
  tool_choice?: "auto" | "none" | "required" | { name: string };
  max_tokens?: number;
  temperature?: number;
  stream?: true;
}

/** The wire's usage: `input` includes the cached tokens. */
export interface NdjsonUsage {
  input?: number;
  output?: number;
  cached?: number;
}

/** A whole answer. */
export interface NdjsonAnswer {
  object: "answer";
  model: string;
  parts: NdjsonPart[];
  finish?: string;
  usage?: NdjsonUsage;
}

/** What `buildRequest` takes: the neutral call, the model and the origin it goes to. */
export interface NdjsonRequest extends ProtocolRequest {
  model: string;
  origin: string;
  stream: boolean;
}

/** Where an answer came from. */
export interface NdjsonContext extends ProtocolContext {
  origin: string;
}

/** The wire types {@link ndjsonChatProtocol} is generic over. */
export interface NdjsonWire extends ProtocolWire {
  request: NdjsonRequest;
  body: NdjsonRequestBody;
  response: NdjsonAnswer;
  frame: string;
  context: NdjsonContext;
  usage: NdjsonUsage;
  stopReason: [finish: string | null | undefined];
}

/** This wire carries text only: an image or a file is refused (a ValidationError naming it, before any request). */
function partsWriter(refused: { path: string; message: string }[]): NeutralBlockWriter<NdjsonPart> {
  const refuse = (where: string, what: string) =>
    refused.push({ path: where, message: `${NDJSON_CHAT} takes text only, not ${what}` });
  return {
    text: (text) => ({ type: "text", text }),
    part: (part, where) => {
      refuse(where, `an ${part.type}`);
      return undefined;
    },
    toolCall: (id, name, input) => ({ type: "call", id, name, arguments: input }),
    toolResult: (callId, content, isError, where) => {
      if (typeof content !== "string") {
        content.forEach((part, position) => {
          if (part.type !== "text") refuse(`${where}[${position}]`, `an ${part.type}`);
        });
      }
      const text =
        typeof content === "string"
          ? content
          : content.map((part) => (part.type === "text" ? part.text : "")).join("");
      return { type: "result", callId, text, isError };
    },
  };
}

/** Neutral call → body. Stored history is read with the shared never-throw readers; nothing here throws. */
function buildNdjsonRequest(input: NdjsonRequest): {
  body: NdjsonRequestBody;
  warnings: string[];
  refused: { path: string; message: string }[];
} {
  const warnings: string[] = [];
  const refused: { path: string; message: string }[] = [];
  const PARTS = partsWriter(refused);
  if (input.format) {
    refused.push({ path: "responseFormat", message: `${NDJSON_CHAT} has no structured output` });
  }
  const target = { protocol: NDJSON_CHAT, origin: input.origin, model: input.model };
  const system: string[] = [];
  const messages: NdjsonRequestBody["messages"] = [];
  forEachStoredMessage(input.messages, warnings, (message, role, index) => {
    if (role === "system") {
      system.push(
        systemTextOf(message.content, `messages[${index}].content`, warnings, refused, NDJSON_CHAT),
      );
      return;
    }
    const parts =
      role === "assistant"
        ? replayOrRebuild(message, index, target, warnings, {
            replay: (blocks) => blocks.map(({ block }) => block as NdjsonPart),
            rebuild: () => assistantBlocksOf(message, index, PARTS, warnings),
            isEmpty: (turn) => turn.length === 0,
          })
        : userBlocksOf(message, index, PARTS, warnings);
    if (parts.length === 0) warnings.push(`messages[${index}]: nothing to send; left out`);
    else messages.push({ role: role === "assistant" ? "assistant" : "user", parts });
  });
  const body: NdjsonRequestBody = { model: input.model, messages };
  if (system.length > 0) body.system = system.join("\n\n");
  if (input.tools.length > 0) {
    body.tools = input.tools.map((tool) => ({
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      parameters: tool.parameters,
    }));
  }
  const choice = resolveToolChoice(input.tools, input.options.toolChoice, warnings);
  if (choice !== undefined) body.tool_choice = choice === "any" ? "required" : choice;
  const { maxTokens, temperature, thinking } = input.options;
  if (maxTokens !== undefined) body.max_tokens = maxTokens;
  if (temperature !== undefined) body.temperature = temperature;
  if (thinking !== undefined && thinking !== "off")
    warnings.push("thinking: not supported by ndjson-chat; left out");
  if (input.stream) body.stream = true;
  return { body, warnings, refused };
}

/** The neutral message of an answer's parts: its text, its calls, and the parts verbatim as `native`. */
function messageOf(parts: readonly NdjsonPart[], context: NdjsonContext): AssistantMessage {
  const toolCalls = parts.flatMap((part) =>
    part.type === "call"
      ? [{ id: part.id, name: part.name, arguments: isPlainObject(part.arguments) ? part.arguments : {} }]
      : [],
  );
  return {
    role: "assistant",
    content: parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join(""),
    toolCalls,
    toolResults: [],
    synthetic: false,
    native: { protocol: NDJSON_CHAT, origin: context.origin, model: context.model, blocks: [...parts] },
  };
}

function responseOf(
  parts: readonly NdjsonPart[],
  finish: string | null | undefined,
  usage: NdjsonUsage | undefined,
  context: NdjsonContext,
): Response {
  const response: Response = {
    message: messageOf(parts, context),
    usage: mapNdjsonUsage(usage),
    stopReason: mapNdjsonStopReason(finish),
    model: context.model,
    provider: context.provider,
  };
  if (typeof finish === "string") response.rawStopReason = finish;
  if (context.warnings?.length) response.warnings = [...context.warnings];
  return response;
}

/** `input` includes cached tokens: uncached input is the difference. Not reported stays `undefined`. */
function mapNdjsonUsage(usage: NdjsonUsage | null | undefined): Usage {
  const result: Usage = {};
  const count = (value: unknown) => (typeof value === "number" && value >= 0 ? value : undefined);
  const input = count(usage?.input);
  const cached = count(usage?.cached);
  const output = count(usage?.output);
  if (input !== undefined) result.inputTokens = Math.max(0, input - (cached ?? 0));
  if (cached !== undefined) result.cachedInputTokens = cached;
  if (output !== undefined) result.outputTokens = output;
  return result;
}

function mapNdjsonStopReason(finish: string | null | undefined): StopReason {
  switch (finish) {
    case undefined:
    case null:
    case "end":
      return "stop";
    case "limit":
      return "length";
    case "calls":
      return "tool-calls";
    case "filtered":
      return "content-filter";
    default:
      return "other";
  }
}

const CODES: Readonly<Record<string, ProviderErrorKind>> = {
  busy: "overloaded",
  quota: "rate_limit",
  context_too_long: "context_length",
  bad_key: "auth",
};

/** An error body (any shape) → kind and message: the wire's `code` where it knows it, the status otherwise. */
function mapNdjsonError(status: number | undefined, body: unknown): ErrorBodyInfo {
  const error = isRecord(body) && isRecord(body.error) ? body.error : {};
  const code = typeof error.code === "string" ? error.code : undefined;
  const message = typeof error.message === "string" ? error.message : `HTTP ${status ?? "stream error"}`;
  let kind =
    (code !== undefined && Object.hasOwn(CODES, code) ? CODES[code] : undefined) ??
    (status === undefined ? "server" : errorKindFromStatus(status));
  if (kind === "bad_request" && isContextOverflow(message)) kind = "context_length";
  return { kind, message, code, retryable: code === "quota" ? false : undefined };
}

/** The body's lines, one batch per network read; a last line without its newline is yielded as it is. */
async function* readNdjsonLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string[]> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let rest = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const lines = (rest + decoder.decode(value, { stream: true })).split("\n");
      rest = lines.pop() ?? "";
      const batch = lines.filter((line) => line.trim() !== "");
      if (batch.length > 0) yield batch;
    }
    rest += decoder.decode();
    if (rest.trim() !== "") yield [rest];
  } finally {
    // On an early exit too: cancelling the reader cancels the upstream body.
    await reader.cancel().catch(() => {});
  }
}

/** The stream's state: the parts so far (text deltas merged into one part), and how it ended. */
class NdjsonStreamAssembler implements BatchAssembler {
  readonly parts: NdjsonPart[] = [];
  ended = false;
  finishReason: string | undefined;
  usage: NdjsonUsage | undefined;
  /** What the `truncated` error of `deliverBatches` says a cut stream never got. */
  readonly terminal = "its end line";
  readonly context: NdjsonContext;

  constructor(context: NdjsonContext) {
    this.context = context;
  }

  get stopped(): boolean {
    return this.ended;
  }

  apply(line: string, out: StreamEvent[]): void {
    const event = this.parse(line);
    if (event.type === "text" && typeof event.delta === "string" && event.delta !== "") {
      const last = this.parts.at(-1);
      if (last?.type === "text") last.text += event.delta;
      else this.parts.push({ type: "text", text: event.delta });
      out.push({ type: "text-delta", text: event.delta });
    } else if (event.type === "call" && typeof event.id === "string" && typeof event.name === "string") {
      const args = isPlainObject(event.arguments) ? event.arguments : {};
      const index = this.parts.filter((part) => part.type === "call").length;
      this.parts.push({ type: "call", id: event.id, name: event.name, arguments: args });
      out.push({ type: "tool-call-start", index, id: event.id, name: event.name });
      out.push({ type: "tool-call-delta", index, id: event.id, argumentsDelta: JSON.stringify(args) });
      out.push({
        type: "tool-call-end",
        index,
        toolCall: { id: event.id, name: event.name, arguments: args },
      });
    } else if (event.type === "end") {
      this.ended = true;
      this.finishReason = typeof event.finish === "string" ? event.finish : undefined;
      this.usage = isRecord(event.usage) ? (event.usage as NdjsonUsage) : undefined;
      if (this.usage) out.push({ type: "usage", usage: mapNdjsonUsage(this.usage) });
    } else if (event.type === "error") {
      const info = mapNdjsonError(undefined, { error: event });
      throw this.failure(info.kind, info.message, info.code);
    }
    // Any other line type is skipped: a newer server may send more.
  }

  finish(): Response {
    return responseOf(this.parts, this.finishReason, this.usage, this.context);
  }

  private parse(line: string): Record<string, unknown> {
    try {
      const value: unknown = JSON.parse(line);
      if (isRecord(value)) return value;
    } catch {
      // Not JSON: reported below.
    }
    throw this.failure("invalid_response", "ndjson-chat: a stream line is not a JSON object");
  }

  private failure(kind: ProviderErrorKind, message: string, code?: string): ProviderError {
    return new ProviderError({
      kind,
      message,
      code,
      provider: this.context.provider,
      model: this.context.model,
      // partialOutput: set by deliverBatches, which knows whether content went out before the failure.
    });
  }
}

/** The NDJSON Chat protocol object: every member the contract names, pure but for the two stream ones. */
export const ndjsonChatProtocol: Protocol<NdjsonWire> = {
  name: NDJSON_CHAT,
  buildRequest: buildNdjsonRequest,
  isResponse: (json): json is NdjsonAnswer =>
    (json as NdjsonAnswer).object === "answer" && Array.isArray((json as NdjsonAnswer).parts),
  errorInResponse: (json) => ("error" in json ? mapNdjsonError(200, json) : undefined),
  parseResponse: (json, context) =>
    responseOf(
      json.parts.filter((part): part is NdjsonPart => isRecord(part)),
      json.finish,
      json.usage,
      context,
    ),
  readFrames: readNdjsonLines,
  assembleStream: (frames, context) => {
    const assembler = new NdjsonStreamAssembler(context);
    return deliverBatches(frames, assembler, (line, out) => assembler.apply(line, out));
  },
  mapError: (status, body) => mapNdjsonError(status, body),
  mapUsage: mapNdjsonUsage,
  mapStopReason: mapNdjsonStopReason,
  replaysNative: (native, target) => replaysNative(NDJSON_CHAT, native, target),
};
