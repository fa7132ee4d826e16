/**
 * A Responses API request (`POST /v1/responses`) read for a route that does not speak the Responses
 * protocol itself: validated, and turned into a neutral call (messages, tools, options).
 *
 * Every request field the Responses API defines is in {@link RESPONSES_REQUEST_FIELDS}: mapped to the
 * neutral call, accepted and ignored because it cannot change the answer (or only echoed back), or refused
 * (a 400 naming it) when it would change the answer and no converted route can honour it. A field the
 * table does not know is refused, as OpenAI refuses one.
 *
 * The gateway stores nothing: `store` absent or `false` is the stateless mode it serves (the whole history
 * is sent each turn); `store: true`, `previous_response_id`, `conversation` and `item_reference` input items
 * would need a stored response and are refused, saying so.
 *
 * Reasoning carried across the dialect change: a `reasoning` input item whose `encrypted_content` is a
 * gateway envelope (`reasoning-envelope.ts`) gives its assistant turn the route's `native` back, for the
 * route's protocol to replay under its own provenance rule; a reasoning item without one (real OpenAI
 * encrypted reasoning, a summary only) cannot reach a route of another protocol and is left out with a
 * warning.
 *
 * @module
 */
import * as z from "zod/mini";
import {
  type CallOptions,
  MaxTokensSchema,
  type ResponseFormat,
  type ToolChoice,
} from "../../core/call-options.ts";
import type { MessageInput } from "../../core/message.ts";
import { prepareResponseFormat } from "../../core/structured-output.ts";
import type { ToolSpecInput } from "../../core/tool-spec.ts";
import { ValidationError, type ValidationIssue, validate } from "../../core/validation-error.ts";
import {
  type FieldRefusals,
  refusalIssues,
  refusedFieldSchemas,
  thinkingOfEffort,
} from "../dialect-fields.ts";
import { inputMessages, NO_STORE } from "./input.ts";

/** How the dialect treats one Responses request field. */
export type ResponsesFieldHandling = "mapped" | "ignored" | "refused";

/**
 * Every Responses request field and what a converted route does with it. (A route whose member speaks
 * the Responses protocol gets the body as it was sent: only `previous_response_id` is refused there.)
 */
export const RESPONSES_REQUEST_FIELDS = {
  model: { handling: "mapped", note: "the route (or one of its aliases)" },
  input: {
    handling: "mapped",
    note: "a string, or items: message (user, assistant, system, developer), function_call, function_call_output, custom_tool_call, custom_tool_call_output, reasoning",
  },
  instructions: { handling: "mapped", note: "a system message before the input" },
  tools: {
    handling: "mapped",
    note: "function tools; custom (freeform) tools as a function of one string argument, input; hosted tools are refused",
  },
  tool_choice: { handling: "mapped", note: "auto, none, required (any), a named function or custom tool" },
  parallel_tool_calls: { handling: "mapped", note: "parallelToolCalls" },
  stream: { handling: "mapped", note: "SSE of Responses events" },
  stream_options: { handling: "ignored", note: "include_obfuscation: the gateway sends no obfuscation" },
  max_output_tokens: { handling: "mapped", note: "maxTokens" },
  temperature: { handling: "mapped", note: "temperature" },
  top_p: { handling: "mapped", note: "topP" },
  reasoning: {
    handling: "mapped",
    note: "effort → thinking (none → off, xhigh → max); summary is ignored: the summary is the route's reasoning text",
  },
  text: {
    handling: "mapped",
    note: "format → responseFormat (json_schema, json_object, text); verbosity is ignored with a warning",
  },
  include: {
    handling: "mapped",
    note: "reasoning.encrypted_content carries the route's reasoning; logprobs are refused; the others concern hosted tools",
  },
  store: { handling: "mapped", note: "absent or false: stateless; true is refused (nothing is stored)" },
  user: { handling: "mapped", note: "metadata.user_id" },
  safety_identifier: { handling: "mapped", note: "metadata.user_id (when user is absent)" },
  prompt_cache_key: {
    handling: "mapped",
    note: "the session for affinity, when it is a valid session id and no x-session-id header is sent",
  },
  metadata: { handling: "ignored", note: "echoed back on the response, not sent upstream" },
  client_metadata: { handling: "ignored", note: "Codex's client details" },
  service_tier: { handling: "ignored", note: "OpenAI's latency and price tier" },
  prompt_cache_retention: { handling: "ignored", note: "OpenAI's cache lifetime" },
  prompt_cache_options: { handling: "ignored", note: "OpenAI's cache settings" },
  truncation: {
    handling: "ignored",
    note: 'the gateway never truncates: "auto" is accepted with a warning, a context overflow is an error',
  },
  previous_response_id: { handling: "refused", note: "the gateway stores no responses" },
  conversation: { handling: "refused", note: "the gateway stores no conversations" },
  background: { handling: "refused", note: "background responses need storage: true is refused" },
  max_tool_calls: { handling: "refused", note: "no neutral form" },
  top_logprobs: { handling: "refused", note: "no route returns log probabilities (0 is accepted)" },
  prompt: { handling: "refused", note: "stored prompt templates live on OpenAI's side" },
} as const satisfies Readonly<Record<string, { handling: ResponsesFieldHandling; note: string }>>;

