/**
 * Recorded answer → history → next request, on every recorded Gemini conversation that went on after a
 * model turn (function calls answered, a follow-up question): the `thoughtSignature` of every part goes
 * back byte-identical and on the very part it came on, thought parts included, and the function responses
 * are tied to their calls by name (and id, where the model gave one) — as the recorded client sent them
 * and the API accepted. The next request is built from neutral input: the recorded user turns, the
 * assistant messages modelwire returned, and tool results naming the tool calls' ids.
 */
import { describe, expect, it } from "vitest";
import type { MessageInput } from "../../../src/core/message.ts";
import type { Response as ModelResponse } from "../../../src/core/response.ts";
import {
  type GeminiContent,
  type GeminiPart,
  type GeminiRequestBody,
  googleGeminiProtocol,
} from "../../../src/protocols/google-gemini/index.ts";
import { byteStream } from "../../helpers/byte-stream.ts";
import { RECORDED_CALLS, type RecordedCall } from "./recorded-calls.helpers.ts";

const decoder = new TextDecoder();

async function parsed(call: RecordedCall): Promise<ModelResponse> {
  const context = { provider: "gemini", model: call.model, origin: call.vertex ? "vertex" : "gemini" };
  if (!call.stream) return googleGeminiProtocol.parseResponse(JSON.parse(decoder.decode(call.body)), context);
  let done: ModelResponse | undefined;
  const frames = googleGeminiProtocol.readFrames(byteStream(call.body, 13));
  for await (const event of googleGeminiProtocol.assembleStream(frames, context)) {
    if (event.type === "done") done = event.response;
  }
  if (!done) throw new Error("no done");
  return done;
}

function contentsOf(call: RecordedCall): GeminiContent[] {
  return (call.request.contents as GeminiContent[]) ?? [];
}

/** A recorded user content as neutral messages: its function responses as tool results, its text as a user message. */
function userMessages(
  content: GeminiContent,
  calls: readonly { id: string; name: string }[],
): MessageInput[] {
  const messages: MessageInput[] = [];
  const open = [...calls];
  const results = (content.parts ?? []).flatMap((part) => {
    const response = part.functionResponse;
    if (!response) return [];
    const at = open.findIndex((call) => call.name === response.name);
    const call = open.splice(at, 1)[0]!;
    const value = response.response as { return_value?: unknown; error?: unknown };
    const isError = value.error !== undefined;
    const result = isError ? value.error : (value.return_value ?? value);
    return [
      { callId: call.id, content: typeof result === "string" ? result : JSON.stringify(result), isError },
    ];
  });
  if (results.length > 0) messages.push({ role: "tool", toolResults: results });
  const text = (content.parts ?? []).flatMap((part) => (typeof part.text === "string" ? [part.text] : []));
  if (text.join("") !== "") messages.push({ role: "user", content: text.join("") });
  return messages;
}

/** The conversations: consecutive calls of one cassette where each request extends the one before. */
function conversations(): RecordedCall[][] {
  const chains: RecordedCall[][] = [];
  for (const call of RECORDED_CALLS) {
    const last = chains.at(-1);
    const previous = last?.at(-1);
    const extends_ =
      previous !== undefined &&
      previous.path === call.path &&
      contentsOf(call).length > contentsOf(previous).length &&
      JSON.stringify(contentsOf(call).slice(0, contentsOf(previous).length)) ===
        JSON.stringify(contentsOf(previous));
    if (extends_) last!.push(call);
    else chains.push([call]);
  }
  return chains.filter((chain) => chain.length > 1);
}

/** base64 in either alphabet, as the bytes it stands for (pydantic-ai re-encodes signatures URL-safe). */
function bytesOf(signature: string): string {
  return atob(signature.replace(/-/g, "+").replace(/_/g, "/"));
}

const CHAINS = conversations();

