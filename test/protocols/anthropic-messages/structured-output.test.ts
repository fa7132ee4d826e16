/**
 * `responseFormat` on Anthropic Messages: `output_config.format` on the models whose profile takes it,
 * the forced output tool otherwise (and for plain JSON everywhere), the tool choice rules (a caller's
 * forced choice kept, `none` → the output tool by name, thinking → `auto` with a warning), a name clash
 * refused, and Bedrock InvokeModel carrying the same.
 */
import { describe, expect, it } from "vitest";
import type { CallOptions } from "../../../src/core/call-options.ts";
import { type PreparedResponseFormat, prepareResponseFormat } from "../../../src/core/structured-output.ts";
import type { ToolSpec } from "../../../src/core/tool-spec.ts";
import { anthropic, type StreamEvent } from "../../../src/index.ts";
import { buildAnthropicRequest } from "../../../src/protocols/anthropic-messages/index.ts";
import { buildBedrockInvokeRequest } from "../../../src/protocols/bedrock-invoke/index.ts";
import { anthropicModelProfile } from "../../../src/providers/anthropic-model-profiles.ts";

const SCHEMA = {
  type: "object",
  properties: { name: { type: "string" } },
  required: ["name"],
  additionalProperties: false,
};
const PERSON = prepareResponseFormat({ type: "json_schema", name: "person", schema: SCHEMA })!;
const JSON_ANY = prepareResponseFormat({ type: "json" })!;
const SEARCH: ToolSpec = {
  name: "search",
  parameters: { type: "object", properties: { q: { type: "string" } } },
};

function build(
  model: string,
  format: PreparedResponseFormat,
  options: CallOptions = {},
  tools: ToolSpec[] = [],
) {
  return buildAnthropicRequest({
    messages: [{ role: "user", content: "Who?" }],
    tools,
    options: { cache: "off", ...options },
    target: { model, origin: "anthropic" },
    profile: anthropicModelProfile(model),
    stream: false,
    format,
  });
}

describe("model profiles", () => {
  it("native structured output on Opus 4.5+, Sonnet 4.5+, Haiku 4.5 and newer; not on older models", () => {
    for (const model of [
      "claude-opus-4-8",
      "claude-opus-4-7",
      "claude-opus-4-6",
      "claude-opus-4-5-20251101",
      "claude-sonnet-4-6",
      "claude-sonnet-4-5-20250929",
      "claude-haiku-4-5",
      "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
      "claude-sonnet-5-1",
    ]) {
      expect(anthropicModelProfile(model).structuredOutput, model).toBe(true);
    }
    for (const model of [
      "claude-opus-4-1",
      "claude-opus-4-20250514",
      "claude-sonnet-4-20250514",
      "claude-3-7-sonnet-latest",
      "claude-3-5-haiku",
      "claude-3-haiku-20240307",
      "some-unknown-model",
    ]) {
      expect(anthropicModelProfile(model).structuredOutput, model).toBe(false);
    }
  });
});

describe("native output_config.format", () => {
  it("a JSON Schema goes as output_config.format, no tool added, no outputTool", () => {
    const built = build("claude-sonnet-4-5", PERSON);
    expect(built.body.output_config).toEqual({ format: { type: "json_schema", schema: SCHEMA } });
    expect(built.body.tools).toBeUndefined();
    expect(built.body.tool_choice).toBeUndefined();
    expect(built.outputTool).toBeUndefined();
    expect(built.refused).toBeUndefined();
  });

  it("sits beside the effort level, and with thinking (which it is compatible with)", () => {
    const built = build("claude-opus-4-6", PERSON, { thinking: { effort: "high" } }, [SEARCH]);
    expect(built.body.output_config).toEqual({
      effort: "high",
      format: { type: "json_schema", schema: SCHEMA },
    });
    expect(built.body.thinking).toEqual({ type: "adaptive" });
    expect(built.body.tools?.map((tool) => tool.name)).toEqual(["search"]);
    expect(built.warnings).toEqual([]);
  });

  it("the caller's tools are untouched by a native format (its tool choice too)", () => {
    const built = build("claude-sonnet-4-6", PERSON, { toolChoice: "auto" }, [SEARCH]);
    expect(built.body.tool_choice).toEqual({ type: "auto" });
  });
});

