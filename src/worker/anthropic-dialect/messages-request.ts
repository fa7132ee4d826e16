/**
 * An Anthropic Messages request (`POST /v1/messages`) as a neutral call, for routes that do not speak the
 * Messages protocol themselves (OpenAI Chat, Responses, Converse, the demo route, a registered protocol).
 * Routes on the Anthropic protocol never come here: their member takes the client's body as it is.
 *
 * Every request field the Messages API defines is in {@link MESSAGES_REQUEST_FIELDS}: mapped to the
 * neutral call, ignored on purpose (with a warning when the client asked for something that is then not
 * done, such as `cache_control` marks), or refused with a 400 naming it when it would change the answer and
 * the route cannot honour it. A field the table does not know is refused, as the API refuses one.
 *
 * Inside messages: text, image, document and tool_result blocks in user turns; text and tool_use blocks in
 * assistant turns. A thinking block whose signature is a reasoning envelope (`reasoning-envelope.ts`) gives
 * the turn its route's native blocks back; other thinking and redacted_thinking blocks (and server tool
 * blocks) cannot mean anything on another protocol and are left out with a warning — unless the turn
 * carries an envelope, which holds the whole turn's reasoning already.
 *
 * @module
 */
import * as z from "zod/mini";
import { bytesToBase64 } from "../../core/base64.ts";
import {
  type CallOptions,
  MaxTokensSchema,
  type ResponseFormat,
  SessionIdSchema,
  StopSequencesSchema,
  type Thinking,
  type ToolChoice,
} from "../../core/call-options.ts";
import type { ContentPart } from "../../core/content.ts";
import type { MessageInput, ToolCallInput, ToolResultInput } from "../../core/message.ts";
import { prepareResponseFormat } from "../../core/structured-output.ts";
import type { ToolSpecInput } from "../../core/tool-spec.ts";
import { ValidationError, type ValidationIssue, validate } from "../../core/validation-error.ts";
import { checkedPart, type FieldRefusals, refusalIssues, refusedFieldSchemas } from "../dialect-fields.ts";
import { isEnvelope, nativeFromEnvelopes } from "../reasoning-envelope.ts";

/** How the dialect treats one Messages request field on a converted route. */
export type MessagesFieldHandling = "mapped" | "ignored" | "refused";

/**
 * Every Messages request field and what a converted route does with it. `ignored` fields cannot change
 * the answer's content (billing, routing and diagnostics hints of Anthropic's own service), or ask for an
 * Anthropic-side feature whose absence only costs tokens (`cache_control`, `context_management`: a warning
 * says so); `refused` ones would change the answer and are a 400 naming the field unless they hold their
 * default (null, an empty list).
 */
export const MESSAGES_REQUEST_FIELDS = {
  model: { handling: "mapped", note: "the route (or one of its aliases)" },
  messages: { handling: "mapped", note: "text, image, document, tool_use, tool_result; thinking envelopes" },
  max_tokens: { handling: "mapped", note: "maxTokens (required, as the API requires it)" },
  system: { handling: "mapped", note: "a string, or text blocks joined with a blank line" },
  metadata: { handling: "mapped", note: "user_id → metadata.user_id, and the session for affinity" },
  stop_sequences: { handling: "mapped", note: "stopSequences" },
  stream: { handling: "mapped", note: "SSE of the Messages event grammar" },
  temperature: { handling: "mapped", note: "temperature (0 to 1, as the API takes it)" },
  top_p: { handling: "mapped", note: "topP" },
  tools: { handling: "mapped", note: "custom tools (server tools are refused)" },
  tool_choice: { handling: "mapped", note: "auto, any, tool (by name), none; disable_parallel_tool_use" },
  thinking: { handling: "mapped", note: "enabled → budgetTokens, adaptive, disabled → off; display ignored" },
  output_config: { handling: "mapped", note: "effort → thinking effort, format → responseFormat" },
  output_format: { handling: "mapped", note: "the beta spelling of output_config.format" },
  cache_control: {
    handling: "ignored",
    note: "Anthropic's prompt cache: a warning (the route caches its way)",
  },
  context_management: { handling: "ignored", note: "Anthropic's server-side context editing: a warning" },
  service_tier: { handling: "ignored", note: "Anthropic's capacity tier" },
  inference_geo: { handling: "ignored", note: "Anthropic's inference region" },
  speed: { handling: "ignored", note: "Anthropic's fast mode" },
  diagnostics: { handling: "ignored", note: "Anthropic's request diagnostics" },
  user_profile_id: { handling: "ignored", note: "Anthropic's user profile (normally a header)" },
  workspace_id: { handling: "ignored", note: "Anthropic's workspace (normally a header)" },
  top_k: { handling: "refused", note: "no neutral form: a non-null top_k is refused" },
  container: { handling: "refused", note: "Anthropic's code-execution container" },
  mcp_servers: { handling: "refused", note: "Anthropic's MCP connector: a non-empty list is refused" },
  compaction: { handling: "refused", note: "Anthropic's server-side compaction" },
} as const satisfies Readonly<Record<string, { handling: MessagesFieldHandling; note: string }>>;

