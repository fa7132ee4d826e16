import type { Content } from "../../core/content.ts";
import type { MessageInput } from "../../core/message.ts";
import type { ValidationIssue } from "../../core/validation-error.ts";
import { type NativeBlock, replayOrRebuild } from "../native-replay.ts";
import { assistantBlocksOf, type NeutralBlockWriter, systemTextOf, userBlocksOf } from "../neutral-blocks.ts";
import { repairTurns, type Turn, type TurnBlocks } from "../repair-turns.ts";
import {
  forEachStoredMessage,
  isBlank,
  isNonEmptyString,
  isPlainObject,
  isRecord,
  MISSING_TOOL_RESULT,
  orphanResultText,
} from "../stored-history.ts";
import type { GeminiModelProfile } from "./gemini-model-profile.ts";
import {
  type GeminiContent,
  type GeminiPart,
  GOOGLE_GEMINI,
  SKIP_THOUGHT_SIGNATURE,
} from "./google-gemini-wire.ts";
import { geminiPartOf } from "./map-gemini-part.ts";

/** The model and endpoint a request goes to: `native` parts replay only when both match. */
export interface GeminiReplayTarget {
  model: string;
  /** `"gemini"` for the Gemini API, `"vertex"` for Vertex AI: signatures are bound to the endpoint too. */
  origin: string;
}

/** The converted conversation, and what had to be changed to make it valid. */
export interface ConvertedGeminiContents {
  /** `systemInstruction`, when the history has system text. */
  systemInstruction: GeminiContent | undefined;
  contents: GeminiContent[];
  warnings: string[];
  /** Parts the endpoint cannot take (each naming its field): the request must not be sent. */
  refused: ValidationIssue[];
}

/**
 * One part of a turn while the history is converted: a wire part, or a call or result still to be written
 * (a result needs the name of its call, known once the turns are repaired and paired).
 */
interface Piece {
  part?: GeminiPart;
  /** A function call: the neutral id (what results name), and its part. */
  call?: string;
  /** A function result not yet written. */
  result?: { id: string; content: Content; isError: boolean; where: string };
}

/** Part fields that carry data: a part with none of them (and no signature) is empty. */
const DATA_FIELDS = ["inlineData", "fileData", "functionCall", "functionResponse"];

/**
 * Neutral history → Gemini `contents` and `systemInstruction`. Pure and total: it never throws, whatever a
 * stored history holds (seed 004); what it cannot send faithfully it drops or repairs, and says so.
 *
 * - System messages become `systemInstruction` (text only: a part there is refused).
 * - User and tool messages become `user` contents: function responses first, in the order of the calls they
 *   answer (the API pairs them by order; `{ name, response: { output } }`, `{ error }` for a failed tool;
 *   `id` only when the call it answers had one), then text and media
 *   (`inlineData` / `fileData`, see `geminiPartOf`). A result's images and files ride in
 *   `functionResponse.parts` on Gemini 3, and follow the responses as parts of the same turn elsewhere.
 * - An assistant message whose `native` came from this protocol, endpoint and model is replayed from
 *   `native.blocks` — the model's parts verbatim, in order, `thoughtSignature`s in place and thought parts
 *   kept — its k-th `functionCall` part bound to the k-th neutral tool call (which results name). On any
 *   mismatch the turn is rebuilt from `content` and `toolCalls` as a `model` content, its thoughts and
 *   signatures dropped with a warning (never demoted to text); on a model that requires signatures
 *   (Gemini 3) the first rebuilt call carries Google's documented placeholder `SKIP_THOUGHT_SIGNATURE`.
 * - No empty part is sent: `""` text without a signature is left out, a signature without text goes on
 *   `""` text, a part without any data is left out with a warning; turns left empty are dropped, consecutive turns of one role merged, every call answered
 *   in the next turn (an error result for a call without one), a result answering no call sent as text.
 */
