/**
 * A generated OpenAI Responses SSE stream and what a correct consumer must assemble from it.
 *
 * Shaped like the hosted API's stream (`event:` + `data:` lines, a `sequence_number` on every event, no
 * `obfuscation` field): `response.created` and `response.in_progress`; a reasoning item whose summary
 * arrives in `reasoning_summary_text.delta` pieces and ends with its `encrypted_content`; a message item
 * with many small `output_text.delta` pieces (one to three tokens, `logprobs: []`); function-call items
 * whose `arguments` arrive in 1–24-character `function_call_arguments.delta` pieces; each part and item
 * closed by its `.done` events carrying the whole text; and `response.completed` carrying every output
 * item and the usage, as the API sends it.
 *
 * @module
 */
import {
  type ExpectedResult,
  type ExpectedToolCall,
  type GeneratedStream,
  pieces,
  randomId,
  randomSignature,
  TOOL_NAMES,
  toolInput,
  words,
} from "./generate.ts";
import { seededRandom } from "./prng.ts";

/** The model the Responses stream names. */
export const OPENAI_RESPONSES_MODEL = "gpt-5.1";

/** How a Responses stream is made up. */
export interface OpenAIResponsesStreamShape {
  seed: number;
  /** Approximate size of the whole stream in bytes. */
  targetBytes: number;
  /** Share of the bytes spent on the reasoning summary deltas. */
  reasoningShare: number;
  /** Share of the bytes spent on function-call argument deltas. */
  toolShare: number;
  /** Number of function calls (items after the message, one after the other as the API sends them). */
  toolCalls: number;
}

/** Prompt tokens the stream reports (1,024 of them cached). */
const INPUT_TOKENS = 2095;
const CACHED_TOKENS = 1024;

