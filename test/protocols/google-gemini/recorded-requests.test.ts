/**
 * Requests built from neutral input, compared with what the recorded client (pydantic-ai) sent and the API
 * answered 200 to, where the two say the same thing: system instruction, text, inline and Cloud Storage
 * file parts, function declarations, temperature, structured output. Field names are compared in one
 * spelling (the API takes snake_case and camelCase alike; the recordings mix them, modelwire sends
 * camelCase), and what only pydantic-ai sends (`responseModalities: ["TEXT"]`, an empty `description`) is
 * left out of the comparison. Where they differ by design the test says so.
 */
import { describe, expect, it } from "vitest";
import { prepareResponseFormat } from "../../../src/core/structured-output.ts";
import type { ToolSpec } from "../../../src/core/tool-spec.ts";
import { buildGeminiRequest } from "../../../src/protocols/google-gemini/index.ts";
import { callsOf } from "./recorded-calls.helpers.ts";

/** One spelling of every key (snake_case → camelCase), pydantic-ai's extras left out. */
function normalized(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalized);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (key === "responseModalities") continue;
    if (key === "description" && field === "") continue;
    out[key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase())] = normalized(field);
  }
  return out;
}

function recorded(path: string): Record<string, unknown> {
  return normalized(callsOf(path)[0]!.request) as Record<string, unknown>;
}

function built(input: Omit<Parameters<typeof buildGeminiRequest>[0], "model" | "origin">, model: string) {
  const result = buildGeminiRequest({ ...input, model, origin: "gemini" });
  expect(result.warnings).toEqual([]);
  expect(result.refused).toBeUndefined();
  return normalized(result.body) as Record<string, unknown>;
}

const CAPITAL: ToolSpec = {
  name: "get_capital",
  description: "Get the capital of a country.",
  parameters: {
    additionalProperties: false,
    properties: { country: { description: "The country name.", type: "string" } },
    required: ["country"],
    type: "object",
  },
};

describe("requests built from neutral input match the recorded ones", () => {
  it("system instruction, user text, a function declaration with its JSON Schema, temperature (model_retry #0)", () => {
    const ours = built(
      {
        messages: [
          { role: "system", content: "You are a helpful chatbot." },
          { role: "user", content: "What is the capital of France?" },
        ],
        tools: [CAPITAL],
        options: { temperature: 0 },
      },
      "gemini-2.5-pro",
    );
    expect(ours).toEqual(recorded("test_google_model_retry.yaml"));
  });

  it("an inline text/plain file as inlineData (text_as_binary_content_input)", () => {
    const ours = built(
      {
        messages: [
          { role: "system", content: "You are a helpful chatbot." },
          {
            role: "user",
            content: [
              { type: "text", text: "What is the main content on this document?" },
              { type: "file", mediaType: "text/plain", data: "VGhpcyBpcyBhIHRlc3QgZG9jdW1lbnQu" },
            ],
          },
        ],
        tools: [],
        options: {},
      },
      "gemini-2.0-flash",
    );
    const theirs = recorded("test_google_model_text_as_binary_content_input.yaml");
    // pydantic-ai sends an empty generationConfig; modelwire leaves it out when nothing is set.
    expect(theirs.generationConfig).toEqual({});
    expect(ours).toEqual({ ...theirs, generationConfig: undefined });
  });

  it("a gs:// PDF as fileData, read by Vertex (url_input_DocumentUrl__gs__)", () => {
    const theirs = recorded("test_google_url_input_DocumentUrl__gs__.yaml");
    const url = (theirs.contents as { parts: { fileData?: { fileUri: string } }[] }[])[0]!.parts[1]!.fileData!
      .fileUri;
    expect(url).toMatch(/^gs:\/\//);
    const ours = built(
      {
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "What is the main content of this URL?" },
              { type: "file", url },
            ],
          },
        ],
        tools: [],
        options: {},
      },
      "gemini-2.0-flash",
    );
    expect(ours).toEqual({ ...theirs, generationConfig: undefined });
  });

  it("structured output as responseMimeType + responseJsonSchema (native_output)", () => {
    const theirs = recorded("test_google_native_output.yaml");
    const schema = (theirs.generationConfig as { responseJsonSchema: Record<string, unknown> })
      .responseJsonSchema;
    const ours = built(
      {
        messages: [{ role: "user", content: "What is the largest city in Mexico?" }],
        tools: [],
        options: {},
        format: prepareResponseFormat({ type: "json_schema", schema, name: "CityLocation" }),
      },
      "gemini-2.0-flash",
    );
    expect(ours).toEqual(theirs);
  });

  it("plain JSON mode as responseMimeType alone (prompted_output)", () => {
    const theirs = recorded("test_google_prompted_output.yaml");
    expect((theirs.generationConfig as Record<string, unknown>).responseMimeType).toBe("application/json");
    const ours = built(
      { messages: [{ role: "user", content: "x" }], tools: [], options: {}, format: { type: "json" } },
      "gemini-2.0-flash",
    );
    expect(ours.generationConfig).toEqual({ responseMimeType: "application/json" });
  });
});
