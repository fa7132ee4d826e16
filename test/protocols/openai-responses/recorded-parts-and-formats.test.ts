/**
 * Conformance on the recorded Responses API calls with images, documents and structured output
 * (pydantic-ai cassettes, test/fixtures/openai-responses/, README section "Image, document and
 * structured-output recordings"). For each call the request is built by `openaiResponses().complete()`
 * from a neutral input (the shell included: content checked, `responseFormat` prepared), caught by an
 * injected `fetch`, and compared with the request body the API accepted; the recorded answer is what that
 * `fetch` returns, and the `Response` it parses to is checked — `object` included where a format was asked.
 *
 * What differs and is left out of the comparison, narrowly ({@link comparable}):
 * - modelwire sends `store: false` (stateless by default); pydantic-ai sent no `store`.
 * - pydantic-ai adds fields with their default values: `instructions: ""`, `previous_response_id: null`,
 *   `stream: false`, `tool_choice: "auto"`, a tool's `description: ""`, and an empty assistant message
 *   (`content: ""`) before the function call of a tool-calling turn. modelwire sends none of them.
 * - pydantic-ai sends the system prompt as a `role: "system"` input item; modelwire sends system text as
 *   `instructions`. The recorded system items are read as `instructions` for the comparison.
 *
 * The GET a cassette starts with (the client downloading the image) is not a call of this API: for
 * `…force_download…` its recorded bytes are what an injected `fetch` gives `inlineUrlParts`, the opt-in
 * download step, so the inline image sent is checked byte for byte against the one the API accepted.
 */
import { describe, expect, it } from "vitest";
import * as z from "zod";
import type { ResponseFormat } from "../../../src/core/call-options.ts";
import { prepareResponseFormat } from "../../../src/core/structured-output.ts";
import type { ContentPart, MessageInput, Response as ModelResponse } from "../../../src/index.ts";
import { inlineUrlParts } from "../../../src/index.ts";
import { openAIResponsesProtocol } from "../../../src/protocols/openai-responses/index.ts";
import { openaiResponses } from "../../../src/providers/openai-responses.ts";
import { type FixtureInteraction, loadFixture } from "../../helpers/fixtures.ts";

type Json = Record<string, unknown>;

/** The POST interactions of a cassette (its GET downloads left out). */
async function calls(name: string): Promise<FixtureInteraction[]> {
  const fixture = await loadFixture(`openai-responses/${name}`);
  return fixture.interactions.filter((interaction) => interaction.request?.method === "POST");
}

/** The GET interaction a `…url_input` / `…force_download…` cassette starts with. */
async function download(name: string): Promise<FixtureInteraction> {
  const fixture = await loadFixture(`openai-responses/${name}`);
  const get = fixture.interactions.find((interaction) => interaction.request?.method === "GET");
  if (!get) throw new Error(`${name}: no GET interaction`);
  return get;
}

/** Sends `messages` through a provider whose `fetch` records the body and answers with the recording. */
async function send(
  interaction: FixtureInteraction,
  messages: MessageInput[],
  options: Parameters<ReturnType<typeof openaiResponses>["complete"]>[2] = {},
  tools: Parameters<ReturnType<typeof openaiResponses>["complete"]>[1] = [],
): Promise<{ body: Json; response: ModelResponse }> {
  const recorded = interaction.request?.body as Json;
  let body: Json | undefined;
  const provider = openaiResponses({
    apiKey: "sk-test",
    model: String(recorded.model),
    fetch: async (_url, init) => {
      body = JSON.parse(String(init?.body)) as Json;
      return new Response(interaction.body as Uint8Array<ArrayBuffer>, {
        status: 200,
        headers: { "content-type": "application/json" },
      });
    },
  });
  const response = await provider.complete(messages, tools, options);
  if (!body) throw new Error("no request was sent");
  return { body, response };
}

/** The recorded request and modelwire's, with the differences of the module comment taken out. */
function comparable(ours: Json, recorded: Json): { ours: Json; recorded: Json } {
  const mine = structuredClone(ours);
  const theirs = structuredClone(recorded);
  if (mine.store === false) delete mine.store;
  if (theirs.instructions === "") delete theirs.instructions;
  if (theirs.previous_response_id === null) delete theirs.previous_response_id;
  if (theirs.stream === false) delete theirs.stream;
  if (theirs.tool_choice === "auto" && mine.tool_choice === undefined) delete theirs.tool_choice;
  if (Array.isArray(theirs.tools)) {
    for (const tool of theirs.tools as Json[]) if (tool.description === "") delete tool.description;
  }
  const input = (theirs.input as Json[]).filter(
    (item) => !(item.role === "assistant" && item.content === ""),
  );
  const system = input.filter((item) => item.role === "system").map((item) => String(item.content));
  theirs.input = input.filter((item) => item.role !== "system");
  if (system.length > 0) theirs.instructions = system.join("\n\n");
  return { ours: mine, recorded: theirs };
}

