import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { crc32 } from "../../src/wire/crc32.ts";

const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text);

/** The textbook bit-by-bit CRC-32, independent of the table-driven one under test. */
function referenceCrc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

describe("crc32", () => {
  it("matches the published check values", () => {
    expect(crc32(bytesOf("123456789"))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0))).toBe(0);
    expect(crc32(bytesOf("a"))).toBe(0xe8b7be43);
    expect(crc32(bytesOf("The quick brown fox jumps over the lazy dog"))).toBe(0x414fa339);
    // 32 zero bytes and 32 0xFF bytes: four full 8-byte steps, no tail.
    expect(crc32(new Uint8Array(32))).toBe(0x190a55ad);
    expect(crc32(new Uint8Array(32).fill(0xff))).toBe(0xff6cab0b);
  });

  it("returns an unsigned 32-bit integer", () => {
    const value = crc32(bytesOf("123456789")); // 0xcbf43926: the top bit is set
    expect(value).toBeGreaterThan(0x7fffffff);
    expect(Number.isInteger(value)).toBe(true);
  });

  it("reads only the view it is given (subarrays with an offset)", () => {
    const backing = bytesOf("xx123456789yy");
    expect(crc32(backing.subarray(2, 11))).toBe(0xcbf43926);
  });

  it("equals the bit-by-bit reference for every length 0..40 and random contents", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(crc32(bytes)).toBe(referenceCrc32(bytes));
      }),
      { numRuns: 500 },
    );
    for (let length = 0; length <= 40; length++) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 37 + length) & 0xff);
      expect(crc32(bytes), `length ${length}`).toBe(referenceCrc32(bytes));
    }
  });

  it("is incremental: crc32(b, crc32(a)) === crc32(a ++ b), for any cut", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.array(fc.nat()), (bytes, cuts) => {
        const offsets = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
        let crc = 0;
        let start = 0;
        for (const offset of [...offsets, bytes.length]) {
          crc = crc32(bytes.subarray(start, offset), crc);
          start = offset;
        }
        expect(crc).toBe(crc32(bytes));
      }),
      { numRuns: 500 },
    );
    const whole = bytesOf("123456789");
    expect(crc32(whole.subarray(4), crc32(whole.subarray(0, 4)))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0), 0xcbf43926)).toBe(0xcbf43926);
  });
});
