/**
 * `vertexURL()`: where a Vertex AI model's method is, by location, project and publisher.
 *
 * @see https://cloud.google.com/vertex-ai/docs/reference/rest#service-endpoint
 * @module
 */
import { endpointURL } from "./http.ts";

/** What a Vertex AI model URL is made of. */
export interface VertexURLParts {
  /** `"v1"` (default) or `"v1beta1"`. */
  apiVersion: string;
  /** The publisher of the model: `"google"` (Gemini), `"anthropic"` (Claude). */
  publisher: string;
  model: string;
  /** `rawPredict`, `streamRawPredict`, `generateContent`, `streamGenerateContent`, … */
  method: string;
  /** The Google Cloud project; unset in express mode (an API key, no project). */
  project?: string | undefined;
  /** `"global"`, a multi-region (`"us"`, `"eu"`) or a region (`"us-east5"`); unset in express mode. */
  location?: string | undefined;
  /** Replaces `https://{host}/{apiVersion}` (a proxy, a private endpoint, a fake in tests). */
  baseURL?: string | undefined;
  /** A query string without `?` (`alt=sse`). */
  query?: string | undefined;
}

/**
 * The URL of `method` on a Vertex AI model:
 * `https://{host}/{apiVersion}/projects/{project}/locations/{location}/publishers/{publisher}/models/{model}:{method}`.
 * The host follows the location: `aiplatform.googleapis.com` for `global`,
 * `aiplatform.{us|eu}.rep.googleapis.com` for the multi-regions, `{location}-aiplatform.googleapis.com`
 * for a region. Without a project (express mode): `https://aiplatform.googleapis.com/{apiVersion}/publishers/{publisher}/models/{model}:{method}`.
 */
export function vertexURL(parts: VertexURLParts): string {
  const scope =
    parts.project === undefined ? "" : `projects/${parts.project}/locations/${parts.location ?? "global"}/`;
  const base =
    parts.baseURL ??
    `https://${vertexHost(parts.project === undefined ? "global" : parts.location)}/${parts.apiVersion}`;
  const url = endpointURL(
    base,
    `${scope}publishers/${parts.publisher}/models/${parts.model}:${parts.method}`,
  );
  if (!parts.query) return url;
  return `${url}${url.includes("?") ? "&" : "?"}${parts.query}`;
}

/** The API host of a location. */
function vertexHost(location: string | undefined): string {
  if (location === undefined || location === "global") return "aiplatform.googleapis.com";
  if (location === "us" || location === "eu") return `aiplatform.${location}.rep.googleapis.com`;
  return `${location}-aiplatform.googleapis.com`;
}
