import type { MessageInput } from "../../core/message.ts";
import { nativeProvenance } from "../native-replay.ts";
import {
  clipped,
  isRecord,
  MISSING_TOOL_RESULT,
  safeString,
  shown,
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
  /** Ids of the last assistant turn's calls not yet answered, in order. */
  let pending: string[] = [];
  /**
   * Results answering no call, as user text, held while calls are still unanswered: text would end the run
   * of tool messages, and the calls' real results may still follow.
   */
  let orphans: OpenAIChatMessageParam[] = [];

  const flushPending = () => {
    if (pending.length > 0) {
      warnings.push(
        `tool call(s) ${pending.map(clipped).join(", ")} have no recorded result; answered with an error result`,
      );
      for (const id of pending)
        out.push({ role: "tool", tool_call_id: id, content: `Error: ${MISSING_TOOL_RESULT}` });
      pending = [];
    }
    out.push(...orphans);
    orphans = [];
  };
  const answer = (callId: unknown, content: string, isError: boolean, where: string) => {
    let id: string | undefined;
    if (typeof callId === "string" && callId !== "" && pending.includes(callId)) id = callId;
    else if ((callId === undefined || callId === null || callId === "") && pending.length > 0) {
      id = pending[0];
      warnings.push(`${where}: tool result without a call id; bound to call ${clipped(id ?? "")}`);
    }
    if (id === undefined) {
      warnings.push(
        `${where}: tool result for ${shown(callId)} answers no call of the turn before it; sent as text`,
      );
      const label = isError ? "error result" : "result";
      const text: OpenAIChatMessageParam = {
        role: "user",
        content: `[tool ${label} for call ${safeString(callId)}]${content ? `\n${content}` : ""}`,
      };
      if (pending.length > 0) orphans.push(text);
      else out.push(text);
      return;
    }
    pending = pending.filter((pendingId) => pendingId !== id);
    out.push({
      role: "tool",
      tool_call_id: id,
      content: isError && !/^error\b/i.test(content) ? `Error: ${content}` : content,
    });
    // The run of tool messages is complete: held texts go out now, in the order they came.
    if (pending.length === 0) flushPending();
  };

  const list: readonly unknown[] = Array.isArray(messages) ? messages : [];
  list.forEach((raw, index) => {
    if (!isRecord(raw)) {
      warnings.push(`messages[${index}]: not a message object; left out`);
      return;
    }
    const text = textOf(raw.content, index, warnings);
    switch (raw.role) {
      case "system":
        flushPending();
        if (text.trim() !== "") out.push({ role: "system", content: text });
        return;
      case "user":
      case "tool": {
        const results = Array.isArray(raw.toolResults) ? raw.toolResults : [];
        results.forEach((result: unknown, position) => {
          const where = `messages[${index}].toolResults[${position}]`;
          if (!isRecord(result)) {
            warnings.push(`${where}: not a tool result; left out`);
            return;
          }
          answer(result.callId, textOf(result.content, index, warnings), result.isError === true, where);
        });
        if (text.trim() !== "") {
          flushPending();
          out.push({ role: "user", content: text });
        }
        return;
      }
      case "assistant": {
        flushPending();
        const assistant = assistantMessage(raw, index, target, text, warnings);
        if (!assistant) return;
        out.push(assistant);
        pending = (assistant.tool_calls ?? []).map((call) => call.id);
        return;
      }
      default:
        warnings.push(`messages[${index}]: unknown role ${shown(raw.role)}; left out`);
    }
  });
  flushPending();
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
