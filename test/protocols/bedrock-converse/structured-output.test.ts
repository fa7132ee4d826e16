/**
 * Structured output on Converse — native `outputConfig.textFormat` where the model takes it, the forced
 * output tool otherwise, the choice left to the model (with a warning) where it takes no forced choice —
 * and refusals: a guardrail / content-filter stop is `content-filter` with its text in `refusal`, from
 * the JSON and from the stream alike.
 */
import { describe, expect, it } from "vitest";
import type { StreamEvent } from "../../../src/core/stream-event.ts";
import { type PreparedResponseFormat, readStructuredOutput } from "../../../src/core/structured-output.ts";
import type { ToolSpec } from "../../../src/core/tool-spec.ts";
import { anthropicModelProfile } from "../../../src/index.ts";
import {
  BedrockConverseStreamAssembler,
  bedrockModelTraits,
  buildBedrockConverseRequest,
  parseBedrockConverseResponse,
} from "../../../src/protocols/bedrock-converse/index.ts";

const SCHEMA = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
  additionalProperties: false,
};
const FORMAT: PreparedResponseFormat = {
  type: "json_schema",
  name: "place",
  schema: SCHEMA,
  strict: true,
  description: "Where it is",
};
const WEATHER: ToolSpec = { name: "weather", parameters: { type: "object" } };

function build(
  model: string,
  format: PreparedResponseFormat | undefined,
  extra: Partial<Parameters<typeof buildBedrockConverseRequest>[0]> = {},
) {
  const claude = model.includes("anthropic");
  return buildBedrockConverseRequest({
    messages: [{ role: "user", content: "where?" }],
    tools: [WEATHER],
    options: {},
    model,
    format,
    anthropicProfile: claude ? anthropicModelProfile(model) : undefined,
    ...extra,
  });
}

describe("structured output on Converse", () => {
  it("the models with native structured output (trait)", () => {
    for (const model of [
      "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
      "global.anthropic.claude-haiku-4-5-20251001-v1:0",
      "anthropic.claude-opus-4-6-v1",
      "qwen.qwen3-32b-v1:0",
      "mistral.mistral-large-3-675b-instruct",
      "openai.gpt-oss-120b-1:0",
    ]) {
      expect(bedrockModelTraits(model).nativeStructuredOutput, model).toBe(true);
    }
    for (const model of [
      "us.anthropic.claude-3-7-sonnet-20250219-v1:0",
      "us.anthropic.claude-opus-4-1-20250805-v1:0",
      "us.amazon.nova-micro-v1:0",
      "us.meta.llama4-maverick-17b-instruct-v1:0",
      "us.mistral.pixtral-large-2502-v1:0",
    ]) {
      expect(bedrockModelTraits(model).nativeStructuredOutput, model).toBe(false);
    }
  });

  it("native: outputConfig.textFormat with the schema as a JSON string; no output tool", () => {
    const built = build("us.anthropic.claude-sonnet-4-5-20250929-v1:0", FORMAT);
    expect(built.outputTool).toBeUndefined();
    expect(built.refused).toBeUndefined();
    expect(built.body.outputConfig).toEqual({
      textFormat: {
        type: "json_schema",
        structure: {
          jsonSchema: { name: "place", schema: JSON.stringify(SCHEMA), description: "Where it is" },
        },
      },
    });
    expect(
      typeof (built.body.outputConfig as { textFormat: { structure: { jsonSchema: { schema: unknown } } } })
        .textFormat.structure.jsonSchema.schema,
    ).toBe("string");
    expect(
      built.body.toolConfig?.tools.map((tool) => ("toolSpec" in tool ? tool.toolSpec.name : "cache")),
    ).toEqual(["weather"]);
    expect(built.body.toolConfig?.toolChoice).toBeUndefined();
  });

  it("forced tool where the model has no native form: the output tool added, toolChoice any", () => {
    const built = build("us.amazon.nova-micro-v1:0", FORMAT);
    expect(built.outputTool).toBe("place");
    expect(built.body.outputConfig).toBeUndefined();
    expect(built.body.toolConfig).toEqual({
      tools: [
        { toolSpec: { name: "weather", inputSchema: { json: { type: "object" } } } },
        { toolSpec: { name: "place", description: "Where it is", inputSchema: { json: SCHEMA } } },
      ],
      toolChoice: { any: {} },
    });
    expect(built.warnings).toEqual([]);
  });

  it('plain { type: "json" } has no native Converse form: the forced tool "output" even on Claude 4.5', () => {
    const built = build("us.anthropic.claude-sonnet-4-5-20250929-v1:0", { type: "json" });
    expect(built.outputTool).toBe("output");
    expect(built.body.outputConfig).toBeUndefined();
    expect(built.body.toolConfig?.toolChoice).toEqual({ any: {} });
  });

  it("a model that takes no forced choice (Llama): the output tool offered, the choice left to it, with a warning", () => {
    const built = build("us.meta.llama4-maverick-17b-instruct-v1:0", FORMAT);
    expect(built.outputTool).toBe("place");
    expect(built.body.toolConfig?.toolChoice).toBeUndefined();
    expect(built.body.toolConfig?.tools).toHaveLength(2);
    expect(built.warnings).toEqual([
      expect.stringContaining("the output tool place is offered with the choice left to the model"),
      expect.stringContaining('toolChoice "any" left to the model'),
    ]);
  });

  it("a caller's toolChoice any on Llama is not sent either, with a warning", () => {
    const built = build("us.meta.llama4-maverick-17b-instruct-v1:0", undefined, {
      options: { toolChoice: "any" },
    });
    expect(built.body.toolConfig?.toolChoice).toBeUndefined();
    expect(built.warnings).toEqual([
      'this model cannot be forced to call a tool on Converse; toolChoice "any" left to the model',
    ]);
    const named = build("us.meta.llama4-maverick-17b-instruct-v1:0", undefined, {
      options: { toolChoice: { name: "weather" } },
    });
    expect(named.body.toolConfig?.toolChoice).toBeUndefined();
    expect(named.warnings[0]).toContain('toolChoice "weather" left to the model');
  });

  it("toolChoice none with a format: only the output tool, forced", () => {
    const built = build("us.amazon.nova-micro-v1:0", FORMAT, { options: { toolChoice: "none" } });
    expect(
      built.body.toolConfig?.tools.map((tool) => ("toolSpec" in tool ? tool.toolSpec.name : "")),
    ).toEqual(["place"]);
    expect(built.body.toolConfig?.toolChoice).toEqual({ any: {} });
  });

  it("a caller's named tool choice is kept beside the output tool", () => {
    const built = build("us.amazon.nova-micro-v1:0", FORMAT, {
      options: { toolChoice: { name: "weather" } },
    });
    expect(built.body.toolConfig?.toolChoice).toEqual({ tool: { name: "weather" } });
    expect(built.outputTool).toBe("place");
  });

  it("an output tool name taken by a caller's tool is refused, naming responseFormat.name (never thrown)", () => {
    const built = build("us.amazon.nova-micro-v1:0", { ...FORMAT, name: "weather" });
    expect(built.refused).toEqual([
      { path: "responseFormat.name", message: expect.stringContaining('"weather"') },
    ]);
    expect(built.outputTool).toBeUndefined();
  });

  it("with Claude thinking the forced output tool turns thinking off (forced choice), with the profile's warning", () => {
    const built = build("us.anthropic.claude-3-7-sonnet-20250219-v1:0", FORMAT, {
      options: { thinking: { budgetTokens: 2048 } },
    });
    expect(built.outputTool).toBe("place");
    expect(built.body.additionalModelRequestFields?.thinking).toEqual({ type: "disabled" });
    expect(built.warnings.join("\n")).toContain("thinking cannot be combined with a forced tool choice");
  });

  it("the native answer parses into object", async () => {
    const response = parseBedrockConverseResponse(
      {
        output: { message: { role: "assistant", content: [{ text: '{"city":"Paris"}' }] } },
        stopReason: "end_turn",
        usage: { inputTokens: 5, outputTokens: 4 },
      },
      { provider: "bedrock", model: "m", origin: "bedrock" },
    );
    expect((await readStructuredOutput(response, FORMAT)).object).toEqual({ city: "Paris" });
  });
});

