/**
 * The Gemini `generateContent` / `streamGenerateContent?alt=sse` API on the wire — the Gemini API
 * (`generativelanguage.googleapis.com`) and Gemini models on Vertex AI alike: the request body we send and
 * the response (one whole answer, or one SSE event of a stream: the same shape) we read. Plain, lenient
 * types: readers check the few fields they use, and every part they do not know (`executableCode`,
 * `toolCall`, `toolResponse`, parts of a later API version) is kept verbatim for `native.blocks`.
 *
 * @see https://ai.google.dev/api/generate-content
 * @module
 */

/** Inline bytes: base64 `data` of `mimeType`. */
export interface GeminiBlob {
  mimeType: string;
  data: string;
}

/** A file by URI (`gs://…`, an https URL, a Files API URI). */
export interface GeminiFileData {
  mimeType?: string;
  fileUri: string;
}

/** A function call the model made. `id` only when the API gave one (Vertex, some Gemini 3 answers). */
export interface GeminiFunctionCall {
  name: string;
  args?: Record<string, unknown>;
  id?: string;
  [field: string]: unknown;
}

/** A function's result, tied to its call by `name` (and `id` where the call had one). */
export interface GeminiFunctionResponse {
  name: string;
  /** A JSON object: `{ output }` for a result, `{ error }` for a failure (the API's own convention). */
  response: Record<string, unknown>;
  id?: string;
  /** Gemini 3: media the result carries. */
  parts?: GeminiPart[];
  [field: string]: unknown;
}

/**
 * One part of a content: exactly one data field (`text`, `inlineData`, `fileData`, `functionCall`,
 * `functionResponse`, or one this version does not know), plus `thought` (a thought summary) and the
 * opaque `thoughtSignature` that must go back byte for byte on the part it arrived on.
 */
export interface GeminiPart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  inlineData?: GeminiBlob;
  fileData?: GeminiFileData;
  functionCall?: GeminiFunctionCall;
  functionResponse?: GeminiFunctionResponse;
  [field: string]: unknown;
}

/** One turn: `user` (prompts and function responses) or `model`. */
export interface GeminiContent {
  role?: "user" | "model" | (string & {});
  parts?: GeminiPart[];
}

/** A function the model may call; `parametersJsonSchema` is plain JSON Schema. */
export interface GeminiFunctionDeclaration {
  name: string;
  description?: string;
  parametersJsonSchema?: Record<string, unknown>;
}

/** One entry of `tools`: function declarations (server tools such as `googleSearch` are other keys). */
export interface GeminiTool {
  functionDeclarations?: GeminiFunctionDeclaration[];
  [field: string]: unknown;
}

/** `toolConfig.functionCallingConfig`. */
export interface GeminiFunctionCallingConfig {
  mode: "AUTO" | "ANY" | "NONE" | "VALIDATED";
  /** Only with `ANY` (or `VALIDATED`): the functions the model may call. */
  allowedFunctionNames?: string[];
}

/** `generationConfig.thinkingConfig`: a budget (2.5) or a level (3.x), never both. */
export interface GeminiThinkingConfig {
  thinkingBudget?: number;
  thinkingLevel?: "MINIMAL" | "LOW" | "MEDIUM" | "HIGH";
  includeThoughts?: boolean;
}

/** `generationConfig`. */
export interface GeminiGenerationConfig {
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  stopSequences?: string[];
  responseMimeType?: string;
  /** Plain JSON Schema of the answer (with `responseMimeType: "application/json"`). */
  responseJsonSchema?: Record<string, unknown>;
  thinkingConfig?: GeminiThinkingConfig;
  [field: string]: unknown;
}

/** The request body of `models/{model}:generateContent` and `:streamGenerateContent`. */
export interface GeminiRequestBody {
  contents: GeminiContent[];
  systemInstruction?: GeminiContent;
  tools?: GeminiTool[];
  toolConfig?: { functionCallingConfig: GeminiFunctionCallingConfig };
  generationConfig?: GeminiGenerationConfig;
  [field: string]: unknown;
}

/** `usageMetadata`. Counts of zero are often left out by the API; a missing field may mean 0. */
export interface GeminiUsage {
  /** Includes `cachedContentTokenCount`. */
  promptTokenCount?: number;
  /** The answer, thoughts excluded. */
  candidatesTokenCount?: number;
  thoughtsTokenCount?: number;
  cachedContentTokenCount?: number;
  /** Server tools' prompt (search results, fetched pages): input, beside `promptTokenCount`. */
  toolUsePromptTokenCount?: number;
  totalTokenCount?: number;
  [field: string]: unknown;
}

/** One candidate answer. `content`, and its `parts`, may be missing (a blocked answer). */
export interface GeminiCandidate {
  content?: GeminiContent;
  finishReason?: string;
  finishMessage?: string;
  index?: number;
  [field: string]: unknown;
}

/** A whole answer, and each event of a stream. */
export interface GeminiResponse {
  candidates?: GeminiCandidate[];
  /** Only when the prompt was blocked: `blockReason`, and no candidates. */
  promptFeedback?: { blockReason?: string; blockReasonMessage?: string; [field: string]: unknown };
  usageMetadata?: GeminiUsage;
  modelVersion?: string;
  responseId?: string;
  [field: string]: unknown;
}

/** A Google API error body (`google.rpc.Status` in its JSON envelope), also sent as a stream event. */
export interface GeminiErrorBody {
  error?: {
    code?: number;
    message?: string;
    status?: string;
    details?: { "@type"?: string; [field: string]: unknown }[];
  };
}

/** The protocol's name, as `Provider.protocol` and `native.protocol`. */
export const GOOGLE_GEMINI = "google-gemini";

/**
 * The placeholder `thoughtSignature` Google documents for a function call that has no signature of its
 * own (a turn from another model, or built by hand): Gemini 3 requires one on the first call of each step.
 *
 * @see https://ai.google.dev/gemini-api/docs/thought-signatures
 */
export const SKIP_THOUGHT_SIGNATURE = "skip_thought_signature_validator";
