import type { MessageInput } from "../../core/message.ts";
import { nativeProvenance } from "../native-replay.ts";
import { textOnlyOf } from "../neutral-blocks.ts";
import { type PendingCall, PendingResults } from "../pending-results.ts";
import {
  clipped,
  forEachStoredMessage,
  isRecord,
  MISSING_TOOL_RESULT,
  textOf,
  toolArgumentsTextOf,
} from "../stored-history.ts";
import {
  OPENAI_CHAT,
  type OpenAIChatEndpointProfile,
  type OpenAIChatMessageParam,
  type OpenAIChatToolCall,
} from "./openai-chat-wire.ts";

export { MISSING_TOOL_RESULT };

/** The model and endpoint a request goes to. */
export interface OpenAIChatReplayTarget {
  model: string;
  profile: OpenAIChatEndpointProfile;
}

/**
 * Neutral history → Chat Completions `messages`. Pure and total: never throws on a stored history.
 *
 * - Each tool result is its own `role: "tool"` message with `tool_call_id`, right after the assistant
 *   message that made the call (results on a user message come before its text).
 * - Tool-call `arguments` go out as the original string when the call came from this protocol (a
 *   truncated call survives replay as it was), otherwise as JSON of the parsed object.
 * - A call without an id gets a deterministic one (`call_<message>_<position>`), and a result without a call
 *   id is bound, in order, to the calls of the turn before it that are still unanswered — so the pair stays
 *   consistent. A call without a name is dropped (its result becomes user text).
 * - A call with no result gets an error tool message; a result answering no call becomes user text.
 * - Assistant turns with neither text nor calls are dropped. Reasoning from another provider is never sent;
 *   a DeepSeek-style turn's `reasoning_content` goes back only when the profile says so and the turn came
 *   from this endpoint and model (the provenance rule of `native-replay.ts`: a turn from elsewhere is
 *   rebuilt with a warning that counts the reasoning it drops).
 */
export function convertToOpenAIChatMessages(
  messages: readonly MessageInput[] | readonly unknown[],
  target: OpenAIChatReplayTarget,
): { messages: OpenAIChatMessageParam[]; warnings: string[] } {
  const warnings: string[] = [];
  const out: OpenAIChatMessageParam[] = [];
  const results = new PendingResults<PendingCall, OpenAIChatMessageParam>(
    out,
    {
      output: (call, output, where) => ({
        role: "tool",
        tool_call_id: call.sent,
        content: textOnlyOf(output, where, warnings, "not mapped yet"),
      }),
      text: (text, where) => ({ role: "user", content: textOnlyOf(text, where, warnings, "not mapped yet") }),
    },
    warnings,
  );

  forEachStoredMessage(messages, warnings, (raw, role, index) => {
    const text = textOf(raw.content, index, warnings);
    switch (role) {
      case "system":
        results.flush();
        if (text.trim() !== "") out.push({ role: "system", content: text });
        return;
      case "user":
      case "tool":
        results.answerAll(raw.toolResults, index);
        if (text.trim() !== "") {
          results.flush();
          out.push({ role: "user", content: text });
        }
        return;
      case "assistant": {
        results.flush();
        const assistant = assistantMessage(raw, index, target, text, warnings);
        if (!assistant) return;
        out.push(assistant);
        // Results name the ids sent: a call's id is only rewritten when it had none or repeated one.
        results.open((assistant.tool_calls ?? []).map((call) => ({ original: call.id, sent: call.id })));
        return;
      }
    }
  });
  results.flush();
  return { messages: out, warnings };
}

function assistantMessage(
  raw: Record<string, unknown>,
  index: number,
  target: OpenAIChatReplayTarget,
  text: string,
  warnings: string[],
): OpenAIChatMessageParam | undefined {
  const { replay, sameProtocol: fromThisProtocol } = nativeProvenance(
    raw,
    index,
    { protocol: OPENAI_CHAT, origin: target.profile.kind, model: target.model },
    warnings,
  );
  const toolCalls: OpenAIChatToolCall[] = [];
  const calls = Array.isArray(raw.toolCalls) ? raw.toolCalls : [];
  const seen = new Set<string>();
  calls.forEach((call: unknown, position) => {
    const where = `messages[${index}].toolCalls[${position}]`;
    if (!isRecord(call) || typeof call.name !== "string" || call.name === "") {
      warnings.push(`${where}: tool call without a name; left out`);
      return;
    }
    let id = typeof call.id === "string" && call.id !== "" ? call.id : `call_${index}_${position}`;
    if (id !== call.id) warnings.push(`${where}: tool call without an id; sent as ${clipped(id)}`);
    if (seen.has(id)) {
      const base = id;
      id = `${base}_${position}`;
      // The suffixed id may itself be taken (`x`, `x_2`, `x` → not `x_2` twice).
      for (let n = 2; seen.has(id); n++) id = `${base}_${position}_${n}`;
      warnings.push(`${where}: duplicate tool call id; sent as ${clipped(id)}`);
    }
    seen.add(id);
    toolCalls.push({
      id,
      type: "function",
      function: { name: call.name, arguments: toolArgumentsTextOf(call, fromThisProtocol) },
    });
  });
  if (text === "" && toolCalls.length === 0) {
    warnings.push(`messages[${index}]: assistant turn with no text and no tool calls; left out`);
    return undefined;
  }
  const message: OpenAIChatMessageParam = { role: "assistant", content: text === "" ? null : text };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (target.profile.echoReasoning && replay !== undefined) {
    const block = replay[0]?.block;
    const reasoning = block === undefined ? undefined : (block.reasoning_content ?? block.reasoning);
    if (typeof reasoning === "string" && reasoning !== "") message.reasoning_content = reasoning;
  }
  return message;
}