describe("refusals on Converse", () => {
  const CONTEXT = { provider: "bedrock", model: "m", origin: "bedrock" };
  const BLOCKED = "Sorry, the model cannot answer this question.";

  for (const stopReason of ["guardrail_intervened", "content_filtered"]) {
    it(`${stopReason}: content-filter, the text in refusal, the same from the stream`, async () => {
      const parsed = parseBedrockConverseResponse(
        {
          output: { message: { role: "assistant", content: [{ text: BLOCKED }] } },
          stopReason,
          usage: { inputTokens: 3, outputTokens: 0 },
        },
        CONTEXT,
      );
      expect(parsed.stopReason).toBe("content-filter");
      expect(parsed.refusal).toBe(BLOCKED);
      expect(parsed.rawStopReason).toBe(stopReason);

      const assembler = new BedrockConverseStreamAssembler(CONTEXT);
      const out: StreamEvent[] = [];
      assembler.apply("messageStart", { role: "assistant" }, out);
      assembler.apply(
        "contentBlockDelta",
        { contentBlockIndex: 0, delta: { text: "Sorry, the model " } },
        out,
      );
      assembler.apply(
        "contentBlockDelta",
        { contentBlockIndex: 0, delta: { text: "cannot answer this question." } },
        out,
      );
      assembler.apply("contentBlockStop", { contentBlockIndex: 0 }, out);
      assembler.apply("messageStop", { stopReason }, out);
      assembler.apply("metadata", { usage: { inputTokens: 3, outputTokens: 0 } }, out);
      expect(assembler.finish()).toEqual(parsed);

      // A refusal is reported as such, not as a parse failure.
      const read = await readStructuredOutput(parsed, FORMAT);
      expect(read.object).toBeUndefined();
      expect(read.refusal).toBe(BLOCKED);
    });
  }

  it("a content-filter stop without text has no refusal text", () => {
    const parsed = parseBedrockConverseResponse(
      { output: { message: { role: "assistant", content: [] } }, stopReason: "guardrail_intervened" },
      CONTEXT,
    );
    expect(parsed.stopReason).toBe("content-filter");
    expect(parsed.refusal).toBeUndefined();
  });

  it("an ordinary stop has no refusal", () => {
    const parsed = parseBedrockConverseResponse(
      { output: { message: { role: "assistant", content: [{ text: "hi" }] } }, stopReason: "end_turn" },
      CONTEXT,
    );
    expect(parsed.refusal).toBeUndefined();
  });
});
