/**
 * Compaction's edges found by review: a transcript too long for the summarizer replaces only the turns it
 * shows (the rest stay verbatim, never dropped unseen); a failing summarizer leaves the history as it was
 * and the run goes on, saying so; a turn the provider paused goes on; a later system message is kept;
 * Anthropic's compaction iterations are billed; a route's context management reaches native passthrough.
 */
import { describe, expect, it } from "vitest";
import { type AgentEvent, runAgent } from "../../src/agent/run-agent.ts";
import { compaction } from "../../src/compaction/index.ts";
import type { MessageInput } from "../../src/core/message.ts";
import { mapAnthropicUsage } from "../../src/protocols/anthropic-messages/map-anthropic-usage.ts";
import { anthropic } from "../../src/providers/anthropic.ts";
import { FakeProvider } from "../../src/testing.ts";

/** A history of `turns` user/assistant pairs, each user turn `size` characters and naming its number. */
function history(turns: number, size: number): MessageInput[] {
  const messages: MessageInput[] = [{ role: "system", content: "sys" }];
  for (let turn = 0; turn < turns; turn++) {
    messages.push({ role: "user", content: `fact ${turn}: ${"x".repeat(size)}` });
    messages.push({ role: "assistant", content: `noted ${turn}` });
  }
  messages.push({ role: "user", content: "go on" });
  return messages;
}

describe("compaction, after review", () => {
  it("replaces only the turns the summarizer's transcript holds: every replaced turn was shown to it", async () => {
    const agent = new FakeProvider({ script: [{ text: "ok" }] });
    const writer = new FakeProvider({ script: [{ text: "summary" }] });
    const messages = history(40, 1000);
    const result = await runAgent({
      provider: agent,
      messages,
      compaction: compaction({
        threshold: 100,
        keepTurns: 2,
        summarizer: writer,
        maxTranscriptChars: 10_000,
      }),
    });
    const shown = String(writer.calls[0]!.messages[1]!.content);
    const sent = agent.calls[0]!.messages;
    // Every fact is either in what the summarizer saw or still in the history sent.
    for (let turn = 0; turn < 40; turn++) {
      const inHistory = sent.some((message) => String(message.content).startsWith(`fact ${turn}:`));
      expect(shown.includes(`fact ${turn}:`) || inHistory, `fact ${turn}`).toBe(true);
    }
    expect(shown.length).toBeLessThanOrEqual(10_000);
    expect(result.compactions[0]!.messagesReplaced).toBeGreaterThan(0);
    expect(result.compactions[0]!.messagesReplaced).toBeLessThan(80);
  });

  it("a summarizer that fails leaves the history whole; the run goes on and reports it", async () => {
    const agent = new FakeProvider({ script: [{ text: "answered" }] });
    const writer = new FakeProvider({ script: [{ text: "   " }] });
    const events: AgentEvent[] = [];
    const messages = history(6, 100);
    const result = await runAgent({
      provider: agent,
      messages,
      compaction: compaction({ threshold: 100, keepTurns: 2, summarizer: writer }),
      onEvent: (event) => events.push(event),
    });
    expect(result.status).toBe("done");
    expect(agent.calls[0]!.messages).toHaveLength(messages.length);
    expect(result.compactionErrors).toHaveLength(1);
    expect(result.compactionErrors[0]).toContain("returned no text");
    expect(events.some((event) => event.type === "compaction-failed")).toBe(true);
  });

  it("a turn the provider paused (pause_turn, a compaction that pauses) is sent again, not taken as the answer", async () => {
    const agent = new FakeProvider({
      script: [{ text: "", stopReason: "pause", rawStopReason: "compaction" }, { text: "the answer" }],
    });
    const result = await runAgent({ provider: agent, messages: [{ role: "user", content: "hi" }] });
    expect(result.status).toBe("done");
    expect(agent.calls).toHaveLength(2);
    expect(result.messages.at(-1)?.content).toBe("the answer");
  });

  it("a system message among the replaced turns is kept", async () => {
    const agent = new FakeProvider({ script: [{ text: "ok" }] });
    const writer = new FakeProvider({ script: [{ text: "summary" }] });
    const messages = history(6, 100);
    messages.splice(3, 0, { role: "system", content: "later rule: answer in French" });
    await runAgent({
      provider: agent,
      messages,
      compaction: compaction({ threshold: 100, keepTurns: 2, summarizer: writer }),
    });
    const sent = agent.calls[0]!.messages;
    expect(
      sent.some((message) => message.role === "system" && message.content === "later rule: answer in French"),
    ).toBe(true);
    expect(sent.some((message) => message.synthetic === true)).toBe(true);
  });

  it("Anthropic's compaction iteration is billed beside the message's (the recorded figures)", () => {
    const usage = mapAnthropicUsage({
      input_tokens: 181,
      output_tokens: 8,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
      iterations: [
        {
          type: "compaction",
          input_tokens: 100,
          output_tokens: 83,
          cache_read_input_tokens: 55_096,
          cache_creation_input_tokens: 0,
        },
        {
          type: "message",
          input_tokens: 181,
          output_tokens: 8,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
        },
      ],
    });
    expect(usage).toMatchObject({
      inputTokens: 281,
      outputTokens: 91,
      cachedInputTokens: 55_096,
      cacheWriteTokens: 0,
    });
    // An advisor's iteration is another model's: not added.
    const advisor = mapAnthropicUsage({
      input_tokens: 10,
      output_tokens: 1,
      iterations: [{ type: "advisor_message", input_tokens: 999, output_tokens: 9 }],
    });
    expect(advisor).toMatchObject({ inputTokens: 10, outputTokens: 1 });
  });

  it("a provider's contextManagement reaches a native (passthrough) request unless the client sent its own", async () => {
    const bodies: Record<string, unknown>[] = [];
    const claude = anthropic({
      apiKey: "k",
      model: "claude-sonnet-4-6",
      contextManagement: { edits: [{ type: "clear_tool_uses_20250919" }] },
      fetch: async (_url, init) => {
        bodies.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
        return Response.json({
          id: "msg_1",
          type: "message",
          role: "assistant",
          model: "claude-sonnet-4-6",
          content: [{ type: "text", text: "hi" }],
          stop_reason: "end_turn",
          usage: { input_tokens: 1, output_tokens: 1 },
        });
      },
    });
    const native = (claude as unknown as { native: { send(request: unknown): Promise<unknown> } }).native;
    await native.send({
      body: { model: "x", max_tokens: 5, messages: [{ role: "user", content: "hi" }] },
      stream: false,
    });
    expect(bodies[0]!.context_management).toEqual({ edits: [{ type: "clear_tool_uses_20250919" }] });
    const own = { edits: [] };
    await native.send({
      body: {
        model: "x",
        max_tokens: 5,
        messages: [{ role: "user", content: "hi" }],
        context_management: own,
      },
      stream: false,
    });
    expect(bodies[1]!.context_management).toEqual(own);
  });
});
