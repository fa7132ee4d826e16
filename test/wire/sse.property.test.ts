import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ReadSseOptions, readSse, type SseEvent } from "../../src/wire/sse.ts";
import { byteStream, concatBytes, splitAt, trackedChunkStream } from "../helpers/byte-stream.ts";
import { type SseFixture, sseFixtures } from "../helpers/fixtures.ts";

async function collect(stream: ReadableStream<Uint8Array>, options?: ReadSseOptions): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of readSse(stream, options)) events.push(event);
  return events;
}

/**
 * `toEqual` on hundreds of events or a 200 KB byte array is slow: compare field by field first and only
 * fall back to `toEqual` (for its diff) when something differs.
 */
function expectSameEvents(actual: SseEvent[], expected: SseEvent[] | undefined, message?: string): void {
  const same =
    expected !== undefined &&
    actual.length === expected.length &&
    actual.every((event, i) => {
      const other = expected[i]!;
      return event.data === other.data && event.event === other.event && event.id === other.id;
    });
  if (!same) expect(actual, message).toEqual(expected);
}

function expectSameBytes(actual: Uint8Array, expected: Uint8Array): void {
  const same = actual.length === expected.length && actual.every((byte, i) => byte === expected[i]);
  if (!same) expect(actual).toEqual(expected);
}

/**
 * Where a property cuts a body: cycled small chunk sizes (1-byte chunks included) inside a window of
 * up to {@link WINDOW} bytes placed anywhere in the body, plus up to 40 random cut points anywhere.
 * The window keeps the chunk count (and the run time) bounded on the 200 KB bodies; on bodies shorter
 * than the window every byte is cut by the sizes.
 */
interface Split {
  sizes: readonly number[];
  windowAt: number;
  fractions: number[];
}
const WINDOW = 8192;

const splitArb: fc.Arbitrary<Split> = fc.record({
  sizes: fc.oneof(
    fc.constant([1]),
    fc.array(fc.integer({ min: 1, max: 48 }), { minLength: 1, maxLength: 6 }),
    fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 6 }),
  ),
  windowAt: fc.double({ min: 0, max: 1, noNaN: true }),
  fractions: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 40 }),
});

function cut(bytes: Uint8Array, split: Split): Uint8Array[] {
  const offsets = split.fractions.map((f) => Math.floor(f * bytes.length));
  const start = Math.floor(split.windowAt * Math.max(0, bytes.length - WINDOW));
  const end = Math.min(bytes.length, start + WINDOW);
  for (let offset = start, i = 0; offset < end; i++) {
    offsets.push(offset);
    offset += split.sizes[i % split.sizes.length]!;
  }
  return splitAt(bytes, offsets);
}

const fixtures = await sseFixtures();
const fixtureByName = new Map(fixtures.map((fixture) => [fixture.name, fixture]));
/**
 * What one read of the whole body gives, computed in the test that compares with it (not at import: a
 * mutation-testing run would see the code as run at load time and credit no test with it).
 */
const expectedOf = (name: string): Promise<SseEvent[]> => collect(byteStream(fixtureByName.get(name)!.body));

describe("readSse over every recorded SSE body", () => {
  it("has real bodies to test", async () => {
    console.info(
      `SSE fixtures: ${fixtures.length} bodies (${fixtures.filter((f) => !f.decoded).length} real)`,
    );
    expect(fixtures.filter((f) => !f.decoded).length).toBeGreaterThan(30);
    // An oracle independent of the parser: in these recordings every event has exactly one `data:` line.
    const decoder = new TextDecoder();
    for (const fixture of fixtures) {
      const dataLines = decoder
        .decode(fixture.body)
        .split("\n")
        .filter((line) => line.startsWith("data:")).length;
      expect((await expectedOf(fixture.name)).length, fixture.name).toBe(dataLines);
      expect(dataLines, fixture.name).toBeGreaterThan(0);
    }
  });

  it.each(fixtures.map((fixture) => [fixture.name, fixture] as const))(
    "%s: any split of the bytes yields the same events as the whole body",
    async (name, fixture: SseFixture) => {
      const expected = await expectedOf(name);
      await fc.assert(
        fc.asyncProperty(splitArb, async (split) => {
          const chunks = cut(fixture.body, split);
          expectSameBytes(concatBytes(chunks), fixture.body);
          expectSameEvents(await collect(trackedChunkStream(chunks).stream), expected);
        }),
        { numRuns: 8 },
      );
    },
  );

  it("one byte at a time, every body from start to end", async () => {
    for (const fixture of fixtures) {
      const events = await collect(byteStream(fixture.body, [1]));
      expectSameEvents(events, await expectedOf(fixture.name), fixture.name);
    }
  });

  it("across all bodies at once: 300 random (body, split) pairs", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...fixtures), splitArb, async (fixture, split) => {
        const events = await collect(trackedChunkStream(cut(fixture.body, split)).stream);
        expectSameEvents(events, await expectedOf(fixture.name), fixture.name);
      }),
      { numRuns: 300 },
    );
  });
});