export function convertToGeminiContents(
  messages: readonly MessageInput[] | readonly unknown[],
  target: GeminiReplayTarget,
  profile: GeminiModelProfile,
): ConvertedGeminiContents {
  const warnings: string[] = [];
  const refused: ValidationIssue[] = [];
  const system: GeminiPart[] = [];
  const turns: Turn<Piece>[] = [];
  const writer = neutralWriter(refused);

  forEachStoredMessage(messages, warnings, (raw, role, index) => {
    switch (role) {
      case "system": {
        const text = systemTextOf(raw.content, `messages[${index}].content`, warnings, refused, "Gemini");
        if (!isBlank(text)) system.push({ text });
        return;
      }
      case "user":
      case "tool":
        turns.push({ role: "user", content: userBlocksOf(raw, index, writer, warnings) });
        return;
      case "assistant":
        turns.push({
          role: "assistant",
          content: assistantPieces(raw, index, target, profile, writer, warnings),
        });
        return;
    }
  });

  const repaired = repairTurns(turns, piecesOf(refused), warnings);
  const contents: GeminiContent[] = [];
  /** The calls of the model turn before the one being written, by neutral id. */
  let calls = new Map<string, GeminiCall>();
  for (const turn of repaired) {
    if (turn.role === "assistant") {
      calls = new Map();
      const parts: GeminiPart[] = [];
      for (const piece of turn.content) {
        if (!piece.part) continue;
        const call = piece.part.functionCall;
        if (piece.call !== undefined && call) {
          calls.set(piece.call, {
            name: call.name,
            id: isNonEmptyString(call.id) ? call.id : undefined,
            position: calls.size,
          });
        }
        parts.push(piece.part);
      }
      if (parts.length > 0) contents.push({ role: "model", parts });
      continue;
    }
    const responses: { part: GeminiPart; position: number }[] = [];
    const others: GeminiPart[] = [];
    for (const piece of turn.content) {
      if (piece.result) {
        const call = calls.get(piece.result.id);
        const part = writeResult(piece.result, call, profile, refused, warnings, others);
        responses.push({ part, position: call?.position ?? Number.POSITIVE_INFINITY });
      } else if (piece.part) others.push(piece.part);
    }
    // The API pairs responses with calls by order (it gives no ids): in the order of the calls, whatever
    // order the results were recorded in (and the added error results, put first, take their call's place).
    responses.sort((a, b) => a.position - b.position);
    const parts = [...responses.map((response) => response.part), ...others];
    if (parts.length > 0) contents.push({ role: "user", parts });
    calls = new Map();
  }
  const systemInstruction = system.length > 0 ? { role: "user", parts: system } : undefined;
  return { systemInstruction, contents, warnings, refused };
}

/** A function call of the model turn before a user turn: its name, its API id, its place among the calls. */
interface GeminiCall {
  name: string;
  id: string | undefined;
  position: number;
}

/** One result as its `functionResponse` part; media parts it carries that cannot ride in it go onto `others`. */
function writeResult(
  result: NonNullable<Piece["result"]>,
  call: GeminiCall | undefined,
  profile: GeminiModelProfile,
  refused: ValidationIssue[],
  warnings: string[],
  others: GeminiPart[],
): GeminiPart {
  const texts: string[] = [];
  const media: GeminiPart[] = [];
  if (typeof result.content === "string") texts.push(result.content);
  else {
    result.content.forEach((part, position) => {
      if (part.type === "text") texts.push(part.text);
      else {
        const written = geminiPartOf(part, `${result.where}[${position}]`, refused);
        if (written) media.push(written);
      }
    });
  }
  const text = texts.join("");
  const functionResponse: GeminiPart["functionResponse"] = {
    name: call?.name ?? "",
    response: result.isError ? { error: text } : { output: text },
  };
  if (call?.id !== undefined) functionResponse.id = call.id;
  if (media.length > 0) {
    if (profile.mediaInResults) functionResponse.parts = media;
    else {
      warnings.push(
        `${result.where}: ${profile.family} takes no media in a function response; its ${media.length} part(s) follow it in the same turn`,
      );
      others.push(...media);
    }
  }
  return { functionResponse };
}

function assistantPieces(
  raw: Record<string, unknown>,
  index: number,
  target: GeminiReplayTarget,
  profile: GeminiModelProfile,
  writer: NeutralBlockWriter<Piece>,
  warnings: string[],
): Piece[] {
  return replayOrRebuild(raw, index, { protocol: GOOGLE_GEMINI, ...target }, warnings, {
    replay: (blocks) => replayNative(blocks, raw, index, warnings),
    rebuild: () => {
      droppedThoughts(raw, index, warnings);
      const pieces = assistantBlocksOf(raw, index, writer, warnings);
      // Gemini 3 validates the first call of a step: a call with no signature of this model's gets the
      // documented placeholder instead of a 400.
      const first = pieces.find((piece) => piece.call !== undefined);
      if (first?.part && profile.requiresSignatures) {
        first.part = { ...first.part, thoughtSignature: SKIP_THOUGHT_SIGNATURE };
      }
      return pieces;
    },
    isEmpty: (pieces) => pieces.length === 0,
  });
}

/** The warning for thoughts and signatures of a Gemini turn that is not replayed. */
function droppedThoughts(raw: Record<string, unknown>, index: number, warnings: string[]): void {
  const native = raw.native;
  if (!isRecord(native) || native.protocol !== GOOGLE_GEMINI || !Array.isArray(native.blocks)) return;
  let thoughts = 0;
  let signatures = 0;
  for (const block of native.blocks as unknown[]) {
    if (!isRecord(block)) continue;
    if (block.thought === true) thoughts++;
    if (typeof block.thoughtSignature === "string") signatures++;
  }
  if (thoughts + signatures > 0) {
    warnings.push(
      `messages[${index}]: ${thoughts} thought part(s) and ${signatures} thought signature(s) dropped (bound to the model and endpoint that made them)`,
    );
  }
}

