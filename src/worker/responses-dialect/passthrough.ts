/**
 * A Responses request passed through to a route member that speaks the Responses protocol (its
 * `native` endpoint): the client's body sent as it is (the provider sets its model and `stream`), the
 * upstream's JSON answered as it came, its events sent on as they came — `event: <type>` and the
 * upstream's JSON text — so reasoning items, hosted tools and fields the gateway does not model reach the
 * client byte for byte.
 *
 * The upstream's stream is still checked by the Responses assembler (`NativeEndpoint`): an upstream
 * `error` or `response.failed`, or a stream cut before its terminal event, fails it. The failure's frames
 * continue the upstream's numbering (every event's `sequence_number` is read as it passes): a flat
 * `error` and `response.failed`, as for a converted route.
 *
 * Stateless like every route ({@link passthroughBody}): `store` absent is sent as `false` (OpenAI's own
 * default would store the response), `conversation` and `background: true` are refused as on a converted
 * route, and a reasoning item whose `encrypted_content` is the gateway's own envelope (written when an
 * earlier turn ran on another route of a pool) is left out — OpenAI cannot verify it and would refuse the
 * whole request — with a warning in `x-modelwire-warnings`.
 *
 * @module
 */
import type { ProviderError } from "../../core/provider-error.ts";
import type { StructuredOutputError } from "../../core/structured-output.ts";
import { ValidationError, type ValidationIssue } from "../../core/validation-error.ts";
import type { NativeEndpoint, NativeEvent } from "../../providers/native.ts";
import { isEnvelope } from "../reasoning-envelope.ts";
import { dialectHeaders } from "../response-headers.ts";
import type { Frame, OpenedFrames } from "../write-sse.ts";
import { type ResponseBase, responseObject, type WireObject } from "./response.ts";
import { responsesFailureFrames } from "./stream.ts";

/**
 * The client's body as a passthrough sends it: `store: false` unless the client set it, without the
 * reasoning items that carry the gateway's envelope (each left out with a warning). `conversation` and
 * `background: true` are refused (a `ValidationError` naming them): the gateway keeps no state, whatever the
 * route. The body itself is never changed; a copy is made when something differs.
 */
export function passthroughBody(body: Record<string, unknown>, warnings: string[]): Record<string, unknown> {
  const issues: ValidationIssue[] = [];
  if (body.conversation !== undefined && body.conversation !== null)
    issues.push({
      path: "conversation",
      message: "the gateway stores no conversations: send the whole input each turn",
    });
  if (body.background === true)
    issues.push({ path: "background", message: "background responses are not supported" });
  if (issues.length > 0) throw new ValidationError(issues);
  const sent: Record<string, unknown> = { ...body };
  if (body.store === undefined || body.store === null) sent.store = false;
  if (Array.isArray(body.input)) {
    const input = body.input as unknown[];
    const carried = (item: unknown) => {
      const value = item as { type?: unknown; encrypted_content?: unknown } | null;
      return (
        typeof value === "object" &&
        value !== null &&
        value.type === "reasoning" &&
        isEnvelope(value.encrypted_content)
      );
    };
    if (input.some(carried)) {
      sent.input = input.filter((item, index) => {
        if (!carried(item)) return true;
        warnings.push(
          `input[${index}]: reasoning the gateway carried for another route cannot be verified by a Responses upstream; left out`,
        );
        return false;
      });
    }
  }
  return sent;
}

/** The complete answer of a passthrough: the upstream's JSON text, as it came. */
export async function passthroughJSON(
  native: NativeEndpoint,
  body: Record<string, unknown>,
  signal: AbortSignal | undefined,
): Promise<Response> {
  const warnings: string[] = [];
  const sent = passthroughBody(body, warnings);
  const answer = await native.send({ body: sent, stream: false, signal });
  return new Response(answer.json ?? "", {
    status: answer.status,
    headers: {
      "content-type": "application/json",
      ...dialectHeaders([...warnings, ...answer.warnings], answer.droppedBetas),
    },
  });
}

/** One passthrough stream: the upstream's events on, and the frames that end it if it fails. */
export class PassthroughStream {
  /** The last `sequence_number` the upstream sent (-1 before any). */
  #sequence = -1;
  /** The response the upstream announced (`response.created` / `in_progress`), for `response.failed`. */
  #response: WireObject | undefined;
  readonly #base: ResponseBase;

  constructor(base: ResponseBase) {
    this.#base = base;
  }

  /** Sends the body as a stream; resolves once the upstream answered, with its events as frames. */
  async open(
    native: NativeEndpoint,
    body: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<OpenedFrames> {
    const warnings: string[] = [];
    const sent = passthroughBody(body, warnings);
    const answer = await native.send({ body: sent, stream: true, signal });
    const events = answer.events ?? (async function* () {})();
    return {
      frames: this.#frames(events),
      headers: dialectHeaders([...warnings, ...answer.warnings], answer.droppedBetas),
    };
  }

  async *#frames(events: AsyncIterable<NativeEvent>): AsyncGenerator<Frame, void, undefined> {
    for await (const event of events) {
      this.read(event.data);
      yield { event: event.event, data: event.data };
    }
  }

  /**
   * Keeps the numbering and the announced response of one event's JSON (every event sent goes through
   * it; a resumable stream's log replays its events through it to end an interrupted stream).
   */
  read(data: string): void {
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      return;
    }
    if (typeof value !== "object" || value === null) return;
    const { sequence_number: sequence, response, type } = value as WireObject;
    if (typeof sequence === "number" && Number.isInteger(sequence) && sequence > this.#sequence)
      this.#sequence = sequence;
    if ((type === "response.created" || type === "response.in_progress") && typeof response === "object")
      this.#response = (response ?? undefined) as WireObject | undefined;
  }

  /** `error` then `response.failed`, numbered on from the upstream's last event. */
  errorFrames = (failure: ProviderError | StructuredOutputError, expose: boolean): Frame[] =>
    responsesFailureFrames(
      failure,
      expose,
      () => ++this.#sequence,
      (error) =>
        this.#response
          ? { ...this.#response, status: "failed", error, output: [] }
          : responseObject(this.#base, { status: "failed", error, output: [] }),
    );
}
