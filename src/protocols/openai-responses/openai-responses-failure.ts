import { ProviderError } from "../../core/provider-error.ts";
import { mapOpenAIChatError } from "../openai-chat/map-openai-chat-error.ts";

/** Who a failure is reported for. */
export interface OpenAIResponsesErrorSource {
  provider: string;
  model: string;
}

/**
 * A failure reported inside a 200 response → `ProviderError`, with the kind read by the shared OpenAI error
 * mapping (`mapOpenAIChatError`): an `error` stream event (OpenAI nests `{ error: { type, code, message } }`;
 * some servers put `code` / `message` at the top level), or the `error` of a `failed` response
 * (`{ code, message }`). `insufficient_quota` → `rate_limit`, not retryable; `rate_limit_exceeded` →
 * `rate_limit`; `context_length_exceeded` → `context_length`; an unknown code → `server`.
 */
export function openAIResponsesFailure(
  error: unknown,
  source: OpenAIResponsesErrorSource,
  what: "stream error" | "response failed",
  partialOutput: boolean,
  upstream: unknown,
): ProviderError {
  const record = isRecord(error) ? error : {};
  const nested = isRecord(record.error) ? record.error : record;
  const info = mapOpenAIChatError(undefined, {
    error: {
      message: typeof nested.message === "string" && nested.message !== "" ? nested.message : what,
      code: nested.code ?? undefined,
      type: nested.type ?? undefined,
    },
  });
  return new ProviderError({
    kind: info.kind,
    message: `${source.provider} ${what}: ${info.message}`,
    code: info.code,
    retryable: info.retryable,
    provider: source.provider,
    model: source.model,
    upstreamBody: typeof upstream === "string" ? upstream : safeJson(upstream),
    partialOutput,
  });
}

function safeJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
