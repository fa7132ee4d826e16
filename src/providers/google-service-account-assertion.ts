/**
 * `serviceAccountAssertion()`: the signed JWT a Google service account trades for an OAuth access token
 * (the "JWT bearer" grant, RFC 7523), made with Web Crypto alone — RS256 is RSASSA-PKCS1-v1_5 with
 * SHA-256 over `base64url(header).base64url(claims)`. No Google auth library, no Node API: it runs in
 * Workers, Deno, Bun and Node alike.
 *
 * @see https://developers.google.com/identity/protocols/oauth2/service-account#authorizingrequests
 * @module
 */
import { bytesToBase64url } from "../core/base64.ts";

/** What the assertion says, besides the key that signs it. */
export interface ServiceAccountClaims {
  /** The service account's `client_email` (`iss`). */
  issuer: string;
  /** The token endpoint (`aud`): the key file's `token_uri`. */
  audience: string;
  /** Space-separated OAuth scopes (`scope`). */
  scope: string;
  /** The key's `private_key_id` (header `kid`), when the key file has one. */
  keyId?: string | undefined;
  /** Issued at, in seconds since the epoch (`iat`); `exp` is one hour later, the longest Google takes. */
  issuedAt: number;
}

/** How long an assertion is valid: Google refuses one whose `exp` is more than an hour after `iat`. */
export const ASSERTION_LIFETIME_S = 3600;

const encoder = new TextEncoder();

/**
 * The compact JWT `header.claims.signature`, signed with `key` (an RSASSA-PKCS1-v1_5 / SHA-256 private
 * key, from `crypto.subtle.importKey("pkcs8", …)`). Header `{ alg: "RS256", typ: "JWT", kid }`, claims
 * `{ iss, scope, aud, iat, exp: iat + 3600 }`, each part base64url without padding. Rejects only when Web
 * Crypto does (a key of the wrong kind).
 */
export async function serviceAccountAssertion(key: CryptoKey, claims: ServiceAccountClaims): Promise<string> {
  const header: Record<string, string> = { alg: "RS256", typ: "JWT" };
  if (claims.keyId) header.kid = claims.keyId;
  const payload = {
    iss: claims.issuer,
    scope: claims.scope,
    aud: claims.audience,
    iat: claims.issuedAt,
    exp: claims.issuedAt + ASSERTION_LIFETIME_S,
  };
  const input = `${bytesToBase64url(encoder.encode(JSON.stringify(header)))}.${bytesToBase64url(encoder.encode(JSON.stringify(payload)))}`;
  const signature = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", key, encoder.encode(input));
  return `${input}.${bytesToBase64url(new Uint8Array(signature))}`;
}
