/**
 * Fake upstreams and a gateway config for the /v1/responses tests: a Responses upstream (JSON and SSE,
 * built from an output list as OpenAI streams one), and a first-party Anthropic upstream that thinks
 * (signed thinking) and calls a tool, then answers once the tool result is in.
 */
import {
  ANTHROPIC_BASE,
  anthropicFrames,
  gateway,
  gatewayEnv,
  OPENAI_BASE,
  sseResponse,
  streamBody,
  type UpstreamCall,
  type UpstreamHandler,
} from "./helpers.ts";

/** Routes: a Responses route (passed through), an Anthropic route, an OpenAI Chat route, the demo. */
export const RESPONSES_ROUTES = {
  routes: {
    gpt5: {
      protocol: "openai-responses",
      model: "gpt-5",
      baseURL: OPENAI_BASE,
      apiKeySecret: "OPENAI_API_KEY",
    },
    claude: {
      protocol: "anthropic",
      model: "claude-sonnet-4-5",
      baseURL: ANTHROPIC_BASE,
      apiKeySecret: "ANTHROPIC_API_KEY",
      aliases: ["claude-sonnet-4-5-20250929"],
    },
    gpt: { protocol: "openai-chat", model: "gpt-4o", baseURL: OPENAI_BASE, apiKeySecret: "OPENAI_API_KEY" },
    demo: { demo: true },
  },
};

/** A gateway over {@link RESPONSES_ROUTES}, and a fetch for clients that goes to it. */
export function responsesGateway(handler: UpstreamHandler) {
  const built = gateway(handler, { config: RESPONSES_ROUTES, streamHoldMs: 0 });
  const fetch = (async (url: RequestInfo | URL, init?: RequestInit) =>
    built.worker.app.fetch(new Request(url, init), gatewayEnv)) as typeof globalThis.fetch;
  return { ...built, fetch };
}

type Item = Record<string, unknown>;

/** A Responses API response object around `output`. */
export function upstreamResponse(output: readonly Item[], status = "completed"): Item {
  return {
    id: "resp_upstream_68af",
    object: "response",
    created_at: 1756300000,
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model: "gpt-5-2025-08-07",
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: "medium", summary: "auto" },
    store: false,
    temperature: 1,
    text: { format: { type: "text" }, verbosity: "medium" },
    tool_choice: "auto",
    tools: [],
    top_p: 1,
    truncation: "disabled",
    usage:
      status === "in_progress"
        ? null
        : {
            input_tokens: 320,
            input_tokens_details: { cached_tokens: 128 },
            output_tokens: 96,
            output_tokens_details: { reasoning_tokens: 64 },
            total_tokens: 416,
          },
    user: null,
    metadata: {},
  };
}

/**
 * The SSE events OpenAI sends for `output`: created, in_progress, each item added / its deltas / done,
 * then completed with the full output (`cut`: the stream stops after that many events, unfinished).
 */
export function upstreamEvents(output: readonly Item[]): Item[] {
  const events: Item[] = [
    { type: "response.created", response: upstreamResponse([], "in_progress") },
    { type: "response.in_progress", response: upstreamResponse([], "in_progress") },
  ];
  output.forEach((item, index) => {
    const common = { item_id: item.id, output_index: index };
    if (item.type === "reasoning") {
      events.push({
        type: "response.output_item.added",
        output_index: index,
        item: { id: item.id, type: "reasoning", summary: [], encrypted_content: "gAAAAB-in-progress" },
      });
      for (const [summaryIndex, part] of (item.summary as Item[]).entries()) {
        const text = String(part.text);
        events.push(
          {
            type: "response.reasoning_summary_part.added",
            ...common,
            summary_index: summaryIndex,
            part: { type: "summary_text", text: "" },
          },
          {
            type: "response.reasoning_summary_text.delta",
            ...common,
            summary_index: summaryIndex,
            delta: text,
          },
          { type: "response.reasoning_summary_text.done", ...common, summary_index: summaryIndex, text },
          {
            type: "response.reasoning_summary_part.done",
            ...common,
            summary_index: summaryIndex,
            part: { type: "summary_text", text },
          },
        );
      }
    } else if (item.type === "function_call") {
      events.push(
        {
          type: "response.output_item.added",
          output_index: index,
          item: { ...item, arguments: "", status: "in_progress" },
        },
        { type: "response.function_call_arguments.delta", ...common, delta: item.arguments },
        { type: "response.function_call_arguments.done", ...common, arguments: item.arguments },
      );
    } else if (item.type === "message") {
      const text = String((item.content as Item[])[0]!.text);
      events.push(
        {
          type: "response.output_item.added",
          output_index: index,
          item: { ...item, status: "in_progress", content: [] },
        },
        {
          type: "response.content_part.added",
          ...common,
          content_index: 0,
          part: { type: "output_text", text: "", annotations: [] },
        },
        { type: "response.output_text.delta", ...common, content_index: 0, delta: text, logprobs: [] },
        { type: "response.output_text.done", ...common, content_index: 0, text, logprobs: [] },
        {
          type: "response.content_part.done",
          ...common,
          content_index: 0,
          part: { type: "output_text", text, annotations: [] },
        },
      );
    }
    events.push({ type: "response.output_item.done", output_index: index, item });
  });
  events.push({ type: "response.completed", response: upstreamResponse(output) });
  return events.map((event, sequence) => ({ ...event, sequence_number: sequence }));
}

/** SSE text of Responses events (`event:` line and JSON). */
export function responsesFrames(events: readonly Item[]): string[] {
  return events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
}

