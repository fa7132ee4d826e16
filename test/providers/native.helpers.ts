/** Shared by the native-call tests: recorded streams split into their events independently of src/. */
import type { NativeEvent } from "../../src/providers/native.ts";
import { type FixtureInteraction, loadFixture } from "../helpers/fixtures.ts";

const decoder = new TextDecoder();

/**
 * The events of an SSE body, split by hand (blank line between events; `event:` and `data:` lines, one
 * space after the colon dropped): the reference the native events are compared with, byte for byte.
 * Without an `event:` line the event is the JSON's `type`, as `sseNativeEvent` names it.
 */
export function sseEventsOf(text: string): NativeEvent[] {
  const events: NativeEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith("event:")) event = line.slice(6).replace(/^ /, "");
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (data.length === 0) continue;
    const joined = data.join("\n");
    if (joined === "[DONE]") continue;
    events.push({ event: event ?? (JSON.parse(joined) as { type: string }).type, data: joined });
  }
  return events;
}

/** Interaction `index` of a recorded fixture. */
export async function recording(path: string, index = 0): Promise<FixtureInteraction> {
  const fixture = await loadFixture(path);
  const interaction = fixture.interactions.find((entry) => entry.index === index);
  if (!interaction) throw new Error(`${path} has no interaction ${index}`);
  return interaction;
}

/** A recorded body as text. */
export const textOf = (bytes: Uint8Array) => decoder.decode(bytes);

/** Every event of an async iterable of native events. */
export async function drain(events: AsyncIterable<NativeEvent> | undefined): Promise<NativeEvent[]> {
  if (!events) throw new Error("no events");
  const out: NativeEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** The events out before the iteration failed, and the failure. */
export async function drainFailing(
  events: AsyncIterable<NativeEvent> | undefined,
): Promise<{ events: NativeEvent[]; error: unknown }> {
  if (!events) throw new Error("no events");
  const out: NativeEvent[] = [];
  try {
    for await (const event of events) out.push(event);
  } catch (error) {
    return { events: out, error };
  }
  throw new Error("expected the stream to fail");
}

/** One captured upstream request. */
export interface Captured {
  url: string;
  headers: Headers;
  text: string;
  body: Record<string, unknown>;
}

/** A `fetch` recording every request and answering with `respond`. */
export function recordingFetch(respond: (captured: Captured) => Response | Promise<Response>) {
  const requests: Captured[] = [];
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const text = String(init?.body ?? "");
    const captured: Captured = {
      url: String(input),
      headers: new Headers(init?.headers),
      text,
      body: JSON.parse(text) as Record<string, unknown>,
    };
    requests.push(captured);
    return respond(captured);
  }) as typeof fetch;
  return { fetch: fetchImpl, requests };
}

/** An SSE response of `text`. */
export const sseAnswer = (text: string | ReadableStream<Uint8Array>) =>
  new Response(text, { headers: { "content-type": "text/event-stream" } });

/** SSE text of Anthropic-style events (`event:` the JSON's type). */
export function anthropicSse(events: readonly Record<string, unknown>[]): string {
  return events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`).join("");
}
