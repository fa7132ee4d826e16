/**
 * One test per defect that seed 004 (the review of the Python implementation this project grew from) found on the OpenAI Responses path
 * of the Python implementation, each named after it, driven end to end through `openaiResponses()` with an
 * injected `fetch` (recorded bodies from `test/fixtures/` where they exist, hand-built ones
 * otherwise). The defects the review found on the Anthropic path are in
 * test/protocols/anthropic-messages/seed-004-defects.test.ts.
 */
import { describe, expect, it } from "vitest";
import {
  collectStream,
  type MessageInput,
  type Response as ModelResponse,
  totalInputTokens,
} from "../../../src/index.ts";
import { openaiResponses } from "../../../src/providers/openai-responses.ts";
import { loadFixture } from "../../helpers/fixtures.ts";

type Json = Record<string, unknown>;

const TOOLS = [
  {
    name: "calculator",
    parameters: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" }, op: { type: "string" } },
    },
  },
];

/** A fetch answering each call with the next body (SSE text, or a JSON object), recording what was sent. */
function scripted(model: string, ...replies: (string | Json)[]) {
  const sent: Json[] = [];
  const provider = openaiResponses({
    apiKey: "sk-test-seed004-0000000000000",
    model,
    fetch: async (_url, init) => {
      sent.push(JSON.parse(String(init?.body)) as Json);
      const reply = replies[sent.length - 1];
      if (reply === undefined) throw new Error(`unexpected request #${sent.length}`);
      if (typeof reply === "string")
        return new Response(reply, { headers: { "content-type": "text/event-stream" } });
      return Response.json(reply);
    },
  });
  return { provider, sent };
}

function sse(events: Json[]): string {
  return events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join("");
}

function completedStream(response: Json): string {
  const items = response.output as Json[];
  return sse([
    { type: "response.created", response: { ...response, status: "in_progress", output: [], usage: null } },
    ...items.flatMap((item, index) => [
      { type: "response.output_item.added", output_index: index, item },
      { type: "response.output_item.done", output_index: index, item },
    ]),
    { type: "response.completed", response },
  ]);
}

const rs = (id: string): Json => ({
  id,
  type: "reasoning",
  encrypted_content: `gAAAA-${id}`,
  summary: [{ type: "summary_text", text: `about ${id}` }],
});
const fc = (callId: string, args: string): Json => ({
  id: `fc_${callId}`,
  type: "function_call",
  status: "completed",
  arguments: args,
  call_id: callId,
  name: "calculator",
});