/** Why a refused field's value is refused, or undefined when it holds its default. */
const REFUSALS: FieldRefusals = {
  top_k: () => "top_k is not supported on this route",
  container: () => "code-execution containers are not supported on this route",
  mcp_servers: (value) =>
    Array.isArray(value) && value.length === 0
      ? undefined
      : "the MCP connector is not supported on this route",
  compaction: () => "server-side compaction is not supported on this route",
};

const BlockSchema = z.looseObject({ type: z.string() });
type Block = z.output<typeof BlockSchema>;

const MessageParamSchema = z.looseObject({
  role: z.enum(["user", "assistant"]),
  content: z.union([z.string(), z.array(BlockSchema)]),
});
type MessageParam = z.output<typeof MessageParamSchema>;

const ignoredField = () => z.optional(z.unknown());
const refusedFields = refusedFieldSchemas(REFUSALS);

const JsonFormatSchema = z.strictObject({
  type: z.literal("json_schema"),
  schema: z.record(z.string(), z.unknown()),
});

/** A Messages request: every field of {@link MESSAGES_REQUEST_FIELDS}, and no other. */
export const MessagesRequestSchema = z.strictObject({
  model: z.string().check(z.minLength(1)),
  messages: z.array(MessageParamSchema).check(z.minLength(1)),
  max_tokens: MaxTokensSchema,
  system: z.optional(z.union([z.string(), z.array(BlockSchema)])),
  metadata: z.optional(
    z.nullable(z.looseObject({ user_id: z.optional(z.nullable(z.string().check(z.maxLength(256)))) })),
  ),
  stop_sequences: z.optional(StopSequencesSchema),
  stream: z.optional(z.boolean()),
  temperature: z.optional(z.number().check(z.minimum(0), z.maximum(1))),
  top_p: z.optional(z.number().check(z.minimum(0), z.maximum(1))),
  tools: z.optional(z.array(z.looseObject({ type: z.optional(z.string()) }))),
  tool_choice: z.optional(
    z.strictObject({
      type: z.enum(["auto", "any", "tool", "none"]),
      name: z.optional(z.string()),
      disable_parallel_tool_use: z.optional(z.boolean()),
    }),
  ),
  thinking: z.optional(
    z.union([
      z.strictObject({
        type: z.literal("enabled"),
        budget_tokens: z.number().check(z.int(), z.minimum(1)),
        display: z.optional(z.nullable(z.string())),
      }),
      z.strictObject({ type: z.literal("adaptive"), display: z.optional(z.nullable(z.string())) }),
      z.strictObject({ type: z.literal("disabled") }),
    ]),
  ),
  output_config: z.optional(
    z.strictObject({
      effort: z.optional(z.nullable(z.enum(["low", "medium", "high", "xhigh", "max"]))),
      format: z.optional(z.nullable(JsonFormatSchema)),
    }),
  ),
  output_format: z.optional(z.nullable(JsonFormatSchema)),
  cache_control: ignoredField(),
  context_management: ignoredField(),
  service_tier: ignoredField(),
  inference_geo: ignoredField(),
  speed: ignoredField(),
  diagnostics: ignoredField(),
  user_profile_id: ignoredField(),
  workspace_id: ignoredField(),
  ...refusedFields,
});
export type MessagesRequest = z.output<typeof MessagesRequestSchema>;