/** Why a refused field's value is refused, or undefined when it holds its default. */
const REFUSALS: FieldRefusals = {
  previous_response_id: () => `${NO_STORE}, not previous_response_id`,
  conversation: () => "the gateway stores no conversations: send the whole input each turn",
  background: (value) => (value === false ? undefined : "background responses are not supported"),
  max_tool_calls: () => "max_tool_calls is not supported by the gateway",
  top_logprobs: (value) => (value === 0 ? undefined : "log probabilities are not supported"),
  prompt: () => "stored prompt templates are not supported: send instructions and input",
};

const ItemSchema = z.looseObject({ type: z.optional(z.string()) });

const JsonSchemaFormat = z.strictObject({
  type: z.literal("json_schema"),
  name: z.string(),
  schema: z.optional(z.record(z.string(), z.unknown())),
  strict: z.optional(z.nullable(z.boolean())),
  description: z.optional(z.string()),
});

const refusedFields = refusedFieldSchemas(REFUSALS);

/** A Responses request: every field of {@link RESPONSES_REQUEST_FIELDS}, and no other. */
export const ResponsesRequestSchema = z.strictObject({
  model: z.string().check(z.minLength(1)),
  input: z.optional(z.union([z.string(), z.array(ItemSchema)])),
  instructions: z.optional(z.nullable(z.string())),
  tools: z.optional(z.nullable(z.array(ItemSchema))),
  tool_choice: z.optional(
    z.nullable(
      z.union([
        z.enum(["auto", "none", "required"]),
        z.looseObject({ type: z.string(), name: z.optional(z.string()) }),
      ]),
    ),
  ),
  parallel_tool_calls: z.optional(z.nullable(z.boolean())),
  stream: z.optional(z.nullable(z.boolean())),
  stream_options: z.optional(z.nullable(z.strictObject({ include_obfuscation: z.optional(z.boolean()) }))),
  max_output_tokens: z.optional(z.nullable(MaxTokensSchema)),
  temperature: z.optional(z.nullable(z.number().check(z.minimum(0), z.maximum(2)))),
  top_p: z.optional(z.nullable(z.number().check(z.minimum(0), z.maximum(1)))),
  reasoning: z.optional(
    z.nullable(
      z.strictObject({
        effort: z.optional(z.nullable(z.enum(["none", "minimal", "low", "medium", "high", "xhigh", "max"]))),
        summary: z.optional(z.nullable(z.enum(["auto", "concise", "detailed"]))),
        generate_summary: z.optional(z.nullable(z.enum(["auto", "concise", "detailed"]))),
      }),
    ),
  ),
  text: z.optional(
    z.nullable(
      z.strictObject({
        format: z.optional(
          z.nullable(
            z.union([
              z.strictObject({ type: z.literal("text") }),
              z.strictObject({ type: z.literal("json_object") }),
              JsonSchemaFormat,
            ]),
          ),
        ),
        verbosity: z.optional(z.nullable(z.enum(["low", "medium", "high"]))),
      }),
    ),
  ),
  include: z.optional(z.nullable(z.array(z.string()))),
  store: z.optional(z.nullable(z.boolean())),
  user: z.optional(z.nullable(z.string())),
  safety_identifier: z.optional(z.nullable(z.string())),
  prompt_cache_key: z.optional(z.nullable(z.string())),
  metadata: z.optional(z.nullable(z.record(z.string(), z.string()))),
  client_metadata: z.optional(z.unknown()),
  service_tier: z.optional(z.unknown()),
  prompt_cache_retention: z.optional(z.unknown()),
  prompt_cache_options: z.optional(z.unknown()),
  truncation: z.optional(z.nullable(z.enum(["auto", "disabled"]))),
  ...refusedFields,
});
export type ResponsesRequest = z.output<typeof ResponsesRequestSchema>;
type Item = z.output<typeof ItemSchema>;