function expectSameRequest(ours: Json, interaction: FixtureInteraction): void {
  const pair = comparable(ours, interaction.request?.body as Json);
  expect(pair.ours).toStrictEqual(pair.recorded);
}

/** The base64 data of a `data:` URL the recording sent. */
function recordedData(interaction: FixtureInteraction, field: "image_url" | "file_data"): string {
  const input = (interaction.request!.body as { input: Array<{ content: Json[] }> }).input;
  const part = input[0]!.content.find((entry) => typeof entry[field] === "string");
  const url = String(part?.[field]);
  return url.slice(url.indexOf(",") + 1);
}

function recordedText(interaction: FixtureInteraction): string {
  const output = (interaction.json as { output: Array<{ type: string; content?: Json[] }> }).output;
  return output
    .filter((item) => item.type === "message")
    .flatMap((item) => item.content ?? [])
    .map((part) => String(part.text))
    .join("");
}

function usageOf(interaction: FixtureInteraction) {
  const usage = (interaction.json as { usage: Json }).usage as {
    input_tokens: number;
    output_tokens: number;
    input_tokens_details: { cached_tokens: number };
    output_tokens_details: { reasoning_tokens: number };
  };
  return {
    inputTokens: usage.input_tokens - usage.input_tokens_details.cached_tokens,
    outputTokens: usage.output_tokens,
    cachedInputTokens: usage.input_tokens_details.cached_tokens,
    reasoningTokens: usage.output_tokens_details.reasoning_tokens,
  };
}

/** A plain text answer: the recorded text, `stop`, the recorded usage and id, the items kept verbatim. */
function expectTextAnswer(response: ModelResponse, interaction: FixtureInteraction): void {
  const json = interaction.json as { id: string; model: string; output: unknown[] };
  expect(response.message.content).toBe(recordedText(interaction));
  expect(response.message.content.length).toBeGreaterThan(0);
  expect(response.stopReason).toBe("stop");
  expect(response.usage).toStrictEqual(usageOf(interaction));
  expect(response.id).toBe(json.id);
  expect(response.model).toBe(json.model);
  expect(response.message.native?.blocks).toStrictEqual(json.output);
  expect(response.refusal).toBeUndefined();
  expect(response.warnings).toBeUndefined();
}

