/**
 * Gateway authentication: `Authorization: Bearer <token>` (or `x-api-key: <token>`) checked against the `GATEWAY_TOKENS` secret
 * (comma-separated), in constant time. With no token configured every authenticated route is refused: the
 * gateway never runs open.
 *
 * @module
 */

const encoder = new TextEncoder();

/** The tokens of a `GATEWAY_TOKENS` value: comma-separated, trimmed, empty entries ignored. */
export function gatewayTokens(value: string | undefined): string[] {
  if (typeof value !== "string") return [];
  return value
    .split(",")
    .map((token) => token.trim())
    .filter((token) => token !== "");
}

/**
 * Whether `header` (an `Authorization` value), or else `apiKey` (an `x-api-key` value), carries one of
 * `tokens`. Every token is compared, each in
 * constant time over SHA-256 digests (equal length whatever the inputs), so timing says nothing about how
 * much of a token matched, or which one.
 */
export async function isAuthorized(
  header: string | null | undefined,
  tokens: readonly string[],
  apiKey?: string | null,
): Promise<boolean> {
  if (tokens.length === 0) return false;
  const token = presentedToken(header, apiKey);
  if (token === undefined) return false;
  const presented = await digest(token);
  let authorized = false;
  for (const token of tokens) {
    if (constantTimeEqual(presented, await digest(token))) authorized = true;
  }
  return authorized;
}

/**
 * The token a request presents: `Authorization: Bearer <token>`, else `x-api-key: <token>` (Anthropic
 * clients send the key there: Claude Code with `ANTHROPIC_API_KEY`).
 */
export function presentedToken(
  authorization: string | null | undefined,
  apiKey?: string | null,
): string | undefined {
  if (typeof authorization === "string") {
    const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
    if (match) return match[1]!.trim();
  }
  if (typeof apiKey === "string" && apiKey.trim() !== "") return apiKey.trim();
  return undefined;
}

async function digest(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index++) difference |= a[index]! ^ b[index]!;
  return difference === 0;
}
