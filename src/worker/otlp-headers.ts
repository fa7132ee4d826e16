/**
 * `OTEL_EXPORTER_OTLP_HEADERS`, read as the OpenTelemetry SDKs read it.
 *
 * @module
 */

/** Parses `OTEL_EXPORTER_OTLP_HEADERS`: `k1=v1,k2=v2`, keys trimmed, values trimmed and percent-decoded. */
export function otlpHeaders(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (text ?? "").split(",")) {
    const at = pair.indexOf("=");
    if (at <= 0) continue;
    const key = pair.slice(0, at).trim();
    const raw = pair.slice(at + 1).trim();
    let value = raw;
    try {
      value = decodeURIComponent(raw);
    } catch {
      // Not percent-encoded after all: the value as written.
    }
    if (key !== "") headers[key] = value;
  }
  return headers;
}
