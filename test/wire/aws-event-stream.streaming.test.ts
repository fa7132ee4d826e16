/** readAwsEventStream streaming behaviour: frames out as their bytes arrive, cancellation. */
import { describe, expect, it } from "vitest";
import { type AwsEventFrame, readAwsEventStream } from "../../src/wire/aws-event-stream.ts";
import {
  concatBytes,
  controlledByteStream,
  trackedByteStream,
  trackedChunkStream,
} from "../helpers/byte-stream.ts";
import { collect, decoder, eventFrame, withTimeout } from "./aws-event-stream.helpers.ts";

describe("readAwsEventStream streaming behaviour", () => {
  const frames = Array.from({ length: 30 }, (_, i) => eventFrame("contentBlockDelta", `{"i":${i}}`));
  const body = concatBytes(frames);

  it("yields the first frame before the body has finished", async () => {
    const controlled = controlledByteStream();
    const iterator = readAwsEventStream(controlled.stream);
    controlled.push(frames[0]!);
    const first = await withTimeout(iterator.next(), 1_000);
    expect(first.done).toBe(false);
    expect(decoder.decode((first.value as AwsEventFrame[])[0]!.payload)).toBe('{"i":0}');
    expect(controlled.state.closed).toBe(false);

    let secondSettled = false;
    const second = iterator.next().then((result) => {
      secondSettled = true;
      return result;
    });
    controlled.push(frames[1]!.subarray(0, 20));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(secondSettled).toBe(false); // part of a frame is not a frame
    controlled.push(frames[1]!.subarray(20));
    const next = await withTimeout(second, 1_000);
    expect(decoder.decode((next.value as AwsEventFrame[])[0]!.payload)).toBe('{"i":1}');
    controlled.close();
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it("yields one batch per read: every frame a read completes, never an empty batch", async () => {
    const chunks = [
      concatBytes([frames[0]!, frames[1]!, frames[2]!]), // three whole frames
      frames[3]!.subarray(0, 5), // half a prelude: no batch
      frames[3]!.subarray(5, 30), // still unfinished: no batch
      concatBytes([frames[3]!.subarray(30), frames[4]!.subarray(0, 1)]), // completes one
      new Uint8Array(0),
      frames[4]!.subarray(1),
    ];
    const sizes: number[] = [];
    for await (const batch of readAwsEventStream(trackedChunkStream(chunks).stream)) sizes.push(batch.length);
    expect(sizes).toEqual([3, 1, 1]);
  });

  it("cancels the body when the consumer breaks out of the loop", async () => {
    const { stream, state } = trackedByteStream(body, [50]);
    let seen = 0;
    for await (const batch of readAwsEventStream(stream)) {
      seen += batch.length;
      if (seen >= 2) break;
    }
    expect(state.cancelled).toBe(true);
    expect(state.closed).toBe(false);
    expect(state.bytesDelivered).toBeLessThan(body.length);
  });

  it("cancels the body when the consumer throws inside the loop", async () => {
    const { stream, state } = trackedByteStream(body, [1]);
    const failure = new Error("consumer failed");
    await expect(
      (async () => {
        for await (const _batch of readAwsEventStream(stream)) throw failure;
      })(),
    ).rejects.toBe(failure);
    expect(state.cancelled).toBe(true);
  });

  it("propagates an error from the body's reader, after the frames that arrived before it", async () => {
    const controlled = controlledByteStream();
    const boom = new Error("connection reset");
    const seen: AwsEventFrame[] = [];
    const done = (async () => {
      for await (const batch of readAwsEventStream(controlled.stream)) {
        seen.push(...batch);
        controlled.error(boom);
      }
    })();
    controlled.push(concatBytes([frames[0]!, frames[1]!.subarray(0, 3)]));
    await expect(withTimeout(done)).rejects.toBe(boom);
    expect(seen.length).toBe(1);
  });

  it("releases the body without cancelling it after a normal end", async () => {
    const { stream, state } = trackedByteStream(body, [64]);
    expect((await collect(stream)).frames.length).toBe(30);
    expect(state.closed).toBe(true);
    expect(state.cancelled).toBe(false);
    expect(stream.locked).toBe(false);
  });
});
