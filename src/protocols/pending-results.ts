/**
 * Tool-result bookkeeping for the message protocols, where each result is its own item right after the
 * assistant turn that made the call (OpenAI Chat's `role: "tool"` messages, Responses'
 * `function_call_output` items), written once over the protocol's item shapes. Both APIs reject the same
 * things — a call left unanswered before the next message, a result naming no call of the turn before —
 * so both repair them alike: an unanswered call gets an error result, a result without a call id is bound
 * to the first open call, a result answering no call goes as user text (held until the open calls are
 * answered, since text would end the run of results). Total, like the converters.
 *
 * @module
 */
import type { Content } from "../core/content.ts";
import {
  clipped,
  contentOf,
  isNonEmptyString,
  isRecord,
  MISSING_TOOL_RESULT,
  orphanResultText,
  shown,
} from "./stored-history.ts";

/** A call of the turn before, waiting for its result. */
export interface PendingCall {
  /** The id the neutral history uses (what results name). */
  original: string;
  /** The id sent (differs when the original was taken or missing). */
  sent: string;
}

/** How one protocol writes a result and a text item. */
export interface ResultItems<C extends PendingCall, Item> {
  /**
   * The result of `call` (`output` says `Error: …` when the tool failed): text, or valid parts; `where`
   * names the result's content for the protocol's warnings and refusals. `added` is how many parts were
   * put in front of the result's own (the `Error:` marker: 0 or 1), so that part `i` of `output` is part
   * `i - added` of `where`.
   */
  output(call: C, output: Content, where: string, added: number): Item;
  /**
   * A user item: text, or valid parts — a result answering no call, with its header part put in front
   * (`added`: 0 for text, 1 for parts, as in {@link output}).
   */
  text(content: Content, where: string, added: number): Item;
}

/** The open calls of one request being converted, and the results and texts it writes to `out`. */
export class PendingResults<C extends PendingCall, Item> {
  #pending: C[] = [];
  /** Results answering no call, as user text, held while calls are still open. */
  #orphans: Item[] = [];

  readonly #out: Item[];
  readonly #items: ResultItems<C, Item>;
  readonly #warnings: string[];

  /** Results and texts go to `out`, in order; what had to be repaired is said in `warnings`. */
  constructor(out: Item[], items: ResultItems<C, Item>, warnings: string[]) {
    this.#out = out;
    this.#items = items;
    this.#warnings = warnings;
  }

  /**
   * The calls of the assistant turn just written, to be answered next (call {@link flush} before writing
   * the turn: the calls of the turn before it must be closed first).
   */
  open(calls: readonly C[]): void {
    this.#pending = [...calls];
  }

  /**
   * The stored `toolResults` of message `index`, each answering an open call (by its original id, then by
   * the id sent; without an id, the first open call). A result that is not an object is left out, one
   * answering no call is sent as user text; both with a warning. Never throws.
   */
  answerAll(results: unknown, index: number): void {
    const list = Array.isArray(results) ? results : [];
    list.forEach((result: unknown, position) => {
      const where = `messages[${index}].toolResults[${position}]`;
      if (!isRecord(result)) {
        this.#warnings.push(`${where}: not a tool result; left out`);
        return;
      }
      this.#answer(
        result.callId,
        contentOf(result.content, `${where}.content`, this.#warnings),
        result.isError === true,
        where,
      );
    });
  }

  /**
   * Closes the open calls: each gets an error result ({@link MISSING_TOOL_RESULT}, warned), then the held
   * texts go out. Call it before anything that is not a result (text, a system message, the next turn).
   */
  flush(): void {
    if (this.#pending.length > 0) {
      this.#warnings.push(
        `tool call(s) ${this.#pending.map((call) => clipped(call.sent)).join(", ")} have no recorded result; ` +
          "answered with an error result",
      );
      for (const call of this.#pending)
        this.#out.push(this.#items.output(call, `Error: ${MISSING_TOOL_RESULT}`, "(added result)", 0));
      this.#pending = [];
    }
    this.#out.push(...this.#orphans);
    this.#orphans = [];
  }

  #answer(callId: unknown, content: Content, isError: boolean, where: string): void {
    const pending = this.#pending;
    let call: C | undefined;
    if (isNonEmptyString(callId)) {
      call =
        pending.find((candidate) => candidate.original === callId) ??
        pending.find((candidate) => candidate.sent === callId);
    } else if ((callId === undefined || callId === null || callId === "") && pending.length > 0) {
      call = pending[0];
      this.#warnings.push(
        `${where}: tool result without a call id; bound to call ${clipped(call?.sent ?? "")}`,
      );
    }
    if (call === undefined) {
      this.#warnings.push(
        `${where}: tool result for ${shown(callId)} answers no call of the turn before it; sent as text`,
      );
      const text = this.#items.text(
        orphanResultText(callId, content, isError),
        `${where}.content`,
        typeof content === "string" ? 0 : 1,
      );
      if (pending.length > 0) this.#orphans.push(text);
      else this.#out.push(text);
      return;
    }
    const answered = call;
    this.#pending = pending.filter((candidate) => candidate !== answered);
    const marked = isError ? errorMarked(content) : content;
    const added = typeof marked === "string" ? 0 : marked.length - (content as readonly unknown[]).length;
    this.#out.push(this.#items.output(answered, marked, `${where}.content`, added));
    // The turn's calls are all answered: held texts go out now, in the order they came.
    if (this.#pending.length === 0) this.flush();
  }
}

/** A failed tool's content, saying `Error: ` first unless it already does (a text part put first for parts). */
function errorMarked(content: Content): Content {
  if (typeof content === "string") return /^error\b/i.test(content) ? content : `Error: ${content}`;
  const first = content[0];
  if (first?.type === "text" && /^error\b/i.test(first.text)) return content;
  return [{ type: "text", text: "Error:" }, ...content];
}