/** The include value that asks for the reasoning to replay (`encrypted_content` on reasoning items). */
export const ENCRYPTED_REASONING = "reasoning.encrypted_content";

/** A validated Responses request as a neutral call on one route. */
export interface NeutralResponsesCall {
  messages: MessageInput[];
  tools: ToolSpecInput[];
  options: CallOptions;
  /** Whether the client asked for `reasoning.encrypted_content`: the route's reasoning is carried back. */
  carryReasoning: boolean;
  /**
   * The names of the request's custom (freeform) tools: the route sees each as a function taking one
   * string, `input`, and their calls go back as `custom_tool_call` items carrying that string.
   */
  customTools: ReadonlySet<string>;
  /** What the request lost on the way (a reasoning item that cannot replay, an ignored setting). */
  warnings: string[];
  /** The request as validated, for the fields the response echoes. */
  request: ResponsesRequest;
}

/**
 * Validates a Responses body for a converted route (`route`: the route's canonical name, which carried
 * reasoning must have been made on) and turns it into a neutral call. Throws one `ValidationError` naming
 * every bad or refused field (`store`, `input[2].type`, `tools[0].type`, `text.format.schema`).
 */
export function responsesRequestToNeutral(body: unknown, route: string): NeutralResponsesCall {
  const request = validate(ResponsesRequestSchema, body);
  const issues = refusalIssues(request, REFUSALS);
  const warnings: string[] = [];
  if (request.store === true) issues.push({ path: "store", message: NO_STORE });
  for (const [index, value] of (request.include ?? []).entries()) {
    if (value === "message.output_text.logprobs")
      issues.push({ path: `include[${index}]`, message: "log probabilities are not supported" });
  }
  if (request.truncation === "auto")
    warnings.push('truncation: "auto" is not applied: an input over the context window is an error');
  if (request.text?.verbosity)
    warnings.push(`text.verbosity: "${request.text.verbosity}" is not supported by the gateway; ignored`);

  const messages: MessageInput[] = [];
  if (request.instructions) messages.push({ role: "system", content: request.instructions });
  if (typeof request.input === "string") messages.push({ role: "user", content: request.input });
  else if (request.input) messages.push(...inputMessages(request.input, route, issues, warnings));

  const customTools = new Set<string>();
  const tools = toolsOf(request.tools ?? [], customTools, issues);
  const options: CallOptions = {};
  if (request.max_output_tokens) options.maxTokens = request.max_output_tokens;
  if (typeof request.temperature === "number") options.temperature = request.temperature;
  if (typeof request.top_p === "number") options.topP = request.top_p;
  if (typeof request.parallel_tool_calls === "boolean")
    options.parallelToolCalls = request.parallel_tool_calls;
  if (request.reasoning?.effort) options.thinking = thinkingOfEffort(request.reasoning.effort);
  if (request.tool_choice) {
    const choice = toolChoiceOf(request.tool_choice, issues);
    if (choice) options.toolChoice = choice;
  }
  const user = request.user || request.safety_identifier;
  if (user) options.metadata = { user_id: user };
  const format = responseFormatOf(request.text?.format, issues);
  if (format) options.responseFormat = format;
  if (issues.length > 0) throw new ValidationError(issues);
  return {
    messages,
    tools,
    options,
    carryReasoning: (request.include ?? []).includes(ENCRYPTED_REASONING),
    customTools,
    warnings,
    request,
  };
}

/**
 * Function tools (flat: `{type: "function", name, description, parameters, strict}`), and custom
 * (freeform) tools as a function of one string argument, `input` (their grammar, when they have one, told
 * in the description); any other tool is refused.
 */
