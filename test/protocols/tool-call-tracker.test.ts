/**
 * The one tool-call tracker of the stream assemblers (src/protocols/tool-call-tracker.ts): calls opened
 * under their wire key, started once (positions in start order), argument pieces held before the start and
 * merged per read after it, ended once, and the calls still open at the end closed from the final response.
 */
import { describe, expect, it } from "vitest";
import type { StreamEvent, ToolCall } from "../../src/index.ts";
import { endToolCallsFrom, ToolCallTracker } from "../../src/protocols/tool-call-tracker.ts";

describe("ToolCallTracker", () => {
  it("holds argument pieces until the start, then sends them as one delta after the start", () => {
    const tracker = new ToolCallTracker<number>();
    const out: StreamEvent[] = [];
    const call = tracker.open(3);
    tracker.append(call, '{"a"', out);
    tracker.append(call, ":1", out);
    expect(out).toEqual([]);
    call.id = "call_1";
    call.name = "lookup";
    tracker.start(call, out);
    tracker.start(call, out); // once
    expect(out).toEqual([
      { type: "tool-call-start", index: 0, id: "call_1", name: "lookup" },
      { type: "tool-call-delta", index: 0, id: "call_1", argumentsDelta: '{"a":1' },
    ]);
    expect(tracker.get(3)).toBe(call);
    expect(call.arguments.text()).toBe('{"a":1');
  });

  it("merges pieces of one call that follow each other in one read; another call's piece breaks the run", () => {
    const tracker = new ToolCallTracker<number>();
    const first = tracker.open(0);
    const second = tracker.open(1);
    const setUp: StreamEvent[] = [];
    Object.assign(first, { id: "a", name: "f" });
    Object.assign(second, { id: "b", name: "g" });
    tracker.start(first, setUp);
    tracker.start(second, setUp);
    const out: StreamEvent[] = [];
    tracker.append(first, "1", out);
    tracker.append(first, "2", out);
    tracker.append(second, "x", out);
    tracker.append(first, "3", out);
    tracker.append(first, "", out); // nothing to send
    expect(out).toEqual([
      { type: "tool-call-delta", index: 0, id: "a", argumentsDelta: "12" },
      { type: "tool-call-delta", index: 1, id: "b", argumentsDelta: "x" },
      { type: "tool-call-delta", index: 0, id: "a", argumentsDelta: "3" },
    ]);
  });

  it("takes positions in start order, ends a call once, and ignores pieces after its end", () => {
    const tracker = new ToolCallTracker<number>();
    const out: StreamEvent[] = [];
    const late = tracker.open(0);
    const early = tracker.open(1);
    Object.assign(early, { id: "e", name: "f" });
    tracker.start(early, out);
    Object.assign(late, { id: "l", name: "g" });
    tracker.start(late, out);
    expect([early.position, late.position]).toEqual([0, 1]);
    expect(tracker.started).toEqual([early, late]);
    const final: ToolCall = { id: "e", name: "f", arguments: {} };
    tracker.end(early, final, out);
    tracker.end(early, final, out);
    tracker.append(early, "after", out);
    expect(out.filter((event) => event.type === "tool-call-end")).toEqual([
      { type: "tool-call-end", index: 0, toolCall: final },
    ]);
    expect(early.arguments.text()).toBe("");
  });

  it("a call that never starts (a server tool's input) gathers its text and sends nothing", () => {
    const tracker = new ToolCallTracker<string>();
    const out: StreamEvent[] = [];
    const server = tracker.open("srv");
    tracker.append(server, '{"q":', out);
    tracker.append(server, '"x"}', out);
    tracker.end(server, { id: "s", name: "search", arguments: {} }, out);
    expect(out).toEqual([]);
    expect(server.position).toBeUndefined();
    expect(server.arguments.text()).toBe('{"q":"x"}');
  });

  it("endToolCallsFrom: ends open calls from the final response, starting those that never started", () => {
    const tracker = new ToolCallTracker<number>();
    const out: StreamEvent[] = [];
    const open = tracker.open(0);
    Object.assign(open, { id: "a", name: "f" });
    tracker.start(open, out);
    tracker.append(open, '{"x":', out);
    const done = tracker.open(1);
    Object.assign(done, { id: "b", name: "g" });
    tracker.start(done, out);
    const doneCall: ToolCall = { id: "b", name: "g", arguments: {} };
    tracker.end(done, doneCall, out);
    out.length = 0;
    const final: ToolCall[] = [
      { id: "a", name: "f", arguments: { x: 1 }, argumentsText: '{"x":1}' },
      doneCall,
      { id: "c", name: "h", arguments: { y: 2 }, argumentsText: '{"y":2}' },
    ];
    endToolCallsFrom(tracker, final, out);
    expect(out).toEqual([
      { type: "tool-call-end", index: 0, toolCall: final[0] },
      { type: "tool-call-start", index: 2, id: "c", name: "h" },
      { type: "tool-call-delta", index: 2, id: "c", argumentsDelta: '{"y":2}' },
      { type: "tool-call-end", index: 2, toolCall: final[2] },
    ]);
  });
});
