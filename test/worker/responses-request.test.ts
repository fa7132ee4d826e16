/**
 * What a converted route makes of a Responses request: every kind of input item and part, the tools,
 * tool choice, reasoning effort and text format as the upstream receives them (an OpenAI Chat route and
 * an Anthropic route, faked at the fetch layer), each field the table refuses named in the 400, and the
 * `openai` client's streaming and `responses.parse` on a Chat route.
 */
import OpenAI from "openai";
import { zodTextFormat } from "openai/helpers/zod";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { wrapReasoning } from "../../src/worker/reasoning-envelope.ts";
import {
  RESPONSES_REQUEST_FIELDS,
  responsesRequestToNeutral,
} from "../../src/worker/responses-dialect/request.ts";
import {
  anthropicMessage,
  OPENAI_BASE,
  openaiCompletion,
  openaiFrames,
  sseResponse,
  streamBody,
  TOKEN,
} from "./helpers.ts";
import { responsesGateway, WEATHER_TOOL } from "./responses-upstreams.ts";

// biome-ignore lint/suspicious/noExplicitAny: upstream bodies are read field by field
type Json = Record<string, any>;

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGBgAAAABQABpfZFQAAAAABJRU5ErkJggg==";
const PDF =
  "JVBERi0xLjQKJcTl8uXrp/Og0MTGCjEgMCBvYmoKPDwvVHlwZSAvQ2F0YWxvZz4+CmVuZG9iagp0cmFpbGVyCjw8L1Jvb3QgMSAwIFI+PgolJUVPRgo=";

function client(fetch: typeof globalThis.fetch): OpenAI {
  return new OpenAI({ apiKey: TOKEN, baseURL: "http://gateway.test/v1", fetch, maxRetries: 0 });
}