describe("the forced output tool", () => {
  it("on a model without native output: the tool is added and tool_choice is any", () => {
    const built = build("claude-sonnet-4-20250514", PERSON, {}, [SEARCH]);
    expect(built.outputTool).toBe("person");
    expect(built.body.output_config).toBeUndefined();
    expect(built.body.tools).toEqual([
      { name: "search", input_schema: { type: "object", properties: { q: { type: "string" } } } },
      {
        name: "person",
        description: "Give the final answer by calling this tool with it as the input.",
        input_schema: SCHEMA,
      },
    ]);
    expect(built.body.tool_choice).toEqual({ type: "any" });
  });

  it("plain JSON goes as the tool with an open object schema, even on a model with native output", () => {
    const built = build("claude-sonnet-4-6", JSON_ANY);
    expect(built.outputTool).toBe("output");
    expect(built.body.output_config).toBeUndefined();
    expect(built.body.tools).toEqual([
      { name: "output", description: expect.any(String), input_schema: { type: "object" } },
    ]);
    expect(built.body.tool_choice).toEqual({ type: "any" });
  });

  it("toolChoice none: the output tool is named, so none of the caller's tools is called", () => {
    const built = build("claude-3-5-haiku", PERSON, { toolChoice: "none" }, [SEARCH]);
    expect(built.body.tool_choice).toEqual({ type: "tool", name: "person" });
  });

  it("a choice the caller forced is kept (and thinking is turned off for it, as always)", () => {
    const built = build(
      "claude-sonnet-4-20250514",
      PERSON,
      { toolChoice: { name: "search" }, thinking: { budgetTokens: 2048 } },
      [SEARCH],
    );
    expect(built.body.tool_choice).toEqual({ type: "tool", name: "search" });
    expect(built.body.thinking).toEqual({ type: "disabled" });
    expect(built.outputTool).toBe("person");
    expect(built.warnings).toContain(
      "thinking cannot be combined with a forced tool choice; thinking turned off for this call",
    );
  });

  it("parallelToolCalls false stays on the forced choice", () => {
    const built = build("claude-opus-4-1", PERSON, { parallelToolCalls: false }, [SEARCH]);
    expect(built.body.tool_choice).toEqual({ type: "any", disable_parallel_tool_use: true });
  });

  it("with thinking on: tool_choice auto (the API takes no forced choice with thinking), thinking kept, a warning", () => {
    const built = build("claude-sonnet-4-20250514", PERSON, {
      thinking: { budgetTokens: 4096 },
      maxTokens: 8000,
    });
    expect(built.body.thinking).toEqual({ type: "enabled", budget_tokens: 4096 });
    expect(built.body.tool_choice).toEqual({ type: "auto" });
    expect(built.outputTool).toBe("person");
    expect(built.warnings).toEqual([
      expect.stringMatching(
        /^responseFormat goes as the output tool person: with thinking on, the API takes no forced tool choice/,
      ),
    ]);
  });

  it('thinking off by request ("off") forces the tool as usual', () => {
    const built = build("claude-sonnet-4-20250514", PERSON, { thinking: "off" });
    expect(built.body.thinking).toEqual({ type: "disabled" });
    expect(built.body.tool_choice).toEqual({ type: "any" });
    expect(built.warnings).toEqual([]);
  });

  it("a caller's tool with the format's name is refused, naming responseFormat.name (buildRequest does not throw)", () => {
    const built = build("claude-3-haiku", PERSON, {}, [{ name: "person", parameters: { type: "object" } }]);
    expect(built.refused).toEqual([
      { path: "responseFormat.name", message: expect.stringMatching(/"person" is also the name/) },
    ]);
    expect(built.outputTool).toBeUndefined();
  });
});

describe("through the provider", () => {
  const json = (body: object) =>
    new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });
  const usage = { input_tokens: 5, output_tokens: 5 };

  it("native: the answer's text is parsed into object", async () => {
    const sent: Record<string, unknown>[] = [];
    const claude = anthropic({
      apiKey: "sk-ant-test",
      model: "claude-haiku-4-5",
      fetch: (async (_url: RequestInfo | URL, init?: RequestInit) => {
        sent.push(JSON.parse(String(init?.body)));
        return json({
          model: "claude-haiku-4-5",
          content: [{ type: "text", text: '{"name":"Ada"}' }],
          stop_reason: "end_turn",
          usage,
        });
      }) as typeof fetch,
    });
    const response = await claude.complete([{ role: "user", content: "Who?" }], [], {
      responseFormat: { type: "json_schema", name: "person", schema: SCHEMA },
    });
    expect(sent[0]!.output_config).toEqual({ format: { type: "json_schema", schema: SCHEMA } });
    expect(response.object).toEqual({ name: "Ada" });
  });

  it("forced tool, streamed: the tool's input arrives as text, not as a tool call, and done carries the object", async () => {
    const events = [
      { type: "message_start", message: { model: "claude-3-5-haiku", content: [], usage } },
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: "toolu_1", name: "person", input: {} },
      },
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: '{"name":' },
      },
      { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '"Ada"}' } },
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "tool_use" }, usage },
      { type: "message_stop" },
    ];
    const sse = events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join("");
    const claude = anthropic({
      apiKey: "sk-ant-test",
      model: "claude-3-5-haiku",
      fetch: (async () =>
        new Response(sse, { headers: { "content-type": "text/event-stream" } })) as typeof fetch,
    });
    const seen: StreamEvent[] = [];
    for await (const event of claude.stream([{ role: "user", content: "Who?" }], [], {
      responseFormat: { type: "json_schema", name: "person", schema: SCHEMA },
    })) {
      seen.push(event);
    }
    expect(
      seen
        .filter((event) => event.type === "text-delta")
        .map((event) => (event as { text: string }).text)
        .join(""),
    ).toBe('{"name":"Ada"}');
    expect(seen.some((event) => event.type === "tool-call-start")).toBe(false);
    const done = seen.at(-1) as Extract<StreamEvent, { type: "done" }>;
    expect(done.response.object).toEqual({ name: "Ada" });
    expect(done.response.stopReason).toBe("stop");
  });
});

describe("Bedrock InvokeModel carries the format", () => {
  const invoke = (model: string, format: PreparedResponseFormat) =>
    buildBedrockInvokeRequest({
      messages: [{ role: "user", content: "Who?" }],
      tools: [],
      options: { cache: "off" },
      model,
      profile: anthropicModelProfile(model),
      format,
    });

  it("natively on a model that takes it", () => {
    const built = invoke("us.anthropic.claude-sonnet-4-5-20250929-v1:0", PERSON);
    expect(built.body.output_config).toEqual({ format: { type: "json_schema", schema: SCHEMA } });
    expect(built.outputTool).toBeUndefined();
  });

  it("as the forced tool on one that does not, with outputTool set", () => {
    const built = invoke("anthropic.claude-3-5-sonnet-20241022-v2:0", PERSON);
    expect(built.body.tool_choice).toEqual({ type: "any" });
    expect(built.outputTool).toBe("person");
  });
});