/** `native.blocks` as sent: the parts verbatim and in order, minus what the API would reject. */
function replayNative(
  blocks: readonly NativeBlock[],
  raw: Record<string, unknown>,
  index: number,
  warnings: string[],
): Piece[] {
  const neutralCalls = Array.isArray(raw.toolCalls) ? (raw.toolCalls as unknown[]) : [];
  const pieces: Piece[] = [];
  let calls = 0;
  for (const { block, where } of blocks) {
    const part = block as GeminiPart;
    if ("functionResponse" in part) {
      warnings.push(`${where}: a function response in a model turn; left out`);
      continue;
    }
    if ("functionCall" in part) {
      const call = part.functionCall;
      if (!isPlainObject(call) || !isNonEmptyString(call.name)) {
        warnings.push(`${where}: functionCall without a name; left out`);
        continue;
      }
      const neutral = neutralCalls[calls];
      const id = isRecord(neutral) && isNonEmptyString(neutral.id) ? neutral.id : undefined;
      calls++;
      const sent =
        call.args === undefined || isPlainObject(call.args)
          ? part
          : { ...part, functionCall: { ...call, args: {} } };
      if (sent !== part) warnings.push(`${where}: functionCall args are not an object; sent as {}`);
      pieces.push({
        part: sent,
        call: id ?? (isNonEmptyString(call.id) ? call.id : `native_${index}_${calls}`),
      });
      continue;
    }
    const hasData =
      DATA_FIELDS.some((field) => field in part) ||
      Object.keys(part).some((key) => key !== "text" && key !== "thought" && key !== "thoughtSignature");
    if (typeof part.text === "string") {
      // "" alone is an empty part the API rejects; with a signature it carries the signature back.
      const carries = DATA_FIELDS.some((field) => field in part);
      if (part.text === "" && typeof part.thoughtSignature !== "string" && !carries) continue;
      pieces.push({ part });
      continue;
    }
    if (!hasData) {
      if (typeof part.thoughtSignature !== "string") {
        warnings.push(`${where}: a part without any data; left out`);
        continue;
      }
      // A signature alone is a part without data, which the API rejects: it goes back the way responses
      // carry one, on an empty text.
      pieces.push({ part: { text: "", ...part } });
      continue;
    }
    // inlineData (generated images), executableCode, server tool parts, kinds this version does not know.
    pieces.push({ part });
  }
  return pieces;
}

/** The pieces neutral fields become, for `userBlocksOf` and `assistantBlocksOf`. */
function neutralWriter(refused: ValidationIssue[]): NeutralBlockWriter<Piece> {
  return {
    text: (text) => ({ part: { text } }),
    part: (part, where) => {
      const written = geminiPartOf(part, where, refused);
      return written ? { part: written } : undefined;
    },
    toolCall: (id, name, input) => ({ part: { functionCall: { name, args: input } }, call: id }),
    toolResult: (callId, content, isError, where) => ({ result: { id: callId, content, isError, where } }),
  };
}

/** A result answering no call, as text: its header and text, then its media. */
function orphanPieces(piece: Piece, refused: ValidationIssue[]): Piece[] {
  const result = piece.result;
  if (!result) return [piece];
  const content = orphanResultText(result.id, result.content, result.isError);
  if (typeof content === "string") return [{ part: { text: content } }];
  const pieces: Piece[] = [];
  content.forEach((part, position) => {
    if (part.type === "text") {
      if (!isBlank(part.text)) pieces.push({ part: { text: part.text } });
    } else {
      // Part 0 is the header put in front of the result's own parts.
      const written = geminiPartOf(part, `${result.where}[${position - 1}]`, refused);
      if (written) pieces.push({ part: written });
    }
  });
  return pieces;
}

/** Pieces, for `repairTurns`: ids are the neutral ones (never sent unless the model gave them). */
function piecesOf(refused: ValidationIssue[]): TurnBlocks<Piece> {
  return {
    callId: (piece) => piece.call,
    resultId: (piece) => piece.result?.id,
    withCallId: (piece, id) => ({ ...piece, call: id }),
    withResultId: (piece, id) => (piece.result ? { ...piece, result: { ...piece.result, id } } : piece),
    orphanToText: (piece) => orphanPieces(piece, refused),
    missingResult: (id) => ({
      result: { id, content: MISSING_TOOL_RESULT, isError: true, where: "(added result)" },
    }),
    // Gemini takes a final model turn as it is: nothing to trim.
    text: () => undefined,
    maxIdLength: Number.POSITIVE_INFINITY,
    prefillWarning: "",
  };
}