describe("recorded Gemini conversations: signatures go back byte for byte, in place", () => {
  it("finds every recorded conversation that continues after a model turn", () => {
    expect(CHAINS.map((chain) => `${chain[0]!.path.slice(25)}×${chain.length}`)).toEqual([
      "google_instructions_only_with_tool_calls.yaml×5",
      "google_model_file_search_grounding_gemini_3_True_.yaml×2",
      "google_model_iter_stream.yaml×3",
      "google_model_retry.yaml×3",
      "google_model_structured_output.yaml×2",
      "google_model_thinking_part.yaml×2",
      "google_model_web_search_tool.yaml×2",
      "google_model_web_search_tool_stream.yaml×2",
      "google_prompted_output_with_tools.yaml×2",
      "google_tool_output.yaml×2",
      "google_vertex_tool_combination_omits_include_server_side_tool_invocations.yaml×2",
    ]);
  });

  it.each(CHAINS.map((chain) => [chain[0]!.path, chain] as const))("%s", async (_path, chain) => {
    const first = chain[0]!;
    const origin = first.vertex ? "vertex" : "gemini";
    const history: MessageInput[] = [];
    const system = (first.request.systemInstruction as GeminiContent | undefined)?.parts?.map(
      (part) => part.text,
    );
    if (system?.length) history.push({ role: "system", content: system.join("") });
    for (const content of contentsOf(first)) history.push(...userMessages(content, []));
    const answers: GeminiPart[][] = [];
    const streamed: boolean[] = [];
    let signatures = 0;
    let placeholders = 0;
    for (const [step, call] of chain.entries()) {
      if (step > 0) {
        const { body, warnings } = googleGeminiProtocol.buildRequest({
          messages: history,
          tools: [],
          options: {},
          model: call.model,
          origin,
        });
        const sent = (body as GeminiRequestBody).contents.filter((content) => content.role === "model");
        const recorded = contentsOf(call).filter((content) => content.role === "model");
        expect(sent).toHaveLength(answers.length);
        expect(warnings.filter((warning) => /dropped|rebuilt/.test(warning))).toEqual([]);
        sent.forEach((content, turn) => {
          // The model's parts verbatim: every field, every signature, in order.
          expect(JSON.stringify(content.parts)).toBe(JSON.stringify(answers[turn]));
          const recordedParts = recorded[turn]!.parts!;
          const ours = content.parts!;
          signatures += ours.filter((part) => part.thoughtSignature !== undefined).length;
          if (streamed[turn]) {
            // pydantic-ai joined the streamed text parts into one; we keep the parts as the stream sent
            // them (as @google/genai's chat history does). Same signatures, in the same order, same text.
            const signed = (parts: GeminiPart[]) =>
              parts.flatMap((part) => (part.thoughtSignature ? [bytesOf(part.thoughtSignature)] : []));
            expect(signed(ours)).toEqual(signed(recordedParts));
            const text = (parts: GeminiPart[]) => parts.map((part) => part.text ?? "").join("");
            expect(text(ours)).toBe(text(recordedParts));
            return;
          }
          expect(ours).toHaveLength(recordedParts.length);
          ours.forEach((part, position) => {
            const theirs = recordedParts[position]!;
            if (part.thoughtSignature !== undefined) {
              expect(bytesOf(part.thoughtSignature)).toBe(bytesOf(theirs.thoughtSignature!));
            } else if (theirs.thoughtSignature !== undefined) {
              // pydantic-ai put Google's placeholder on a call the model gave no signature (gemini-2.0).
              expect(bytesOf(theirs.thoughtSignature)).toBe("skip_thought_signature_validator");
              placeholders++;
            }
            expect(part.functionCall?.name).toBe(theirs.functionCall?.name);
            expect(part.thought).toBe(theirs.thought);
          });
        });
        // Each function response names its call, and carries the call's id only where the model gave one.
        const userTurns = (body as GeminiRequestBody).contents;
        userTurns.forEach((content, index) => {
          const responses = (content.parts ?? []).filter((part) => part.functionResponse);
          if (responses.length === 0) return;
          const calls = (userTurns[index - 1]?.parts ?? []).filter((part) => part.functionCall);
          expect(responses.map((part) => part.functionResponse!.name)).toEqual(
            calls.map((part) => part.functionCall!.name),
          );
          expect(responses.map((part) => part.functionResponse!.id)).toEqual(
            calls.map((part) => part.functionCall!.id),
          );
        });
      }
      const response = await parsed(call);
      answers.push(response.message.native!.blocks as GeminiPart[]);
      streamed.push(call.stream);
      history.push(response.message);
      const next = chain[step + 1];
      if (next) {
        const added = contentsOf(next).slice(contentsOf(call).length + 1);
        for (const content of added) {
          if (content.role === "model") break;
          history.push(...userMessages(content, response.message.toolCalls));
        }
      }
    }
    const recordedSignatures = chain
      .slice(1)
      .flatMap(contentsOf)
      .filter((content) => content.role === "model")
      .flatMap((content) => content.parts ?? [])
      .filter((part) => part.thoughtSignature !== undefined).length;
    expect(signatures + placeholders).toBe(recordedSignatures);
  });
});
