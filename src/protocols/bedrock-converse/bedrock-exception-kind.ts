import type { ProviderErrorKind } from "../../core/provider-error.ts";

/**
 * Exception names (lower-cased) → kind. Stream exceptions come camelCase (`throttlingException`), HTTP
 * errors PascalCase (`ThrottlingException`).
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStreamOutput.html
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ResponseStream.html
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html#API_runtime_ConverseStream_Errors
 */
const KINDS = new Map<string, ProviderErrorKind>([
  ["throttlingexception", "rate_limit"],
  ["servicequotaexceededexception", "rate_limit"],
  ["serviceunavailableexception", "overloaded"],
  ["modelnotreadyexception", "overloaded"],
  ["modelstreamerrorexception", "server"],
  ["modelerrorexception", "server"],
  ["internalserverexception", "server"],
  ["validationexception", "bad_request"],
  ["accessdeniedexception", "auth"],
  // AWS-wide authentication failures (403), seen before any Bedrock code runs.
  ["unrecognizedclientexception", "auth"],
  ["invalidsignatureexception", "auth"],
  ["expiredtokenexception", "auth"],
  ["missingauthenticationtokenexception", "auth"],
  ["resourcenotfoundexception", "not_found"],
  ["modeltimeoutexception", "timeout"],
]);

/**
 * A Bedrock exception name as it arrives — `:exception-type` of a stream frame (`throttlingException`), the
 * `x-amzn-errortype` header (`ThrottlingException:http://internal.amazon.com/coral/...`) or a body's
 * `__type` (`com.amazon.coral#ThrottlingException`) — → the bare name and, when the name is known, its kind.
 * Case of the first letter, a trailing `:<url>` and a leading `<namespace>#` do not matter; a blank name is
 * no name.
 */
export function bedrockExceptionKind(raw: string | undefined): {
  code: string | undefined;
  kind: ProviderErrorKind | undefined;
} {
  const code = exceptionName(raw);
  // Own keys of a Map only: "constructor" or "__proto__" name no kind.
  return { code, kind: code ? KINDS.get(code.toLowerCase()) : undefined };
}

/** `ns#ThrottlingException:http://…` → `ThrottlingException`; blank → undefined. */
function exceptionName(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  let name = raw.trim();
  const colon = name.indexOf(":");
  if (colon !== -1) name = name.slice(0, colon);
  name = name.slice(name.lastIndexOf("#") + 1);
  return name || undefined;
}
