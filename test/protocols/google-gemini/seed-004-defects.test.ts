/**
 * Seed 004's defects, carried over to Gemini: a stored history never throws on conversion and never sends
 * an empty part; zero and "not reported" usage stay apart, whole and streamed; signatures survive streaming
 * (an empty-text part that only carries one included); reasoning is replayed only to its own model and
 * endpoint, never demoted to text; thinking settings are corrected, never sent unsatisfiable.
 */
import { describe, expect, it } from "vitest";
import type { MessageInput } from "../../../src/core/message.ts";
import type { Response as ModelResponse } from "../../../src/core/response.ts";
import {
  buildGeminiRequest,
  type GeminiRequestBody,
  googleGeminiProtocol,
  mapGeminiUsage,
  SKIP_THOUGHT_SIGNATURE,
} from "../../../src/protocols/google-gemini/index.ts";
import { costOf } from "../../../src/substrate/cost.ts";
import { byteStream } from "../../helpers/byte-stream.ts";

const FLASH = "gemini-2.5-flash";
const PRO3 = "gemini-3-pro-preview";
const encoder = new TextEncoder();
const context = { provider: "gemini", model: FLASH, origin: "gemini" };

function build(messages: readonly unknown[], model = FLASH, options = {}) {
  return buildGeminiRequest({ messages, tools: [], options, model, origin: "gemini" });
}

async function streamed(events: unknown[], model = FLASH): Promise<ModelResponse> {
  const bytes = encoder.encode(events.map((event) => `data: ${JSON.stringify(event)}\r\n\r\n`).join(""));
  let done: ModelResponse | undefined;
  const frames = googleGeminiProtocol.readFrames(byteStream(bytes, 3));
  for await (const event of googleGeminiProtocol.assembleStream(frames, { ...context, model })) {
    if (event.type === "done") done = event.response;
  }
  return done!;
}

const SIGNED_THOUGHTS = {
  protocol: "google-gemini",
  origin: "gemini",
  model: FLASH,
  blocks: [
    { text: "thinking about it SECRET-THOUGHT", thought: true },
    { functionCall: { name: "lookup", args: { q: "x" } }, thoughtSignature: "U0lHTkFUVVJF" },
  ],
};