/** Generates a Responses stream of about `shape.targetBytes` bytes, the same for the same shape. */
export function generateOpenAIResponsesStream(shape: OpenAIResponsesStreamShape): GeneratedStream {
  const random = seededRandom(shape.seed);
  const parts: string[] = [];
  let bytes = 0;
  let sequence = 0;
  let firstTextEvent = -1;
  let firstTextEnd = -1;
  const event = (type: string, fields: Record<string, unknown>): string =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`;
  const push = (text: string): void => {
    parts.push(text);
    bytes += Buffer.byteLength(text, "utf8");
  };
  const expected: ExpectedResult = { text: "", thinking: "", signature: "", toolCalls: [] };
  const responseId = `resp_${randomId(random, 48).toLowerCase()}`;
  const createdAt = 1_775_000_000;
  const envelope = (status: string, output: unknown[], usage: unknown): Record<string, unknown> => ({
    id: responseId,
    object: "response",
    created_at: createdAt,
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model: OPENAI_RESPONSES_MODEL,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: "medium", summary: "detailed" },
    store: false,
    temperature: 1,
    text: { format: { type: "text" }, verbosity: "medium" },
    tool_choice: "auto",
    tools: TOOL_NAMES.map((name) => ({
      type: "function",
      name,
      description: name,
      parameters: { type: "object" },
      strict: false,
    })),
    top_p: 1,
    truncation: "disabled",
    usage,
    metadata: {},
  });
  const output: Record<string, unknown>[] = [];

  push(event("response.created", { response: envelope("in_progress", [], null) }));
  push(event("response.in_progress", { response: envelope("in_progress", [], null) }));

  // Tool calls' inputs are drawn first (as the Anthropic generator does) so the text fills the rest.
  const perTool = shape.toolCalls > 0 ? (shape.targetBytes * shape.toolShare) / shape.toolCalls : 0;
  // Wire bytes per character of arguments (measured): the delta event's envelope, with its 51-character
  // item id, around ~12.5-character pieces.
  const perChar = 18.5;
  const inputs: { call: ExpectedToolCall; itemId: string }[] = [];
  for (let call = 0; call < shape.toolCalls; call++) {
    const input = toolInput(random, call, perTool / perChar);
    inputs.push({
      call: {
        id: `call_${randomId(random, 24)}`,
        name: TOOL_NAMES[call % TOOL_NAMES.length]!,
        input,
      },
      itemId: `fc_${randomId(random, 48).toLowerCase()}`,
    });
  }
  const toolWireEstimate = inputs.reduce(
    (sum, { call }) => sum + JSON.stringify(call.input).length * perChar,
    0,
  );

  let outputIndex = 0;
  // The reasoning item.
  if (shape.reasoningShare > 0) {
    const itemId = `rs_${randomId(random, 48).toLowerCase()}`;
    const index = outputIndex++;
    push(
      event("response.output_item.added", {
        output_index: index,
        item: { id: itemId, type: "reasoning", summary: [] },
      }),
    );
    push(
      event("response.reasoning_summary_part.added", {
        item_id: itemId,
        output_index: index,
        summary_index: 0,
        part: { type: "summary_text", text: "" },
      }),
    );
    const budget = shape.targetBytes * shape.reasoningShare;
    while (bytes < budget) {
      const delta = words(random, random.int(1, 4));
      expected.thinking += delta;
      push(
        event("response.reasoning_summary_text.delta", {
          item_id: itemId,
          output_index: index,
          summary_index: 0,
          delta,
        }),
      );
    }
    push(
      event("response.reasoning_summary_text.done", {
        item_id: itemId,
        output_index: index,
        summary_index: 0,
        text: expected.thinking,
      }),
    );
    push(
      event("response.reasoning_summary_part.done", {
        item_id: itemId,
        output_index: index,
        summary_index: 0,
        part: { type: "summary_text", text: expected.thinking },
      }),
    );
    // The encrypted reasoning, as `include: ["reasoning.encrypted_content"]` returns it.
    expected.signature = randomSignature(random) + randomSignature(random);
    const item = {
      id: itemId,
      type: "reasoning",
      encrypted_content: expected.signature,
      summary: [{ type: "summary_text", text: expected.thinking }],
    };
    output.push(item);
    push(event("response.output_item.done", { output_index: index, item }));
  }

  // The message item.
  {
    const itemId = `msg_${randomId(random, 48).toLowerCase()}`;
    const index = outputIndex++;
    push(
      event("response.output_item.added", {
        output_index: index,
        item: { id: itemId, type: "message", status: "in_progress", content: [], role: "assistant" },
      }),
    );
    push(
      event("response.content_part.added", {
        item_id: itemId,
        output_index: index,
        content_index: 0,
        part: { type: "output_text", annotations: [], logprobs: [], text: "" },
      }),
    );
    // The text fills the budget left after the tool calls and the closing events (which repeat every text).
    const closing = 3 * Buffer.byteLength(expected.thinking) + 3 * (toolWireEstimate / perChar) + 4000;
    const textBudget = shape.targetBytes - toolWireEstimate - closing;
    do {
      const delta = words(random, random.int(1, 3));
      expected.text += delta;
      push(
        event("response.output_text.delta", {
          item_id: itemId,
          output_index: index,
          content_index: 0,
          delta,
          logprobs: [],
        }),
      );
      if (firstTextEvent < 0) {
        firstTextEvent = parts.length - 1;
        firstTextEnd = bytes;
      }
      // The closing events repeat the text three times more (`.done`, `content_part.done`, the item).
    } while (bytes + 4 * Buffer.byteLength(expected.text) < textBudget);
    push(
      event("response.output_text.done", {
        item_id: itemId,
        output_index: index,
        content_index: 0,
        text: expected.text,
        logprobs: [],
      }),
    );
    const part = { type: "output_text", annotations: [], logprobs: [], text: expected.text };
    push(
      event("response.content_part.done", { item_id: itemId, output_index: index, content_index: 0, part }),
    );
    const item = { id: itemId, type: "message", status: "completed", content: [part], role: "assistant" };
    output.push(item);
    push(event("response.output_item.done", { output_index: index, item }));
  }

  // The function calls, one after the other.
  for (const { call, itemId } of inputs) {
    expected.toolCalls.push(call);
    const index = outputIndex++;
    const base = { id: itemId, type: "function_call", call_id: call.id, name: call.name };
    push(
      event("response.output_item.added", {
        output_index: index,
        item: { ...base, status: "in_progress", arguments: "" },
      }),
    );
    const argumentsText = JSON.stringify(call.input);
    for (const delta of pieces(random, argumentsText, 1, 24)) {
      push(event("response.function_call_arguments.delta", { item_id: itemId, output_index: index, delta }));
    }
    push(
      event("response.function_call_arguments.done", {
        item_id: itemId,
        output_index: index,
        arguments: argumentsText,
      }),
    );
    const item = { ...base, status: "completed", arguments: argumentsText };
    output.push(item);
    push(event("response.output_item.done", { output_index: index, item }));
  }

  const outputTokens = Math.round(bytes / 40);
  const reasoningTokens = Math.round(Buffer.byteLength(expected.thinking) / 4);
  expected.usage = { input: INPUT_TOKENS, output: outputTokens };
  push(
    event("response.completed", {
      response: envelope("completed", output, {
        input_tokens: INPUT_TOKENS,
        input_tokens_details: { cached_tokens: CACHED_TOKENS },
        output_tokens: outputTokens,
        output_tokens_details: { reasoning_tokens: reasoningTokens },
        total_tokens: INPUT_TOKENS + outputTokens,
      }),
    }),
  );

  const encoded = new TextEncoder().encode(parts.join(""));
  if (encoded.length !== bytes) throw new Error("byte count mismatch in the generator");
  return { bytes: encoded, expected, events: parts.length, firstTextEvent, firstTextEnd };
}
