/**
 * Gateway authentication: `Authorization: Bearer <token>` checked against the `GATEWAY_TOKENS` secret
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
 * Whether `header` (an `Authorization` value) carries one of `tokens`. Every token is compared, each in
 * constant time over SHA-256 digests (equal length whatever the inputs), so timing says nothing about how
 * much of a token matched, or which one.
 */
export async function isAuthorized(
  header: string | null | undefined,
  tokens: readonly string[],
): Promise<boolean> {
  if (tokens.length === 0 || typeof header !== "string") return false;
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (!match) return false;
  const presented = await digest(match[1]!.trim());
  let authorized = false;
  for (const token of tokens) {
    if (constantTimeEqual(presented, await digest(token))) authorized = true;
  }
  return authorized;
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