describe("Gemini: seed 004 defects", () => {
  it("a stored history of junk never throws, and no empty part or empty turn is sent", () => {
    const junk: unknown[] = [
      { role: "user", content: "" },
      { role: "user", content: [{ type: "text", text: "" }] },
      { role: "assistant", content: "", toolCalls: [] },
      {
        role: "assistant",
        native: { ...SIGNED_THOUGHTS, blocks: [{ text: "" }, {}, null, { text: "", thought: true }] },
      },
      { role: "assistant", toolCalls: [{ id: "c1", name: "lookup", arguments: "{bad" }] },
      {
        role: "tool",
        toolResults: [
          { callId: "c1", content: "" },
          { callId: "nobody", content: "late" },
        ],
      },
      { role: "user", content: "now" },
    ];
    const { body, warnings } = build(junk);
    for (const content of body.contents) {
      expect(content.parts!.length).toBeGreaterThan(0);
      for (const part of content.parts!) {
        expect(Object.keys(part).length).toBeGreaterThan(0);
        if (part.text === "") expect(part.thoughtSignature).toEqual(expect.any(String));
      }
    }
    expect(body.contents.map((content) => content.role)).toEqual(["model", "user"]);
    expect(body.contents[0]!.parts).toEqual([{ functionCall: { name: "lookup", args: {} } }]);
    // The call's empty result still answers it, by name; the stray result goes as text.
    expect(body.contents[1]!.parts![0]).toEqual({
      functionResponse: { name: "lookup", response: { output: "" } },
    });
    expect(JSON.stringify(body.contents[1])).toContain("[tool result for call nobody]");
    expect(warnings.join("\n")).toMatch(/not a JSON object; sent as \{\}/);
    expect(warnings.join("\n")).toMatch(/a part without any data; left out/);
  });

  it("usage: a reported 0 stays 0, what is not reported stays undefined, cached input comes out of input", () => {
    expect(mapGeminiUsage(undefined)).toEqual({});
    // A blocked prompt's usage: no counts at all.
    expect(mapGeminiUsage({ trafficType: "ON_DEMAND" })).toEqual({});
    expect(
      mapGeminiUsage({
        promptTokenCount: 5,
        candidatesTokenCount: 0,
        thoughtsTokenCount: 0,
        cachedContentTokenCount: 0,
        totalTokenCount: 5,
      }),
    ).toEqual({ inputTokens: 5, outputTokens: 0, reasoningTokens: 0, cachedInputTokens: 0 });
    // Zero counts left out by the API: the output is read from the total, reasoning stays unknown.
    expect(mapGeminiUsage({ promptTokenCount: 9, totalTokenCount: 9 })).toEqual({
      inputTokens: 9,
      outputTokens: 0,
    });
    expect(
      mapGeminiUsage({
        promptTokenCount: 1000,
        cachedContentTokenCount: 800,
        toolUsePromptTokenCount: 50,
        candidatesTokenCount: 20,
        thoughtsTokenCount: 30,
        totalTokenCount: 1100,
      }),
    ).toEqual({ inputTokens: 250, cachedInputTokens: 800, outputTokens: 50, reasoningTokens: 30 });
  });

  it("usage: the same zero and absent counts, streamed (the last chunk's usage wins, even when lower)", async () => {
    const response = await streamed([
      { candidates: [{ content: { parts: [{ text: "a" }] } }], usageMetadata: { promptTokenCount: 169 } },
      {
        candidates: [{ content: { parts: [{ text: "b" }] }, finishReason: "STOP" }],
        usageMetadata: { promptTokenCount: 79, candidatesTokenCount: 0, thoughtsTokenCount: 0 },
      },
    ]);
    expect(response.usage).toEqual({ inputTokens: 79, outputTokens: 0, reasoningTokens: 0 });
    expect(response.usage.cachedInputTokens).toBeUndefined();
  });

  it("a signature on the final empty-text chunk survives streaming and goes back in place", async () => {
    const response = await streamed([
      { candidates: [{ content: { role: "model", parts: [{ text: "Hello" }] } }], responseId: "r1" },
      {
        candidates: [
          {
            content: { role: "model", parts: [{ text: "", thoughtSignature: "RU5ELVNJRw==" }] },
            finishReason: "STOP",
          },
        ],
        responseId: "r1",
      },
    ]);
    expect(response.message.native!.blocks).toEqual([
      { text: "Hello" },
      { text: "", thoughtSignature: "RU5ELVNJRw==" },
    ]);
    const { body } = build([
      { role: "user", content: "hi" },
      response.message,
      { role: "user", content: "more" },
    ]);
    expect(body.contents[1]).toEqual({
      role: "model",
      parts: [{ text: "Hello" }, { text: "", thoughtSignature: "RU5ELVNJRw==" }],
    });
  });

  it("thoughts and signatures replay only to their own model and origin; elsewhere they are dropped with a warning, never text", () => {
    const history: MessageInput[] = [
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "call_1", name: "lookup", arguments: { q: "x" } }],
        native: SIGNED_THOUGHTS,
      },
      { role: "tool", toolResults: [{ callId: "call_1", content: "found" }] },
    ];
    const same = build(history);
    expect(same.body.contents[1]!.parts).toEqual(SIGNED_THOUGHTS.blocks);
    for (const [model, origin] of [
      ["gemini-2.5-pro", "gemini"],
      [FLASH, "vertex"],
    ]) {
      const other = buildGeminiRequest({
        messages: history,
        tools: [],
        options: {},
        model: model!,
        origin: origin!,
      });
      const text = JSON.stringify(other.body);
      expect(text).not.toContain("SECRET-THOUGHT");
      expect(text).not.toContain("U0lHTkFUVVJF");
      expect(other.body.contents[1]!.parts).toEqual([{ functionCall: { name: "lookup", args: { q: "x" } } }]);
      expect(other.warnings.join("\n")).toMatch(/1 thought part\(s\) and 1 thought signature\(s\) dropped/);
    }
  });

  it("Gemini 3: a call rebuilt from another model's turn carries Google's placeholder signature on its first call only", () => {
    const history: MessageInput[] = [
      { role: "user", content: "weather in two cities" },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "fc_1", name: "weather", arguments: { city: "Oslo" } },
          { id: "fc_2", name: "weather", arguments: { city: "Rome" } },
        ],
        native: { protocol: "openai-responses", origin: "openai", model: "gpt-5", blocks: [] },
      },
      {
        role: "tool",
        toolResults: [
          { callId: "fc_1", content: "cold" },
          { callId: "fc_2", content: "warm" },
        ],
      },
    ];
    const three = build(history, PRO3).body as GeminiRequestBody;
    expect(three.contents[1]!.parts).toEqual([
      { functionCall: { name: "weather", args: { city: "Oslo" } }, thoughtSignature: SKIP_THOUGHT_SIGNATURE },
      { functionCall: { name: "weather", args: { city: "Rome" } } },
    ]);
    expect(three.contents[2]!.parts).toEqual([
      { functionResponse: { name: "weather", response: { output: "cold" } } },
      { functionResponse: { name: "weather", response: { output: "warm" } } },
    ]);
    // 2.5 validates no signatures: nothing is invented there.
    expect(JSON.stringify(build(history, FLASH).body)).not.toContain(SKIP_THOUGHT_SIGNATURE);
  });

  it("the -latest aliases are Gemini 3 models: a rebuilt call gets the placeholder signature, thinking goes as a level", () => {
    const history: MessageInput[] = [
      { role: "user", content: "weather?" },
      { role: "assistant", content: "", toolCalls: [{ id: "fc_1", name: "weather", arguments: {} }] },
      { role: "tool", toolResults: [{ callId: "fc_1", content: "cold" }] },
    ];
    for (const model of [
      "gemini-flash-latest",
      "gemini-pro-latest",
      "gemini-flash-lite-latest",
      "models/gemini-flash-latest",
      // One Google may add: read as Gemini 3 too.
      "gemini-ultra-latest",
    ]) {
      const built = build(history, model, { thinking: { effort: "minimal" } });
      expect(built.body.contents[1]!.parts![0]!.thoughtSignature, model).toBe(SKIP_THOUGHT_SIGNATURE);
      expect(built.body.generationConfig?.thinkingConfig, model).toEqual({
        thinkingLevel: model.includes("pro") ? "LOW" : "MINIMAL",
        includeThoughts: true,
      });
    }
    // A dated alias of an old family stays what its version says.
    const old = build(history, "gemini-1.5-flash-latest", { thinking: "off" });
    expect(JSON.stringify(old.body)).not.toContain(SKIP_THOUGHT_SIGNATURE);
  });

  it("thinking is corrected for the model, never sent unsatisfiable (a budget and a level never both)", () => {
    const config = (model: string, thinking: unknown) => {
      const built = build([{ role: "user", content: "hi" }], model, { thinking });
      return { config: built.body.generationConfig?.thinkingConfig, warnings: built.warnings };
    };
    expect(config(FLASH, { budgetTokens: 2048 }).config).toEqual({
      thinkingBudget: 2048,
      includeThoughts: true,
    });
    expect(config(FLASH, "off").config).toEqual({ thinkingBudget: 0 });
    expect(config("gemini-2.5-pro", "off")).toMatchObject({
      config: { thinkingBudget: 128 },
      warnings: [expect.stringMatching(/cannot turn thinking off/)],
    });
    expect(config("gemini-2.5-pro", { budgetTokens: 50 }).config).toEqual({
      thinkingBudget: 128,
      includeThoughts: true,
    });
    expect(config(FLASH, { budgetTokens: 99_999 }).config).toEqual({
      thinkingBudget: 24_576,
      includeThoughts: true,
    });
    expect(config(FLASH, "adaptive").config).toEqual({ thinkingBudget: -1, includeThoughts: true });
    expect(config(PRO3, { effort: "low" }).config).toEqual({ thinkingLevel: "LOW", includeThoughts: true });
    // 3 Pro takes LOW and HIGH only.
    expect(config(PRO3, { effort: "medium" })).toMatchObject({
      config: { thinkingLevel: "HIGH" },
      warnings: [expect.stringMatching(/MEDIUM/)],
    });
    expect(config("gemini-3-flash-preview", { effort: "minimal" }).config).toEqual({
      thinkingLevel: "MINIMAL",
      includeThoughts: true,
    });
    expect(config(PRO3, { budgetTokens: 512 })).toMatchObject({
      config: { thinkingLevel: "LOW" },
      warnings: [expect.stringMatching(/budget/)],
    });
    expect(config(PRO3, "off").config).toEqual({ thinkingLevel: "LOW" });
    expect(config("gemini-2.0-flash", { budgetTokens: 2048 })).toMatchObject({
      config: undefined,
      warnings: [expect.stringMatching(/no thinking/)],
    });
    for (const model of [FLASH, "gemini-2.5-pro", PRO3, "gemini-3-flash-preview", "gemini-9-ultra"]) {
      for (const thinking of [
        "off",
        "adaptive",
        { budgetTokens: 3000 },
        { effort: "high" },
        { effort: "max" },
      ]) {
        const sent = config(model, thinking).config ?? {};
        expect(
          "thinkingBudget" in sent && "thinkingLevel" in sent,
          `${model} ${JSON.stringify(thinking)}`,
        ).toBe(false);
      }
    }
  });

  it("a maxTokens at or below a fixed thinking budget is raised past it (thoughts count against the cap)", () => {
    const low = build([{ role: "user", content: "hi" }], FLASH, {
      maxTokens: 1000,
      thinking: { budgetTokens: 4096 },
    });
    expect(low.body.generationConfig).toMatchObject({
      maxOutputTokens: 4097,
      thinkingConfig: { thinkingBudget: 4096 },
    });
    expect(low.warnings.join("\n")).toMatch(/must exceed the thinking budget 4096/);
    const roomy = build([{ role: "user", content: "hi" }], FLASH, {
      maxTokens: 8000,
      thinking: { budgetTokens: 4096 },
    });
    expect(roomy.body.generationConfig?.maxOutputTokens).toBe(8000);
    expect(roomy.warnings).toEqual([]);
    const off = build([{ role: "user", content: "hi" }], FLASH, { maxTokens: 10, thinking: "off" });
    expect(off.body.generationConfig?.maxOutputTokens).toBe(10);
  });

  it("structured output goes as responseJsonSchema; on 2.x with tools as the forced output tool instead", () => {
    const format = { type: "json_schema" as const, name: "city", schema: { type: "object" }, strict: true };
    const tools = [{ name: "lookup", parameters: { type: "object" } }];
    const plain = buildGeminiRequest({
      messages: [{ role: "user", content: "x" }],
      tools: [],
      options: {},
      model: FLASH,
      origin: "gemini",
      format,
    });
    expect(plain.body.generationConfig).toMatchObject({
      responseMimeType: "application/json",
      responseJsonSchema: { type: "object" },
    });
    const withTools = buildGeminiRequest({
      messages: [{ role: "user", content: "x" }],
      tools,
      options: {},
      model: FLASH,
      origin: "gemini",
      format,
    });
    expect(withTools.outputTool).toBe("city");
    expect(withTools.body.generationConfig?.responseMimeType).toBeUndefined();
    expect(withTools.body.toolConfig).toEqual({ functionCallingConfig: { mode: "ANY" } });
    const three = buildGeminiRequest({
      messages: [{ role: "user", content: "x" }],
      tools,
      options: {},
      model: PRO3,
      origin: "gemini",
      format,
    });
    expect(three.outputTool).toBeUndefined();
    expect(three.body.generationConfig?.responseJsonSchema).toEqual({ type: "object" });
  });

  it("finish reasons: SAFETY, RECITATION, a blocked prompt are content filters with a refusal; MALFORMED_FUNCTION_CALL is an error", () => {
    const answer = (finishReason: string, extra = {}) =>
      googleGeminiProtocol.parseResponse({ candidates: [{ content: {}, finishReason, ...extra }] }, context);
    expect(answer("SAFETY")).toMatchObject({
      stopReason: "content-filter",
      rawStopReason: "SAFETY",
      refusal: expect.stringContaining("SAFETY"),
    });
    expect(answer("RECITATION")).toMatchObject({ stopReason: "content-filter" });
    expect(answer("MALFORMED_FUNCTION_CALL")).toMatchObject({
      stopReason: "error",
      rawStopReason: "MALFORMED_FUNCTION_CALL",
    });
    expect(answer("MAX_TOKENS").stopReason).toBe("length");
    const blocked = googleGeminiProtocol.parseResponse(
      {
        promptFeedback: { blockReason: "PROHIBITED_CONTENT", blockReasonMessage: "Blocked by policy." },
        usageMetadata: { trafficType: "ON_DEMAND" },
      },
      context,
    );
    expect(blocked).toMatchObject({
      stopReason: "content-filter",
      rawStopReason: "PROHIBITED_CONTENT",
      refusal: "Blocked by policy.",
      usage: {},
    });
  });

  it("prices: Gemini models cost what the table says, the long-prompt rate above 200k, unknown ones undefined", () => {
    expect(
      costOf({ inputTokens: 1_000_000, outputTokens: 1_000_000, cachedInputTokens: 1_000_000 }, FLASH),
    ).toBeCloseTo(0.3 + 2.5 + 0.03);
    expect(costOf({ inputTokens: 100_000, outputTokens: 1_000_000 }, "gemini-2.5-pro")).toBeCloseTo(
      0.125 + 10,
    );
    expect(costOf({ inputTokens: 300_000, outputTokens: 1_000_000 }, "gemini-2.5-pro")).toBeCloseTo(
      0.75 + 15,
    );
    expect(costOf({ inputTokens: 10, outputTokens: 10 }, "gemini-2.0-flash-lite")).toBeUndefined();
    expect(costOf({ inputTokens: 10, outputTokens: 10 }, "gemini-3.1-pro-preview")).toBeUndefined();
  });
});