/** OpenAI's first answer: two reasoning items (encrypted) around a tool call. */
export const UPSTREAM_TOOL_TURN: Item[] = [
  {
    id: "rs_68af01",
    type: "reasoning",
    summary: [{ type: "summary_text", text: "**Weather** The user wants Paris." }],
    encrypted_content: "gAAAAABo-ENCRYPTED-FIRST-reasoning==",
  },
  {
    id: "fc_68af02",
    type: "function_call",
    status: "completed",
    arguments: '{"city":"Paris"}',
    call_id: "call_Wq3AxDf9",
    name: "get_weather",
  },
];

/** OpenAI's answer once the tool result is in. */
export const UPSTREAM_FINAL_TURN: Item[] = [
  {
    id: "rs_68af03",
    type: "reasoning",
    summary: [],
    encrypted_content: "gAAAAABo-ENCRYPTED-SECOND-reasoning==",
  },
  {
    id: "msg_68af04",
    type: "message",
    status: "completed",
    role: "assistant",
    content: [
      { type: "output_text", text: "It is 18 °C and sunny in Paris.", annotations: [], logprobs: [] },
    ],
  },
];

/** Whether a Responses request already carries a tool result. */
function answered(call: UpstreamCall): boolean {
  const input = call.body.input;
  return Array.isArray(input) && input.some((item) => (item as Item).type === "function_call_output");
}

/** The Responses upstream: the tool turn, then the final turn; JSON or SSE as asked. */
export const responsesUpstream: UpstreamHandler = (call) => {
  const output = answered(call) ? UPSTREAM_FINAL_TURN : UPSTREAM_TOOL_TURN;
  if (call.body.stream !== true) return Response.json(upstreamResponse(output));
  return sseResponse(streamBody(responsesFrames(upstreamEvents(output))));
};

export const THINKING = "The user asks about Paris. I should call get_weather.";
export const SIGNATURE = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxDaUBcpSxNCRDMBFTI7xqBc3Y8Qhdo8w==";
export const TOOL_USE_ID = "toolu_01A09q90qw90lq917835lq9";

const ANTHROPIC_MODEL = "claude-sonnet-4-5-20250929";
const ANTHROPIC_USAGE = {
  input_tokens: 472,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 100,
  output_tokens: 89,
};

/** The Anthropic blocks of the tool turn: signed thinking, then the tool call. */
export const THINKING_BLOCK = { type: "thinking", thinking: THINKING, signature: SIGNATURE };

/** An Anthropic message that thinks and calls get_weather, or answers once the tool result is in. */
export function anthropicThinkingMessage(final: boolean): Item {
  return {
    id: "msg_01Aq9w938a90dw8q",
    type: "message",
    role: "assistant",
    model: ANTHROPIC_MODEL,
    content: final
      ? [{ type: "text", text: "It is 18 °C and sunny in Paris." }]
      : [
          THINKING_BLOCK,
          { type: "tool_use", id: TOOL_USE_ID, name: "get_weather", input: { city: "Paris" } },
        ],
    stop_reason: final ? "end_turn" : "tool_use",
    stop_sequence: null,
    usage: ANTHROPIC_USAGE,
  };
}

/** The same answers as Anthropic streams them (thinking deltas, then the signature, then the tool input). */
export function anthropicThinkingEvents(final: boolean): Item[] {
  const events: Item[] = [
    {
      type: "message_start",
      message: { ...anthropicThinkingMessage(final), content: [], stop_reason: null, usage: ANTHROPIC_USAGE },
    },
  ];
  if (final) {
    events.push(
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "It is 18 °C " } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "and sunny in Paris." } },
      { type: "content_block_stop", index: 0 },
    );
  } else {
    events.push(
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "thinking", thinking: "", signature: "" },
      },
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "thinking_delta", thinking: THINKING.slice(0, 20) },
      },
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "thinking_delta", thinking: THINKING.slice(20) },
      },
      { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: SIGNATURE } },
      { type: "content_block_stop", index: 0 },
      {
        type: "content_block_start",
        index: 1,
        content_block: { type: "tool_use", id: TOOL_USE_ID, name: "get_weather", input: {} },
      },
      {
        type: "content_block_delta",
        index: 1,
        delta: { type: "input_json_delta", partial_json: '{"city":' },
      },
      {
        type: "content_block_delta",
        index: 1,
        delta: { type: "input_json_delta", partial_json: '"Paris"}' },
      },
      { type: "content_block_stop", index: 1 },
    );
  }
  events.push(
    {
      type: "message_delta",
      delta: { stop_reason: final ? "end_turn" : "tool_use", stop_sequence: null },
      usage: { output_tokens: 89 },
    },
    { type: "message_stop" },
  );
  return events;
}

/** Whether an Anthropic request already carries a tool result. */
function anthropicAnswered(call: UpstreamCall): boolean {
  const messages = call.body.messages as { content: unknown }[];
  const last = messages.at(-1)?.content;
  return Array.isArray(last) && last.some((block) => (block as Item).type === "tool_result");
}

/** The Anthropic upstream: thinking + tool_use, then the answer; JSON or SSE as asked. */
export const anthropicThinkingUpstream: UpstreamHandler = (call) => {
  const final = anthropicAnswered(call);
  if (call.body.stream !== true) return Response.json(anthropicThinkingMessage(final));
  return sseResponse(streamBody(anthropicFrames(anthropicThinkingEvents(final))));
};

/** The flat get_weather tool of a Responses request. */
export const WEATHER_TOOL = {
  type: "function" as const,
  name: "get_weather",
  description: "Current weather in a city",
  parameters: {
    type: "object",
    properties: { city: { type: "string" } },
    required: ["city"],
    additionalProperties: false,
  },
  strict: true,
};
