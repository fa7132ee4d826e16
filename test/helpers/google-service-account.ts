/**
 * A fake Google service account and token endpoint, for the Vertex tests in every runtime: an RSA key pair
 * made with the runtime's own Web Crypto (the private key exported as the PKCS#8 PEM of a key file), an
 * injected `fetch` that answers the token endpoint and hands every other request to the test, and a JWT
 * check that verifies the assertion's RS256 signature with the matching public key. No Node API.
 */

/** A key file made for the test, and the public key that verifies what it signs. */
export interface FakeServiceAccount {
  account: {
    type: "service_account";
    project_id: string;
    private_key_id: string;
    private_key: string;
    client_email: string;
    client_id: string;
    token_uri: string;
  };
  publicKey: CryptoKey;
  /** The PEM's base64 lines, each a piece of key material no error may show. */
  keyLines: string[];
}

export const TOKEN_URI = "https://oauth2.fake.test/token";
export const CLIENT_EMAIL = "modelwire-test@example-project.iam.gserviceaccount.com";
export const KEY_ID = "0123456789abcdef0123456789abcdef01234567";

let pair: Promise<CryptoKeyPair> | undefined;

/** One RSA-2048 key pair per runtime (generation is slow), as a fresh key file each call. */
export async function fakeServiceAccount(): Promise<FakeServiceAccount> {
  pair ??= crypto.subtle.generateKey(
    {
      name: "RSASSA-PKCS1-v1_5",
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    },
    true,
    ["sign", "verify"],
  ) as Promise<CryptoKeyPair>;
  const { privateKey, publicKey } = await pair;
  const der = new Uint8Array(await crypto.subtle.exportKey("pkcs8", privateKey));
  const base64 = btoa(String.fromCharCode(...der));
  const keyLines = base64.match(/.{1,64}/g) ?? [];
  const pem = `-----BEGIN PRIVATE KEY-----\n${keyLines.join("\n")}\n-----END PRIVATE KEY-----\n`;
  return {
    account: {
      type: "service_account",
      project_id: "example-project",
      private_key_id: KEY_ID,
      private_key: pem,
      client_email: CLIENT_EMAIL,
      client_id: "100000000000000000001",
      token_uri: TOKEN_URI,
    },
    publicKey,
    keyLines,
  };
}

/** A decoded JWT: its parts, and whether the signature verifies with the public key. */
export interface CheckedJwt {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  verified: boolean;
  /** The signature's length in bytes (256 for RSA-2048). */
  signatureBytes: number;
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error(`not base64url: ${text.slice(0, 20)}`);
  const standard = text.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(standard + "=".repeat((4 - (standard.length % 4)) % 4));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

/** Decodes `jwt` and verifies its RS256 signature with `publicKey`. */
export async function checkJwt(jwt: string, publicKey: CryptoKey): Promise<CheckedJwt> {
  const parts = jwt.split(".");
  if (parts.length !== 3) throw new Error(`a JWT has three parts, got ${parts.length}`);
  const [header, claims, signature] = parts as [string, string, string];
  const decoder = new TextDecoder();
  const signatureBytes = fromBase64url(signature);
  const verified = await crypto.subtle.verify(
    "RSASSA-PKCS1-v1_5",
    publicKey,
    signatureBytes,
    new TextEncoder().encode(`${header}.${claims}`),
  );
  return {
    header: JSON.parse(decoder.decode(fromBase64url(header))) as Record<string, unknown>,
    claims: JSON.parse(decoder.decode(fromBase64url(claims))) as Record<string, unknown>,
    verified,
    signatureBytes: signatureBytes.length,
  };
}

/** One request the fake saw. */
export interface SeenRequest {
  url: string;
  method: string;
  headers: Headers;
  text: string;
}

/** One token exchange the fake saw: the form fields, and the assertion. */
export interface SeenExchange extends SeenRequest {
  form: URLSearchParams;
  assertion: string;
}

/** How the fake token endpoint answers an exchange (a Response, or the token and lifetime). */
export type TokenAnswer = Response | { token?: string; expiresIn?: number };

/**
 * A `fetch` serving `TOKEN_URI` (each exchange recorded, answered by `token`, which may wait on a promise
 * the test holds) and handing every other request to `api`.
 */
export function fakeGoogle(options: {
  token?: (exchange: SeenExchange, count: number) => TokenAnswer | Promise<TokenAnswer>;
  api?: (request: SeenRequest) => Response | Promise<Response>;
}) {
  const exchanges: SeenExchange[] = [];
  const calls: SeenRequest[] = [];
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const seen: SeenRequest = {
      url: request.url,
      method: request.method,
      headers: request.headers,
      text: await request.text(),
    };
    if (seen.url === TOKEN_URI) {
      const form = new URLSearchParams(seen.text);
      const exchange: SeenExchange = { ...seen, form, assertion: form.get("assertion") ?? "" };
      exchanges.push(exchange);
      const answer: TokenAnswer = await (options.token ?? (() => ({})))(exchange, exchanges.length);
      if (answer instanceof Response) return answer;
      return Response.json({
        access_token: answer.token ?? `ya29.fake-access-token-${exchanges.length}-0123456789`,
        expires_in: answer.expiresIn ?? 3599,
        token_type: "Bearer",
      });
    }
    calls.push(seen);
    if (!options.api) return new Response("no api handler", { status: 500 });
    return options.api(seen);
  }) as typeof fetch;
  return { fetch: fetchImpl, exchanges, calls };
}

/** A clock the test moves: `now()` in ms, `advance(ms)`. */
export function fakeClock(start = Date.UTC(2026, 0, 15, 12, 0, 0)) {
  let current = start;
  return {
    now: () => current,
    advance: (ms: number) => {
      current += ms;
    },
  };
}

/**
 * Every text field of an error (message, upstream body, code, request id, its JSON, and the same after
 * JSON- and percent-unescaping), for checks that no piece of a secret is in any of them.
 */
export function errorTexts(error: unknown): string[] {
  const record = error as Record<string, unknown>;
  const raw = [
    String(record?.message ?? ""),
    String(record?.upstreamBody ?? ""),
    String(record?.code ?? ""),
    String(record?.requestId ?? ""),
    String(record?.model ?? ""),
    JSON.stringify(typeof record?.toJSON === "function" ? (record.toJSON as () => unknown)() : record),
    String((record?.cause as { message?: unknown } | undefined)?.message ?? ""),
  ];
  const texts: string[] = [];
  for (const text of raw) {
    texts.push(text);
    texts.push(text.replace(/\\n/g, "\n").replace(/\\\//g, "/"));
    try {
      texts.push(decodeURIComponent(text));
    } catch {
      // Not percent-encoded.
    }
  }
  return texts;
}

/** The first `length`-character window of any of `secrets` found in `texts`, or undefined. */
export function leakedPiece(
  texts: readonly string[],
  secrets: readonly string[],
  length = 16,
): string | undefined {
  for (const secret of secrets) {
    for (let start = 0; start + length <= secret.length; start += 4) {
      const piece = secret.slice(start, start + length);
      if (texts.some((text) => text.includes(piece))) return piece;
    }
  }
  return undefined;
}