/** A validated Messages request as a neutral call. */
export interface NeutralMessagesCall {
  messages: MessageInput[];
  tools: ToolSpecInput[];
  options: CallOptions;
  /** What the conversion left out or could not carry, one line each (the `x-modelwire-warnings`). */
  warnings: string[];
}

/**
 * The parts of a Messages body every route reads, native or converted: the route, whether to stream, and
 * the session for affinity (`metadata.user_id`, when it is a valid session id). A 400 naming `model` or
 * `stream` when they are not what the API takes.
 */
export function messagesHeadOf(body: unknown): {
  body: Record<string, unknown>;
  model: string;
  stream: boolean;
  userId: string | undefined;
} {
  const head = validate(
    z.looseObject({
      model: z.string().check(z.minLength(1)),
      stream: z.optional(z.nullable(z.boolean())),
      metadata: z.optional(z.nullable(z.looseObject({ user_id: z.optional(z.nullable(z.unknown())) }))),
    }),
    body,
  );
  const userId = head.metadata?.user_id;
  const session = z.safeParse(SessionIdSchema, userId);
  return {
    // The body as the client wrote it (a parse would reorder its keys): native members send it on.
    body: body as Record<string, unknown>,
    model: head.model,
    stream: head.stream === true,
    userId: session.success ? session.data : undefined,
  };
}

/**
 * Validates a Messages body and turns it into a neutral call for `route` (the canonical route name, which
 * reasoning envelopes must name to be replayed). Throws one `ValidationError` naming every bad or refused
 * field (`top_k`, `messages[1].content[0].source.type`, `tools[2].type`).
 */
export function messagesRequestToNeutral(body: unknown, route: string): NeutralMessagesCall {
  const request = validate(MessagesRequestSchema, body);
  const issues = refusalIssues(request, REFUSALS);
  const warnings: string[] = [];
  const cache = new CacheMarks();
  if (request.cache_control !== undefined && request.cache_control !== null) cache.mark("cache_control");
  if (request.context_management !== undefined && request.context_management !== null) {
    warnings.push("context_management: Anthropic's context editing is not done on this route; ignored");
  }

  const messages: MessageInput[] = [];
  const system = systemOf(request.system, issues, cache);
  if (system !== "") messages.push({ role: "system", content: system });
  request.messages.forEach((message, index) => {
    const where = `messages[${index}]`;
    messages.push(
      message.role === "user"
        ? userMessageOf(message, where, issues, cache)
        : assistantMessageOf(message, where, route, issues, warnings, cache),
    );
  });

  const tools = toolsOf(request.tools, issues, cache);
  const options = optionsOf(request, issues);
  cache.warn(warnings);
  if (issues.length > 0) throw new ValidationError(issues);
  return { messages, tools, options, warnings };
}

