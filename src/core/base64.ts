/**
 * Base64 with nothing but `atob` / `btoa`, which every target runtime has (Workers, Deno, Bun, Node 16+):
 * inline content parts, and the Bedrock payloads (`chunk.bytes`, `redactedContent`).
 *
 * @module
 */

/** Standard base64 (padding optional, no whitespace) → bytes. Throws a `DOMException` on bad input. */
export function base64ToBytes(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/** Bytes → standard base64 with padding. */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  // In slices: String.fromCharCode takes its arguments on the stack.
  for (let start = 0; start < bytes.length; start += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
  }
  return btoa(binary);
}

/** Bytes → base64url without padding (RFC 4648 §5): tokens, ids, JWT parts. */
export function bytesToBase64url(bytes: Uint8Array): string {
  return bytesToBase64(bytes).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/**
 * The UTF-8 text base64 `data` encodes (a plain-text document sent as text), or `undefined` when it is not
 * base64 or its bytes are not UTF-8. Never throws.
 */
export function utf8OfBase64(data: string): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(base64ToBytes(data));
  } catch {
    return undefined;
  }
}