function toolsOf(tools: readonly Item[], custom: Set<string>, issues: ValidationIssue[]): ToolSpecInput[] {
  const specs: ToolSpecInput[] = [];
  for (const [index, tool] of tools.entries()) {
    const where = `tools[${index}]`;
    if (tool.type !== "function" && tool.type !== "custom") {
      issues.push({
        path: `${where}.type`,
        message: `only function and custom tools are supported, got ${JSON.stringify(tool.type ?? null)}`,
      });
      continue;
    }
    if (typeof tool.name !== "string") {
      issues.push({ path: `${where}.name`, message: "expected string" });
      continue;
    }
    if (tool.type === "custom") {
      const spec = customToolSpec(tool, where, issues);
      if (spec) {
        custom.add(tool.name);
        specs.push(spec);
      }
      continue;
    }
    const parameters = tool.parameters ?? { type: "object", properties: {} };
    if (typeof parameters !== "object" || Array.isArray(parameters)) {
      issues.push({ path: `${where}.parameters`, message: "expected a JSON Schema object" });
      continue;
    }
    const spec: ToolSpecInput = { name: tool.name, parameters: parameters as Record<string, unknown> };
    if (typeof tool.description === "string") spec.description = tool.description;
    if (typeof tool.strict === "boolean") spec.strict = tool.strict;
    specs.push(spec);
  }
  return specs;
}

/** A custom tool (`{type: "custom", name, description, format}`) as a function taking `{ input: string }`. */
function customToolSpec(tool: Item, where: string, issues: ValidationIssue[]): ToolSpecInput | undefined {
  const format = (tool.format ?? { type: "text" }) as Record<string, unknown>;
  let description = typeof tool.description === "string" ? tool.description : "";
  if (format.type === "grammar") {
    if (typeof format.definition !== "string" || typeof format.syntax !== "string") {
      issues.push({
        path: `${where}.format.definition`,
        message: "expected a grammar: syntax and definition",
      });
      return undefined;
    }
    description += `${description === "" ? "" : "\n\n"}The input must follow this ${format.syntax} grammar:\n${format.definition}`;
  } else if (format.type !== "text") {
    issues.push({ path: `${where}.format.type`, message: 'expected "text" or "grammar"' });
    return undefined;
  }
  return {
    name: tool.name as string,
    ...(description === "" ? {} : { description }),
    parameters: {
      type: "object",
      properties: { input: { type: "string", description: "The tool's input, as free text." } },
      required: ["input"],
      additionalProperties: false,
    },
  };
}

function toolChoiceOf(
  choice: NonNullable<ResponsesRequest["tool_choice"]>,
  issues: ValidationIssue[],
): ToolChoice | undefined {
  if (choice === "required") return "any";
  if (typeof choice === "string") return choice;
  if ((choice.type === "function" || choice.type === "custom") && typeof choice.name === "string")
    return { name: choice.name };
  issues.push({
    path: "tool_choice.type",
    message: `only a function can be chosen (auto, none, required or {"type":"function","name"}), got ${JSON.stringify(choice.type)}`,
  });
  return undefined;
}

/**
 * `text.format` as `responseFormat`, checked as the library checks it, the issues named at
 * `text.format.*`. The Responses API's `strict` defaults to false, and stays so here.
 */
function responseFormatOf(
  format: NonNullable<ResponsesRequest["text"]>["format"],
  issues: ValidationIssue[],
): ResponseFormat | undefined {
  if (!format || format.type === "text") return undefined;
  if (format.type === "json_object") return { type: "json" };
  if (format.schema === undefined) {
    issues.push({
      path: "text.format.schema",
      message: 'required: the schema the answer must match (or send {"type":"json_object"} for any JSON)',
    });
    return undefined;
  }
  const neutral: ResponseFormat = {
    type: "json_schema",
    name: format.name,
    schema: format.schema,
    strict: format.strict ?? false,
    ...(format.description === undefined ? {} : { description: format.description }),
  };
  try {
    prepareResponseFormat(neutral);
  } catch (error) {
    if (!ValidationError.is(error)) throw error;
    for (const issue of error.issues)
      issues.push({ path: issue.path.replace(/^responseFormat/, "text.format"), message: issue.message });
    return undefined;
  }
  return neutral;
}