// ---------------------------------------------------------------------------------------------------
// Generated streams: arbitrary fields with unicode, random line endings, random splits.

/** A field value: any code points (astral ones included) except the line terminators. */
const valueArb = (minLength = 0) =>
  fc
    .string({ unit: "binary", maxLength: 12 })
    .map((s) => s.replace(/[\r\n]/g, ""))
    .filter((s) => s.length >= minLength);

interface GeneratedEvent {
  comment: string | null;
  retry: number | null;
  id: string | null;
  event: string | null;
  data: string[];
  eventAfterData: boolean;
}

const eventArb: fc.Arbitrary<GeneratedEvent> = fc.record({
  comment: fc.option(valueArb()),
  retry: fc.option(fc.nat({ max: 1_000_000 })),
  id: fc.option(valueArb().map((s) => s.replace(/\0/g, ""))),
  event: fc.option(valueArb(1)),
  data: fc.array(valueArb(), { minLength: 1, maxLength: 4 }),
  eventAfterData: fc.boolean(),
});

interface GeneratedStream {
  events: GeneratedEvent[];
  bom: boolean;
  endings: string[];
  tail: "blank-line" | "line-ending" | "none";
}

const streamArb: fc.Arbitrary<GeneratedStream> = fc.record({
  events: fc.array(eventArb, { maxLength: 8 }),
  bom: fc.boolean(),
  /** The ending of each line, drawn cyclically. */
  endings: fc.array(fc.constantFrom("\n", "\r\n", "\r"), { minLength: 1, maxLength: 16 }),
  /** How the stream ends: with the blank line, with only the last line's ending, or mid-line. */
  tail: fc.constantFrom("blank-line" as const, "line-ending" as const, "none" as const),
});

function serialize(stream: GeneratedStream): string {
  const lines: string[] = [];
  for (const event of stream.events) {
    if (event.comment !== null) lines.push(`: ${event.comment}`);
    if (event.retry !== null) lines.push(`retry: ${event.retry}`);
    if (event.id !== null) lines.push(`id: ${event.id}`);
    if (event.event !== null && !event.eventAfterData) lines.push(`event: ${event.event}`);
    for (const data of event.data) lines.push(`data: ${data}`);
    if (event.event !== null && event.eventAfterData) lines.push(`event: ${event.event}`);
    lines.push("");
  }
  if (stream.tail !== "blank-line") lines.pop();
  let out = stream.bom ? "\uFEFF" : "";
  let previous = "";
  lines.forEach((line, i) => {
    let ending = stream.endings[i % stream.endings.length]!;
    // A blank line's "\n" right after a "\r" would join it into one CRLF: write the blank line as CRLF.
    if (line === "" && previous === "\r" && ending === "\n") ending = "\r\n";
    const last = i === lines.length - 1;
    out += line + (last && stream.tail === "none" ? "" : ending);
    previous = ending;
  });
  return out;
}

describe("readSse over generated streams", () => {
  it("parses any serialised stream back to its events, comments and retries, however it is split", async () => {
    const encoder = new TextEncoder();
    await fc.assert(
      fc.asyncProperty(streamArb, splitArb, async (stream, split) => {
        const bytes = encoder.encode(serialize(stream));
        const comments: string[] = [];
        const retries: number[] = [];
        const events = await collect(trackedChunkStream(cut(bytes, split)).stream, {
          onComment: (comment) => comments.push(comment),
          onRetry: (retry) => retries.push(retry),
        });
        expect(events).toEqual(
          stream.events.map((event) => ({
            event: event.event ?? undefined,
            data: event.data.join("\n"),
            id: event.id ?? undefined,
          })),
        );
        expect(comments).toEqual(
          stream.events.flatMap((event) => (event.comment === null ? [] : [event.comment])),
        );
        expect(retries).toEqual(
          stream.events.flatMap((event) => (event.retry === null ? [] : [event.retry])),
        );
      }),
      { numRuns: 400 },
    );
  });
});