describe("seed 004: assistant replay reordered reasoning against calls", () => {
  const items = [
    rs("rs_a"),
    fc("call_a", '{"a":1,"b":2,"op":"add"}'),
    rs("rs_b"),
    fc("call_b", '{"a":3,"b":4,"op":"add"}'),
  ];
  const response = {
    id: "resp_1",
    object: "response",
    model: "gpt-5",
    status: "completed",
    output: items,
    usage: { input_tokens: 10, output_tokens: 20, output_tokens_details: { reasoning_tokens: 12 } },
  };
  const followUp = { ...response, id: "resp_2", output: [] };

  for (const path of ["stream", "complete"] as const) {
    it(`assistant replay reordered reasoning against calls: reasoning → call_a → reasoning → call_b replays in that order (${path})`, async () => {
      const first = path === "stream" ? completedStream(response) : response;
      const { provider, sent } = scripted("gpt-5", first, followUp);
      const history: MessageInput[] = [{ role: "user", content: "1+2 and 3+4" }];
      const answer =
        path === "stream"
          ? await collectStream(provider.stream(history, TOOLS))
          : await provider.complete(history, TOOLS);
      history.push(answer.message, {
        role: "tool",
        toolResults: [
          { callId: "call_a", content: "3" },
          { callId: "call_b", content: "7" },
        ],
      });
      await provider.complete(history, TOOLS);
      const input = sent[1]!.input as Json[];
      const order = input.map((item) => item.id ?? item.type ?? item.role);
      expect(order).toEqual([
        "user",
        "rs_a",
        "fc_call_a",
        "rs_b",
        "fc_call_b",
        "function_call_output",
        "function_call_output",
      ]);
      // The defect's order: all reasoning, then the calls — a different pairing than the turn was made with.
      expect(order.slice(1, 5)).not.toEqual(["rs_a", "rs_b", "fc_call_a", "fc_call_b"]);
      expect(input.slice(1, 5)).toStrictEqual(items);
    });
  }

  it("assistant replay reordered reasoning against calls: the recorded 4-response agent loop replays reasoning → call, call, call in emission order", async () => {
    const fixture = await loadFixture(
      "openai-responses/vercel-ai__openai-reasoning-encrypted-content.1.chunks.txt",
    );
    const lines = fixture.interactions[0]!.lines!;
    // The file is four responses one after the other: one stream per turn.
    const bodies: string[] = [];
    for (const line of lines) {
      if ((JSON.parse(line) as Json).type === "response.created") bodies.push("");
      bodies[bodies.length - 1] += `data: ${line}\n\n`;
    }
    expect(bodies).toHaveLength(4);
    const { provider, sent } = scripted("gpt-5.1-codex-max", ...bodies);
    const history: MessageInput[] = [{ role: "user", content: "(12 + 7) * 3 * 10?" }];
    const turns: ModelResponse[] = [];
    for (let turn = 0; turn < 4; turn++) {
      const response = await collectStream(provider.stream(history, TOOLS, { thinking: { effort: "high" } }));
      turns.push(response);
      history.push(response.message);
      for (const call of response.message.toolCalls)
        history.push({ role: "tool", toolResults: [{ callId: call.id, content: "42" }] });
    }
    expect(turns.map((t) => t.stopReason)).toEqual(["tool-calls", "tool-calls", "tool-calls", "stop"]);
    expect(turns[3]!.message.content).toBe("The final result is **570**.");
    const last = sent[3]!.input as Json[];
    expect(last.map((item) => item.type ?? item.role)).toEqual([
      "user",
      "reasoning",
      "function_call",
      "function_call_output",
      "function_call",
      "function_call_output",
      "function_call",
      "function_call_output",
    ]);
    // Replayed exactly as the first turn produced it: the final encrypted_content, summary and ids.
    expect(last.slice(1, 3)).toStrictEqual(turns[0]!.message.native!.blocks);
    const reasoning = last[1]!;
    expect(reasoning.encrypted_content).toMatch(/^gAAAAABpPDIVYBwu/); // response.completed's value
    expect(sent.every((body) => body.store === false)).toBe(true);
    expect(sent[0]!.include).toEqual(["reasoning.encrypted_content"]);
  });

  it("assistant replay reordered reasoning against calls: history predating native items falls back to its tool calls, guarded", async () => {
    const { provider, sent } = scripted("gpt-5", { ...followUp, output: [] });
    await provider.complete(
      [
        { role: "user", content: "go" },
        {
          role: "assistant",
          content: "Working on it.",
          toolCalls: [
            { id: "call_1", name: "calculator", arguments: { a: 1 } },
            { id: "", name: "calculator", arguments: { a: 2 } },
            { id: "call_3", name: "", arguments: {} },
          ],
        },
        { role: "tool", toolResults: [{ callId: "call_1", content: "1" }] },
      ],
      TOOLS,
    );
    expect(sent[0]!.input).toStrictEqual([
      { role: "user", content: "go" },
      { role: "assistant", content: "Working on it." },
      { type: "function_call", call_id: "call_1", name: "calculator", arguments: '{"a":1}' },
      { type: "function_call", call_id: "call_1_1", name: "calculator", arguments: '{"a":2}' },
      { type: "function_call_output", call_id: "call_1", output: "1" },
      {
        type: "function_call_output",
        call_id: "call_1_1",
        output: "Error: No result was recorded for this tool call.",
      },
    ]);
  });

  it("assistant replay reordered reasoning against calls: malformed stored arguments never wedge the session", async () => {
    const truncated = fc("call_a", '{"a":1,"b":');
    const { provider, sent } = scripted("gpt-5", { ...followUp, output: [] });
    const stored = JSON.parse(
      JSON.stringify([
        { role: "user", content: "go" },
        {
          role: "assistant",
          content: "",
          toolCalls: [{ id: "call_a", name: "calculator", arguments: {}, argumentsText: '{"a":1,"b":' }],
          native: {
            protocol: "openai-responses",
            origin: "openai",
            model: "gpt-5",
            blocks: [rs("rs_a"), truncated],
          },
        },
        { role: "tool", toolResults: [{ callId: "call_a", content: "bad arguments", isError: true }] },
      ]),
    ) as MessageInput[];
    const answer = await provider.complete(stored, TOOLS);
    expect(answer.stopReason).toBe("stop");
    // The truncated call goes back as it was produced; its result says it failed.
    expect(sent[0]!.input).toStrictEqual([
      { role: "user", content: "go" },
      rs("rs_a"),
      truncated,
      { type: "function_call_output", call_id: "call_a", output: "Error: bad arguments" },
    ]);
  });
});