/** Where `cache_control` marks were seen: one warning names them all. */
class CacheMarks {
  readonly #where: string[] = [];
  mark(where: string): void {
    this.#where.push(where);
  }
  /** Marks a block's `cache_control` when it has one. */
  check(block: Record<string, unknown>, where: string): void {
    if (block.cache_control !== undefined && block.cache_control !== null)
      this.mark(`${where}.cache_control`);
  }
  warn(warnings: string[]): void {
    if (this.#where.length === 0) return;
    const shown = this.#where.slice(0, 3).join(", ");
    const more = this.#where.length > 3 ? ` and ${this.#where.length - 3} more` : "";
    warnings.push(
      `cache_control (${shown}${more}): prompt-cache marks are not carried on this route; it caches by its own rules`,
    );
  }
}

function systemOf(system: MessagesRequest["system"], issues: ValidationIssue[], cache: CacheMarks): string {
  if (system === undefined) return "";
  if (typeof system === "string") return system;
  const texts: string[] = [];
  system.forEach((block, index) => {
    const where = `system[${index}]`;
    if (block.type !== "text" || typeof block.text !== "string") {
      issues.push({
        path: block.type === "text" ? `${where}.text` : `${where}.type`,
        message: block.type === "text" ? "expected string" : 'the system prompt takes "text" blocks only',
      });
      return;
    }
    cache.check(block, where);
    texts.push(block.text);
  });
  return texts.join("\n\n");
}

function userMessageOf(
  message: MessageParam,
  where: string,
  issues: ValidationIssue[],
  cache: CacheMarks,
): MessageInput {
  if (typeof message.content === "string") return { role: "user", content: message.content };
  const parts: ContentPart[] = [];
  const results: ToolResultInput[] = [];
  message.content.forEach((block, index) => {
    const at = `${where}.content[${index}]`;
    cache.check(block, at);
    if (block.type === "tool_result") {
      const result = toolResultOf(block, at, issues, cache);
      if (result) results.push(result);
      return;
    }
    const part = partOf(block, at, issues);
    if (part) parts.push(part);
  });
  const user: MessageInput = { role: "user", content: parts };
  if (results.length > 0) user.toolResults = results;
  return user;
}

function toolResultOf(
  block: Block,
  where: string,
  issues: ValidationIssue[],
  cache: CacheMarks,
): ToolResultInput | undefined {
  if (typeof block.tool_use_id !== "string" || block.tool_use_id === "") {
    issues.push({ path: `${where}.tool_use_id`, message: "expected a non-empty string" });
    return undefined;
  }
  if (block.is_error !== undefined && block.is_error !== null && typeof block.is_error !== "boolean") {
    issues.push({ path: `${where}.is_error`, message: "expected boolean" });
  }
  const result: ToolResultInput = { callId: block.tool_use_id, isError: block.is_error === true };
  const content = block.content;
  if (typeof content === "string") result.content = content;
  else if (Array.isArray(content)) {
    const parts: ContentPart[] = [];
    content.forEach((inner, index) => {
      const at = `${where}.content[${index}]`;
      if (typeof inner !== "object" || inner === null || typeof (inner as Block).type !== "string") {
        issues.push({ path: `${at}.type`, message: "expected a content block" });
        return;
      }
      cache.check(inner as Block, at);
      const part = partOf(inner as Block, at, issues);
      if (part) parts.push(part);
    });
    result.content = parts;
  } else if (content !== undefined && content !== null) {
    issues.push({ path: `${where}.content`, message: "expected a string or content blocks" });
  }
  return result;
}

/** A user (or tool result) block as a neutral part: text, image, document. */
function partOf(block: Block, where: string, issues: ValidationIssue[]): ContentPart | undefined {
  switch (block.type) {
    case "text":
      if (typeof block.text !== "string") {
        issues.push({ path: `${where}.text`, message: "expected string" });
        return undefined;
      }
      return { type: "text", text: block.text };
    case "image":
    case "document":
      return sourcePartOf(block, where, issues);
    case "thinking":
    case "redacted_thinking":
    case "tool_use":
      issues.push({ path: `${where}.type`, message: `a ${block.type} block belongs in an assistant turn` });
      return undefined;
    default:
      issues.push({
        path: `${where}.type`,
        message: `${JSON.stringify(block.type)} blocks are not supported on this route (text, image, document and tool_result are)`,
      });
      return undefined;
  }
}

const encoder = new TextEncoder();

/** An image or document block's `source` as a neutral part, checked by the neutral schema. */
function sourcePartOf(block: Block, where: string, issues: ValidationIssue[]): ContentPart | undefined {
  const source = block.source as Record<string, unknown> | undefined;
  if (typeof source !== "object" || source === null || typeof source.type !== "string") {
    issues.push({ path: `${where}.source`, message: "expected a source object with a type" });
    return undefined;
  }
  const image = block.type === "image";
  const title = !image && typeof block.title === "string" && block.title !== "" ? block.title : undefined;
  const named = (part: ContentPart): ContentPart =>
    part.type === "file" && title !== undefined ? { ...part, filename: title } : part;
  switch (source.type) {
    case "base64": {
      if (typeof source.media_type !== "string" || typeof source.data !== "string") {
        issues.push({ path: `${where}.source`, message: "expected media_type and data strings" });
        return undefined;
      }
      const part: ContentPart = image
        ? { type: "image", mediaType: source.media_type, data: source.data }
        : { type: "file", mediaType: source.media_type, data: source.data };
      return checkedPart(named(part), `${where}.source`, issues);
    }
    case "url": {
      if (typeof source.url !== "string") {
        issues.push({ path: `${where}.source.url`, message: "expected string" });
        return undefined;
      }
      const part: ContentPart = image
        ? { type: "image", url: source.url }
        : { type: "file", url: source.url };
      return checkedPart(named(part), `${where}.source.url`, issues);
    }
    case "text": {
      if (image || typeof source.data !== "string") {
        issues.push({
          path: image ? `${where}.source.type` : `${where}.source.data`,
          message: image ? 'an image source is "base64" or "url"' : "expected string",
        });
        return undefined;
      }
      const data = bytesToBase64(encoder.encode(source.data));
      return checkedPart(named({ type: "file", mediaType: "text/plain", data }), `${where}.source`, issues);
    }
    case "file":
      issues.push({
        path: `${where}.source.file_id`,
        message: "the gateway has no file store: send the content inline (base64) or by url",
      });
      return undefined;
    default:
      issues.push({
        path: `${where}.source.type`,
        message: `${JSON.stringify(source.type)} sources are not supported on this route (base64, url${image ? "" : ", text"} are)`,
      });
      return undefined;
  }
}

/** Server tool blocks: Anthropic ran them; another route has nothing to replay them as. */
const SERVER_BLOCK = /^(server_tool_use|.*_tool_result|container_upload|mcp_tool_use|mcp_tool_result)$/;

function assistantMessageOf(
  message: MessageParam,
  where: string,
  route: string,
  issues: ValidationIssue[],
  warnings: string[],
  cache: CacheMarks,
): MessageInput {
  if (typeof message.content === "string") return { role: "assistant", content: message.content };
  let text = "";
  const toolCalls: ToolCallInput[] = [];
  const envelopes: unknown[] = [];
  const dropped: string[] = [];
  message.content.forEach((block, index) => {
    const at = `${where}.content[${index}]`;
    cache.check(block, at);
    switch (block.type) {
      case "text":
        if (typeof block.text !== "string") issues.push({ path: `${at}.text`, message: "expected string" });
        else text += block.text;
        return;
      case "tool_use": {
        if (typeof block.id !== "string" || block.id === "" || typeof block.name !== "string") {
          issues.push({ path: `${at}`, message: "a tool_use block needs an id and a name (strings)" });
          return;
        }
        const input = block.input;
        if (input !== undefined && (typeof input !== "object" || input === null || Array.isArray(input))) {
          issues.push({ path: `${at}.input`, message: "expected an object" });
          return;
        }
        toolCalls.push({
          id: block.id,
          name: block.name,
          arguments: (input ?? {}) as Record<string, unknown>,
        });
        return;
      }
      case "thinking":
        if (isEnvelope(block.signature)) envelopes.push(block.signature);
        else dropped.push(at);
        return;
      case "redacted_thinking":
        dropped.push(at);
        return;
      default:
        if (SERVER_BLOCK.test(block.type)) {
          dropped.push(at);
          return;
        }
        issues.push({
          path: `${at}.type`,
          message: `${JSON.stringify(block.type)} blocks are not supported in an assistant turn on this route`,
        });
    }
  });
  const native = nativeFromEnvelopes(envelopes, route, where, warnings);
  // A turn with a readable envelope has its reasoning in it: the other blocks are its display copy.
  if (dropped.length > 0 && native === undefined) {
    warnings.push(
      `${dropped.join(", ")}: Anthropic thinking, redacted_thinking and server tool blocks mean nothing to this route; left out`,
    );
  }
  const assistant: MessageInput = { role: "assistant", content: text, toolCalls };
  if (native !== undefined) assistant.native = native;
  return assistant;
}

function toolsOf(
  tools: MessagesRequest["tools"],
  issues: ValidationIssue[],
  cache: CacheMarks,
): ToolSpecInput[] {
  const specs: ToolSpecInput[] = [];
  (tools ?? []).forEach((tool, index) => {
    const where = `tools[${index}]`;
    if (tool.type !== undefined && tool.type !== "custom") {
      issues.push({
        path: `${where}.type`,
        message: `Anthropic server tools (${JSON.stringify(tool.type)}) are not supported on this route: define a custom tool`,
      });
      return;
    }
    const record = tool as Record<string, unknown>;
    cache.check(record, where);
    if (typeof record.name !== "string" || record.name === "") {
      issues.push({ path: `${where}.name`, message: "expected a non-empty string" });
      return;
    }
    const schema = record.input_schema;
    if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
      issues.push({ path: `${where}.input_schema`, message: "expected a JSON Schema object" });
      return;
    }
    const spec: ToolSpecInput = { name: record.name, parameters: schema as Record<string, unknown> };
    if (typeof record.description === "string") spec.description = record.description;
    if (typeof record.strict === "boolean") spec.strict = record.strict;
    specs.push(spec);
  });
  return specs;
}