describe("Responses conformance: images and documents the API accepted", () => {
  it("test_openai_responses_image_url_input: an https image URL goes as input_image image_url, detail auto", async () => {
    const [interaction] = await calls("pydantic-ai__test_openai_responses_image_url_input.yaml");
    const url = "https://t3.ftcdn.net/jpg/00/85/79/92/360_F_85799278_0BBGV9OAdQDTLnKwAPBCcg1J7QtiieJY.jpg";
    const { body, response } = await send(interaction!, [
      {
        role: "user",
        content: [
          { type: "text", text: "hello" },
          { type: "image", url },
        ],
      },
    ]);
    expectSameRequest(body, interaction!);
    expect((body.input as Array<{ content: Json[] }>)[0]!.content[1]).toStrictEqual({
      type: "input_image",
      image_url: url,
      detail: "auto",
    });
    expectTextAnswer(response, interaction!);
  });

  it("test_image_url_input_force_download_response_api: the downloaded image goes inline as a data: URL", async () => {
    const name = "pydantic-ai__test_image_url_input_force_download_response_api.yaml";
    const [interaction] = await calls(name);
    const get = await download(name);
    const url = String(get.request?.uri);
    const content = await inlineUrlParts(
      [
        { type: "text", text: "What is this vegetable?" },
        { type: "image", url },
      ],
      {
        fetch: async () =>
          new Response(get.body as Uint8Array<ArrayBuffer>, {
            status: 200,
            headers: { "content-type": get.headers["content-type"]! },
          }),
      },
    );
    const { body, response } = await send(interaction!, [{ role: "user", content }]);
    expectSameRequest(body, interaction!);
    const image = (body.input as Array<{ content: Json[] }>)[0]!.content[1]!;
    expect(image.image_url).toBe(`data:image/jpeg;base64,${recordedData(interaction!, "image_url")}`);
    expectTextAnswer(response, interaction!);
  });

  it("test_openai_responses_document_url_input: an inline PDF goes as input_file file_data with its filename", async () => {
    const [interaction] = await calls("pydantic-ai__test_openai_responses_document_url_input.yaml");
    const data = recordedData(interaction!, "file_data");
    const { body, response } = await send(interaction!, [
      {
        role: "user",
        content: [
          { type: "text", text: "What is the main content on this document?" },
          // A data: URL is read as inline data, as the schema reads it.
          { type: "file", url: `data:application/pdf;base64,${data}`, filename: "filename.pdf" },
        ],
      },
    ]);
    expectSameRequest(body, interaction!);
    expectTextAnswer(response, interaction!);
  });

  it("test_document_url_input_response_api: a PDF by https URL goes as input_file file_url", async () => {
    const [interaction] = await calls("pydantic-ai__test_document_url_input_response_api.yaml");
    const { body, response } = await send(interaction!, [
      {
        role: "user",
        content: [
          { type: "text", text: "What is the main content on this document?" },
          { type: "file", url: "https://www.w3.org/WAI/ER/tests/xhtml/testfiles/resources/pdf/dummy.pdf" },
        ],
      },
    ]);
    expectSameRequest(body, interaction!);
    expect((body.input as Array<{ content: Json[] }>)[0]!.content[1]).toStrictEqual({
      type: "input_file",
      file_url: "https://www.w3.org/WAI/ER/tests/xhtml/testfiles/resources/pdf/dummy.pdf",
    });
    expectTextAnswer(response, interaction!);
  });

  it("test_openai_responses_text_document_url_input: a text/plain document goes as input_file, not as text", async () => {
    const [interaction] = await calls("pydantic-ai__test_openai_responses_text_document_url_input.yaml");
    const data = recordedData(interaction!, "file_data");
    const part: ContentPart = { type: "file", mediaType: "text/plain", data, filename: "filename.txt" };
    const { body, response } = await send(interaction!, [
      {
        role: "user",
        content: [{ type: "text", text: "What is the main content on this document?" }, part],
      },
    ]);
    expectSameRequest(body, interaction!);
    expectTextAnswer(response, interaction!);
  });
});

const CityLocation = z.object({ city: z.string(), country: z.string() }).strict();
const CITY_SCHEMA = {
  additionalProperties: false,
  properties: { city: { type: "string" }, country: { type: "string" } },
  required: ["city", "country"],
  type: "object",
};
const GET_USER_COUNTRY = {
  name: "get_user_country",
  parameters: { additionalProperties: false, properties: {}, type: "object" },
  strict: false,
};
const QUESTION = "What is the largest city in the user country?";

/** The request the protocol builds for `messages` with `responseFormat`, prepared as the shell does. */
function built_(
  interaction: FixtureInteraction,
  messages: MessageInput[],
  responseFormat: ResponseFormat,
): Json {
  const { body, refused } = openAIResponsesProtocol.buildRequest({
    messages,
    tools: [GET_USER_COUNTRY],
    options: {},
    format: prepareResponseFormat(responseFormat),
    model: String((interaction.request!.body as Json).model),
    origin: "openai",
    stream: false,
  });
  expect(refused).toStrictEqual([]);
  return body as unknown as Json;
}

/** The tool-calling turn and its result, as a caller's history holds them (the call, then "Mexico"). */
function toolTurn(first: FixtureInteraction): MessageInput[] {
  const call = (first.json as { output: Json[] }).output[0]!;
  return [
    {
      role: "assistant",
      content: "",
      toolCalls: [{ id: String(call.call_id), name: "get_user_country", arguments: {} }],
    },
    { role: "tool", toolResults: [{ callId: String(call.call_id), content: "Mexico" }] },
  ];
}

