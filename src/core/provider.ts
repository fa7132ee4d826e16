/**
 * The provider contract. Every adapter (Anthropic, OpenAI, Bedrock, a self-hosted server) and every wrapper
 * (fallback, retry) implements it, so loops are written once and wrappers nest.
 *
 * @module
 */
import type { CallOptions } from "./call-options.ts";
import type { MessageInput } from "./message.ts";
import type { Response } from "./response.ts";
import type { StreamEvent } from "./stream-event.ts";
import type { ToolSpecInput } from "./tool-spec.ts";

/** Something that answers a conversation: a model behind a protocol, or a wrapper around other providers. */
export interface Provider {
  /** Provider name, e.g. `"anthropic"`, `"bedrock"`, `"fake"`; it becomes `Response.provider`. */
  readonly name: string;
  /** The model it calls. */
  readonly model: string;
  /** The wire protocol it speaks, e.g. `"anthropic-messages"`, `"openai-chat"`. */
  readonly protocol: string;
  /**
   * One whole response. Rejects with a `ProviderError`.
   */
  complete(
    messages: readonly MessageInput[],
    tools?: readonly ToolSpecInput[],
    options?: CallOptions,
  ): Promise<Response>;
  /**
   * The response as it is produced. The last event is `{ type: "done", response }`, whose `response` equals
   * what `complete()` returns for the same output. A failure throws a `ProviderError` from the iteration;
   * breaking out of the loop cancels the request.
   */
  stream(
    messages: readonly MessageInput[],
    tools?: readonly ToolSpecInput[],
    options?: CallOptions,
  ): AsyncIterable<StreamEvent>;
}
