/**
 * CRC-32 (IEEE 802.3: polynomial 0xEDB88320 reflected, initial value and final XOR 0xFFFFFFFF), the
 * checksum of AWS event-stream frames, gzip and zip. Written here because the library runs where
 * `node:zlib` does not.
 *
 * Slicing-by-8: eight 256-entry tables (8 KiB, built on first use) let the loop consume eight bytes per
 * step instead of one, several times faster than the classic byte-at-a-time table on large inputs.
 *
 * @module
 */

let tables: Uint32Array | undefined;

function buildTables(): Uint32Array {
  const t = new Uint32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  // Table k holds the CRC of byte n followed by k zero bytes.
  for (let n = 0; n < 256; n++) {
    let c = t[n]!;
    for (let k = 1; k < 8; k++) {
      c = t[c & 0xff]! ^ (c >>> 8);
      t[k * 256 + n] = c;
    }
  }
  return t;
}

/**
 * The CRC-32 of `bytes`, as an unsigned 32-bit integer.
 *
 * Incremental: pass the CRC of the bytes before as `seed` to continue it, so
 * `crc32(b, crc32(a))` equals `crc32(concat(a, b))` and a frame split across chunks needs no copy.
 *
 * @example crc32(new TextEncoder().encode("123456789")) // 0xcbf43926
 */
export function crc32(bytes: Uint8Array, seed = 0): number {
  if (tables === undefined) tables = buildTables();
  const t = tables;
  let crc = ~seed;
  const length = bytes.length;
  let i = 0;
  for (const end = length - 7; i < end; i += 8) {
    const low = crc ^ (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24));
    crc =
      t[1792 + (low & 0xff)]! ^
      t[1536 + ((low >>> 8) & 0xff)]! ^
      t[1280 + ((low >>> 16) & 0xff)]! ^
      t[1024 + (low >>> 24)]! ^
      t[768 + bytes[i + 4]!]! ^
      t[512 + bytes[i + 5]!]! ^
      t[256 + bytes[i + 6]!]! ^
      t[bytes[i + 7]!]!;
  }
  for (; i < length; i++) crc = t[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return ~crc >>> 0;
}