describe("Responses conformance: structured output the API accepted", () => {
  it("test_native_output: a JSON Schema format is text.format json_schema; the answer parses to the object", async () => {
    const [first, second] = await calls("pydantic-ai__test_native_output.yaml");
    const format = { type: "json_schema" as const, name: "CityLocation", schema: CITY_SCHEMA, strict: true };

    // The first call answers with a tool call: its request is built with the format, its answer read
    // without it (a tool-calling turn has no answer to parse yet).
    const built = built_(first!, [{ role: "user", content: QUESTION }], {
      type: "json_schema",
      name: "CityLocation",
      schema: CityLocation,
    });
    expectSameRequest(built, first!);
    const one = await send(first!, [{ role: "user", content: QUESTION }], {}, [GET_USER_COUNTRY]);
    expectSameRequest({ ...one.body, text: { format } }, first!);
    expect(one.response.message.toolCalls).toStrictEqual([
      {
        id: "call_tTAThu8l2S9hNky2krdwijGP",
        name: "get_user_country",
        arguments: {},
        argumentsText: "{}",
      },
    ]);
    expect(one.response.stopReason).toBe("tool-calls");

    const two = await send(
      second!,
      [{ role: "user", content: QUESTION }, ...toolTurn(first!)],
      { responseFormat: { type: "json_schema", name: "CityLocation", schema: CityLocation } },
      [GET_USER_COUNTRY],
    );
    expectSameRequest(two.body, second!);
    expect(two.body.text).toStrictEqual({ format });
    expect(two.response.message.content).toBe('{"city":"Mexico City","country":"Mexico"}');
    expect(two.response.object).toStrictEqual({ city: "Mexico City", country: "Mexico" });
    expect(two.response.stopReason).toBe("stop");
    expect(two.response.usage).toStrictEqual(usageOf(second!));
  });

  it("test_native_output: the first answer replayed from native gives the recorded second request (the item keeps its id and status)", async () => {
    const [first, second] = await calls("pydantic-ai__test_native_output.yaml");
    const one = await send(first!, [{ role: "user", content: QUESTION }], {}, [GET_USER_COUNTRY]);
    const call = one.response.message.toolCalls[0]!;
    const two = await send(
      second!,
      [
        { role: "user", content: QUESTION },
        one.response.message,
        { role: "tool", toolResults: [{ callId: call.id, content: "Mexico" }] },
      ],
      { responseFormat: { type: "json_schema", name: "CityLocation", schema: CityLocation } },
      [GET_USER_COUNTRY],
    );
    const input = two.body.input as Json[];
    // Replayed verbatim: the item as the API returned it, with its id and status.
    expect(input[1]).toStrictEqual((first!.json as { output: Json[] }).output[0]);
    const { id: _id, status: _status, ...bare } = input[1]!;
    expectSameRequest({ ...two.body, input: [input[0], bare, ...input.slice(2)] }, second!);
    expect(two.response.object).toStrictEqual({ city: "Mexico City", country: "Mexico" });
  });

  it("test_native_output: a plain JSON Schema object (not zod) gives the same text.format", async () => {
    const [, second] = await calls("pydantic-ai__test_native_output.yaml");
    const { body, response } = await send(
      second!,
      [
        { role: "user", content: QUESTION },
        ...toolTurn((await calls("pydantic-ai__test_native_output.yaml"))[0]!),
      ],
      { responseFormat: { type: "json_schema", name: "CityLocation", schema: CITY_SCHEMA } },
      [GET_USER_COUNTRY],
    );
    expectSameRequest(body, second!);
    expect(response.object).toStrictEqual({ city: "Mexico City", country: "Mexico" });
  });

  it("test_prompted_output: plain JSON is text.format json_object; the system prompt goes as instructions", async () => {
    const [first, second] = await calls("pydantic-ai__test_prompted_output.yaml");
    const system = String(((first!.request!.body as { input: Json[] }).input[0] as Json).content);
    expect(system).toMatch(/^Always respond with a JSON object/);
    const history: MessageInput[] = [
      { role: "system", content: system },
      { role: "user", content: QUESTION },
    ];
    expectSameRequest(built_(first!, history, { type: "json" }), first!);
    const one = await send(first!, history, {}, [GET_USER_COUNTRY]);
    expectSameRequest({ ...one.body, text: { format: { type: "json_object" } } }, first!);
    expect(one.body.instructions).toBe(system);
    expect(one.response.message.toolCalls[0]?.id).toBe("call_FrlL4M0CbAy8Dhv4VqF1Shom");

    const two = await send(second!, [...history, ...toolTurn(first!)], { responseFormat: { type: "json" } }, [
      GET_USER_COUNTRY,
    ]);
    expectSameRequest(two.body, second!);
    expect(two.body.text).toStrictEqual({ format: { type: "json_object" } });
    expect(two.response.object).toStrictEqual({ city: "Mexico City", country: "Mexico" });
    expect(two.response.message.content).toBe(recordedText(second!));
  });
});