describe("a Responses request converted for an OpenAI Chat route", () => {
  it("every input item and part reaches the upstream in Chat form", async () => {
    const { fetch, calls } = responsesGateway(() => Response.json(openaiCompletion("gpt-4o", "Done.")));
    const response = await client(fetch).responses.create({
      model: "gpt",
      instructions: "Be brief.",
      input: [
        { role: "developer", content: "Answer in English." },
        {
          role: "user",
          content: [
            { type: "input_text", text: "Look at these." },
            { type: "input_image", image_url: `data:image/png;base64,${PNG}`, detail: "auto" },
            { type: "input_file", filename: "a.pdf", file_data: `data:application/pdf;base64,${PDF}` },
          ],
        },
        {
          type: "message",
          id: "msg_prev",
          status: "completed",
          role: "assistant",
          content: [{ type: "output_text", text: "Checking the weather.", annotations: [] }],
        },
        { type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
        {
          type: "function_call_output",
          call_id: "call_1",
          output: [{ type: "input_text", text: "sunny" }],
        },
        { role: "user", content: "Thanks" },
      ],
      tools: [WEATHER_TOOL],
      tool_choice: { type: "function", name: "get_weather" },
      parallel_tool_calls: false,
      max_output_tokens: 300,
      temperature: 0.5,
      top_p: 0.9,
      reasoning: { effort: "high" },
      user: "user-42",
      metadata: { ticket: "T-1" },
      text: {
        format: {
          type: "json_schema",
          name: "answer",
          schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
          strict: true,
        },
      },
    });
    expect(response.metadata).toEqual({ ticket: "T-1" });
    expect(response.output_text).toBe("Done.");
    const body = calls[0]!.body as Json;
    expect(calls[0]!.url).toBe(`${OPENAI_BASE}/chat/completions`);
    expect(body.messages.map((message: { role: string }) => message.role)).toEqual([
      "system",
      "system",
      "user",
      "assistant",
      "tool",
      "user",
    ]);
    expect(body.messages[2].content).toMatchObject([
      { type: "text", text: "Look at these." },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
      { type: "file", file: { filename: "a.pdf", file_data: `data:application/pdf;base64,${PDF}` } },
    ]);
    expect(body.messages[3]).toMatchObject({
      content: "Checking the weather.",
      tool_calls: [{ id: "call_1", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
    });
    expect(body.messages[4]).toMatchObject({ role: "tool", tool_call_id: "call_1" });
    expect(body.tools[0]).toMatchObject({
      type: "function",
      function: { name: "get_weather", strict: true },
    });
    expect(body.tool_choice).toEqual({ type: "function", function: { name: "get_weather" } });
    expect(body).toMatchObject({
      parallel_tool_calls: false,
      top_p: 0.9,
      max_completion_tokens: 300,
      temperature: 0.5,
    });
    // gpt-4o does not reason: the route drops the effort, and says so.
    expect(body.reasoning_effort).toBeUndefined();
    expect((response as { warnings?: string[] }).warnings?.join(" ")).toMatch(/thinking|reasoning/);
    expect(body.response_format).toMatchObject({
      type: "json_schema",
      json_schema: { name: "answer", strict: true },
    });
    expect(body.metadata).toBeUndefined();
  });

  it("responses.stream: text and a tool call as the SDK assembles them", async () => {
    const { fetch } = responsesGateway(() =>
      sseResponse(
        streamBody(
          openaiFrames("gpt-4o", ["Let me ", "check."], {
            tool: { id: "call_9", name: "get_weather", pieces: ['{"city":', '"Paris"}'] },
          }),
        ),
      ),
    );
    const stream = client(fetch).responses.stream({ model: "gpt", input: "Weather?", tools: [WEATHER_TOOL] });
    const deltas: string[] = [];
    stream.on("response.output_text.delta", (event) => deltas.push(event.delta));
    stream.on("response.function_call_arguments.delta", (event) => deltas.push(event.delta));
    const final = await stream.finalResponse();
    expect(deltas).toEqual(["Let me ", "check.", '{"city":', '"Paris"}']);
    expect(final.output_text).toBe("Let me check.");
    expect(final.output[1]).toMatchObject({
      type: "function_call",
      call_id: "call_9",
      name: "get_weather",
      arguments: '{"city":"Paris"}',
    });
    // Reported by the upstream: cached input; not reported: nothing made up.
    expect(final.usage).toEqual({
      input_tokens: 82,
      input_tokens_details: { cached_tokens: 64 },
      output_tokens: 17,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 99,
    });
  });

  it("responses.stream with a custom tool: the SDK assembles the custom_tool_call", async () => {
    const { fetch, calls } = responsesGateway(() =>
      sseResponse(
        streamBody(
          openaiFrames("gpt-4o", [], {
            tool: { id: "call_c1", name: "run_sql", pieces: ['{"input":"SELECT', ' 1;"}'] },
          }),
        ),
      ),
    );
    const final = await client(fetch)
      .responses.stream({
        model: "gpt",
        input: "Count the rows",
        tools: [{ type: "custom", name: "run_sql", description: "Runs SQL" }],
        tool_choice: { type: "custom", name: "run_sql" },
      })
      .finalResponse();
    expect(final.output).toMatchObject([
      { type: "custom_tool_call", call_id: "call_c1", name: "run_sql", input: "SELECT 1;" },
    ]);
    const body = calls[0]!.body as Json;
    expect(body.tools[0]).toMatchObject({ type: "function", function: { name: "run_sql" } });
    expect(body.tool_choice).toEqual({ type: "function", function: { name: "run_sql" } });
  });

  it("responses.parse: the JSON answer of text.format, parsed by the SDK", async () => {
    const { fetch, calls } = responsesGateway(() =>
      Response.json(openaiCompletion("gpt-4o", '{"city":"Paris","temp_c":18}')),
    );
    const parsed = await client(fetch).responses.parse({
      model: "gpt",
      input: "Weather in Paris as JSON",
      text: { format: zodTextFormat(z.object({ city: z.string(), temp_c: z.number() }), "weather") },
    });
    expect(parsed.output_parsed).toEqual({ city: "Paris", temp_c: 18 });
    expect((calls[0]!.body.response_format as { type: string }).type).toBe("json_schema");
  });
});

describe("an Anthropic route", () => {
  it("gets instructions as system, developer messages too, and the effort as thinking", async () => {
    const { fetch, calls } = responsesGateway(() => Response.json(anthropicMessage("Hi.")));
    await client(fetch).responses.create({
      model: "claude",
      instructions: "Be brief.",
      input: [
        { role: "developer", content: [{ type: "input_text", text: "No emoji." }] },
        { role: "user", content: "hi" },
      ],
      reasoning: { effort: "none" },
      tool_choice: "required",
      tools: [WEATHER_TOOL],
    });
    const body = calls[0]!.body as Json;
    expect(JSON.stringify(body.system)).toContain("Be brief.");
    expect(JSON.stringify(body.system)).toContain("No emoji.");
    expect(body.tool_choice).toMatchObject({ type: "any" });
    expect(body.thinking).toEqual({ type: "disabled" });
  });
});

describe("the request table", () => {
  it("refuses a field it does not know, as OpenAI does", () => {
    expect(() => responsesRequestToNeutral({ model: "claude", input: "hi", bogus: 1 }, "claude")).toThrow(
      /bogus/,
    );
  });

  it("names every bad field of a request with only known fields", () => {
    let issues: string[] = [];
    try {
      responsesRequestToNeutral(
        {
          model: "claude",
          input: [
            { role: "user", content: [{ type: "input_image", file_id: "file-1" }] },
            { role: "user", content: [{ type: "input_audio", data: "" }] },
            { role: "tool", content: "x" },
            { type: "local_shell_call", call_id: "c", action: {} },
          ],
          tools: [{ type: "local_shell" }],
          tool_choice: { type: "allowed_tools", mode: "auto", tools: [] },
          include: ["message.output_text.logprobs"],
          max_tool_calls: 3,
          top_logprobs: 2,
          background: true,
          conversation: "conv_1",
          prompt: { id: "pmpt_1" },
          text: { format: { type: "json_schema", name: "x" } },
        },
        "claude",
      );
    } catch (error) {
      issues = (error as { issues: { path: string }[] }).issues.map((issue) => issue.path);
    }
    expect(issues.sort()).toEqual(
      [
        "background",
        "conversation",
        "include[0]",
        "input[0].content[0].file_id",
        "input[1].content[0].type",
        "input[2].role",
        "input[3].type",
        "max_tool_calls",
        "prompt",
        "text.format.schema",
        "tool_choice.type",
        "tools[0].type",
        "top_logprobs",
      ].sort(),
    );
  });

  it("lists every field with a handling, and accepts defaults of refused fields", () => {
    for (const entry of Object.values(RESPONSES_REQUEST_FIELDS))
      expect(["mapped", "ignored", "refused"]).toContain(entry.handling);
    const call = responsesRequestToNeutral(
      {
        model: "claude",
        input: "hi",
        top_logprobs: 0,
        background: false,
        store: false,
        truncation: "disabled",
      },
      "claude",
    );
    expect(call.messages).toEqual([{ role: "user", content: "hi" }]);
    expect(call.warnings).toEqual([]);
  });

  it("an envelope from another route is left out with a warning; one for this route gives the turn its native", () => {
    const native = {
      protocol: "anthropic-messages",
      origin: "anthropic",
      model: "m",
      blocks: [{ type: "thinking" }],
    };
    const items = (route: string) => [
      { role: "user", content: "q" },
      { type: "reasoning", id: "rs_1", summary: [], encrypted_content: wrapReasoning({ route, native }) },
      { type: "function_call", call_id: "c1", name: "f", arguments: "{}" },
      { type: "function_call_output", call_id: "c1", output: "r" },
    ];
    const same = responsesRequestToNeutral({ model: "claude", input: items("claude") }, "claude");
    expect(same.messages[1]).toMatchObject({
      role: "assistant",
      native,
      toolCalls: [{ id: "c1", name: "f" }],
    });
    expect(same.messages[2]).toMatchObject({
      role: "tool",
      toolResults: [{ callId: "c1", name: "f", content: "r" }],
    });
    const other = responsesRequestToNeutral({ model: "claude", input: items("gpt5") }, "claude");
    expect(other.messages[1]!.native).toBeUndefined();
    expect(other.warnings).toEqual([
      'input[1]: reasoning carried from route "gpt5" does not replay on route "claude"; left out',
    ]);
    const damaged = responsesRequestToNeutral(
      { model: "claude", input: [{ type: "reasoning", id: "rs", summary: [], encrypted_content: "mw1.!!" }] },
      "claude",
    );
    expect(damaged.warnings).toEqual(["input[0]: carried reasoning that cannot be read; left out"]);
  });
});