function optionsOf(request: MessagesRequest, issues: ValidationIssue[]): CallOptions {
  const options: CallOptions = { maxTokens: request.max_tokens };
  if (request.temperature !== undefined) options.temperature = request.temperature;
  if (request.top_p !== undefined) options.topP = request.top_p;
  if (request.stop_sequences && request.stop_sequences.length > 0)
    options.stopSequences = request.stop_sequences;
  const userId = request.metadata?.user_id;
  if (userId) options.metadata = { user_id: userId };
  const thinking = thinkingOf(request);
  if (thinking !== undefined) options.thinking = thinking;
  const choice = request.tool_choice;
  if (choice) {
    options.toolChoice = toolChoiceOf(choice, issues);
    if (choice.disable_parallel_tool_use === true) options.parallelToolCalls = false;
  }
  const format = request.output_config?.format ?? request.output_format;
  if (format) {
    const neutral: ResponseFormat = {
      type: "json_schema",
      schema: format.schema,
      name: "output",
      strict: true,
    };
    try {
      prepareResponseFormat(neutral);
      options.responseFormat = neutral;
    } catch (error) {
      if (!ValidationError.is(error)) throw error;
      const at = request.output_config?.format ? "output_config.format" : "output_format";
      for (const issue of error.issues) {
        issues.push({ path: issue.path.replace(/^responseFormat/, at), message: issue.message });
      }
    }
  }
  return options;
}

/** `thinking` and `output_config.effort` as one neutral `Thinking` (an effort wins over adaptive). */
function thinkingOf(request: MessagesRequest): Thinking | undefined {
  const effort = request.output_config?.effort;
  const thinking = request.thinking;
  if (thinking?.type === "disabled") return "off";
  if (thinking?.type === "enabled") return { budgetTokens: thinking.budget_tokens };
  if (effort) return { effort: effort === "xhigh" ? "max" : effort };
  if (thinking?.type === "adaptive") return "adaptive";
  return undefined;
}

function toolChoiceOf(
  choice: NonNullable<MessagesRequest["tool_choice"]>,
  issues: ValidationIssue[],
): ToolChoice {
  if (choice.type !== "tool") return choice.type;
  if (!choice.name) {
    issues.push({ path: "tool_choice.name", message: 'required for {"type":"tool"}' });
    return "auto";
  }
  return { name: choice.name };
}