describe("seed 004: reasoning_tokens zero handling", () => {
  it("reasoning_tokens zero handling: a reported 0 stays 0, streamed and not (recorded gpt-4o stream)", async () => {
    const fixture = await loadFixture("openai-responses/pydantic-ai__test_openai_responses_stream.yaml");
    const body = new TextDecoder().decode(fixture.interactions[1]!.body);
    expect(body).toContain('"reasoning_tokens":0');
    const { provider } = scripted("gpt-4o", body);
    const streamed = await collectStream(provider.stream([{ role: "user", content: "hi" }]));
    expect(streamed.usage).toStrictEqual({
      inputTokens: 278,
      outputTokens: 9,
      cachedInputTokens: 0,
      reasoningTokens: 0,
    });
    expect(streamed.usage).not.toEqual({});
    const terminal = body
      .split("\n")
      .filter((line) => line.startsWith("data:"))
      .map((line) => JSON.parse(line.slice(5)) as Json)
      .find((event) => event.type === "response.completed")!.response as Json;
    const { provider: json } = scripted("gpt-4o", terminal);
    expect((await json.complete([{ role: "user", content: "hi" }])).usage).toStrictEqual(streamed.usage);
  });

  it("reasoning_tokens zero handling: absent details are undefined, not 0", async () => {
    const { provider } = scripted("gpt-5", {
      id: "resp_1",
      model: "gpt-5",
      status: "completed",
      output: [],
      usage: { input_tokens: 5, output_tokens: 1 },
    });
    const response = await provider.complete([{ role: "user", content: "hi" }]);
    expect(response.usage).toStrictEqual({ inputTokens: 5, outputTokens: 1 });
    expect("reasoningTokens" in response.usage).toBe(false);
    expect("cachedInputTokens" in response.usage).toBe(false);
  });

  it("reasoning_tokens zero handling: cached and cache-written tokens come out of input, each in its own field", async () => {
    const { provider } = scripted("gpt-5", {
      id: "resp_1",
      model: "gpt-5",
      status: "completed",
      output: [],
      usage: {
        input_tokens: 9463,
        input_tokens_details: { cached_tokens: 8320, cache_write_tokens: 100 },
        output_tokens: 582,
        output_tokens_details: { reasoning_tokens: 512 },
      },
    });
    const response = await provider.complete([{ role: "user", content: "hi" }]);
    expect(response.usage).toStrictEqual({
      inputTokens: 1043,
      outputTokens: 582,
      cachedInputTokens: 8320,
      cacheWriteTokens: 100,
      reasoningTokens: 512,
    });
    expect(totalInputTokens(response.usage)).toBe(9463);
  });
});
