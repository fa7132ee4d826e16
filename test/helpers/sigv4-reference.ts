/**
 * A tiny reference Signature Version 4, written from AWS's specification with nothing but Web Crypto, to
 * check what aws4fetch signs — independently of it. Non-S3 rules: the canonical URI is the path as sent
 * with every segment URI-encoded once more (so `%3A` on the wire is `%253A` in the canonical request).
 * No Node API: the runtime cases use it too.
 *
 * @see https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html
 * @module
 */

const encoder = new TextEncoder();

export interface ReferenceSigV4Input {
  method: string;
  url: string;
  /** The request's headers (the `host` header is taken from the URL when absent). */
  headers: Headers | Record<string, string>;
  body: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  service: string;
  /** `YYYYMMDD'T'HHMMSS'Z'` */
  amzDate: string;
  /** Lower-case names of the headers to sign, in any order. */
  signedHeaders: readonly string[];
}

export interface ReferenceSigV4Result {
  canonicalRequest: string;
  stringToSign: string;
  signature: string;
  authorization: string;
}

/** RFC 3986 percent-encoding of every byte outside the unreserved set (`A-Z a-z 0-9 - . _ ~`). */
export function uriEncode(text: string): string {
  let out = "";
  for (const byte of encoder.encode(text)) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

function hex(buffer: ArrayBuffer): string {
  return [...new Uint8Array(buffer)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

async function sha256Hex(text: string): Promise<string> {
  return hex(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

async function hmac(key: Uint8Array<ArrayBuffer> | ArrayBuffer, text: string): Promise<ArrayBuffer> {
  const cryptoKey = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  return crypto.subtle.sign("HMAC", cryptoKey, encoder.encode(text));
}

/** Computes the SigV4 `Authorization` header for a request. */
export async function referenceSigV4(input: ReferenceSigV4Input): Promise<ReferenceSigV4Result> {
  const url = new URL(input.url);
  const headers = new Headers(input.headers);
  if (!headers.has("host")) headers.set("host", url.host);
  // The path exactly as it goes on the wire, each segment encoded once more.
  const canonicalUri = url.pathname
    .split("/")
    .map((segment) => uriEncode(segment))
    .join("/");
  const query = [...url.searchParams]
    .map(([key, value]) => [uriEncode(key), uriEncode(value)] as const)
    .sort(([k1, v1], [k2, v2]) => (k1 < k2 ? -1 : k1 > k2 ? 1 : v1 < v2 ? -1 : v1 > v2 ? 1 : 0))
    .map(([key, value]) => `${key}=${value}`)
    .join("&");
  const signed = [...input.signedHeaders].map((name) => name.toLowerCase()).sort();
  const canonicalHeaders = signed
    .map((name) => `${name}:${(headers.get(name) ?? "").trim().replace(/\s+/g, " ")}\n`)
    .join("");
  const canonicalRequest = [
    input.method.toUpperCase(),
    canonicalUri,
    query,
    canonicalHeaders,
    signed.join(";"),
    await sha256Hex(input.body),
  ].join("\n");
  const date = input.amzDate.slice(0, 8);
  const scope = `${date}/${input.region}/${input.service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", input.amzDate, scope, await sha256Hex(canonicalRequest)].join(
    "\n",
  );
  let key = await hmac(encoder.encode(`AWS4${input.secretAccessKey}`), date);
  key = await hmac(key, input.region);
  key = await hmac(key, input.service);
  key = await hmac(key, "aws4_request");
  const signature = hex(await hmac(key, stringToSign));
  return {
    canonicalRequest,
    stringToSign,
    signature,
    authorization: `AWS4-HMAC-SHA256 Credential=${input.accessKeyId}/${scope}, SignedHeaders=${signed.join(";")}, Signature=${signature}`,
  };
}

/** The parts of an `Authorization: AWS4-HMAC-SHA256 …` header. */
export function parseAuthorization(header: string): {
  credential: string;
  signedHeaders: string[];
  signature: string;
} {
  const match = /^AWS4-HMAC-SHA256 Credential=([^,]+), SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
    header,
  );
  if (!match) throw new Error(`not a SigV4 Authorization header: ${header}`);
  return { credential: match[1]!, signedHeaders: match[2]!.split(";"), signature: match[3]! };
}
