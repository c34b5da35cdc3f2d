/**
 * The benchmarks' PNG plots: a valid PNG (signature, chunks with their CRCs, an RGB raster of
 * the size said) in which the series are drawn where their values put them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crc32, inflateSync } from 'node:zlib';
import { plotPanels } from '../../../bench/lib/png.ts';

function chunks(png: Buffer): Map<string, Buffer> {
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const found = new Map<string, Buffer>();
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    const body = png.subarray(at + 4, at + 8 + length);
    assert.equal(png.readUInt32BE(at + 8 + length), crc32(body), 'the chunk\'s CRC');
    found.set(body.subarray(0, 4).toString('ascii'), body.subarray(4));
    at += 12 + length;
  }
  return found;
}

test('a plot is a PNG whose raster holds the series where their values put them', () => {
  const png = plotPanels([{ series: [{ values: [0, 10], color: [200, 0, 0] }] }], 100);
  const parts = chunks(png);
  assert.deepEqual([...parts.keys()], ['IHDR', 'IDAT', 'IEND']);
  const header = parts.get('IHDR')!;
  const [width, height] = [header.readUInt32BE(0), header.readUInt32BE(4)];
  assert.deepEqual([width, height, header[8], header[9]], [100, 220, 8, 2]);
  const raw = inflateSync(parts.get('IDAT')!);
  assert.equal(raw.length, (width * 3 + 1) * height);
  const pixel = (x: number, y: number) => [...raw.subarray(y * (width * 3 + 1) + 1 + x * 3).subarray(0, 3)];
  // The line rises from the panel's bottom left (value 0) to its top right (the highest value).
  assert.deepEqual(pixel(90, 10), [200, 0, 0]);
  assert.deepEqual(pixel(10, 210), [200, 0, 0]);
  assert.deepEqual(pixel(50, 110), [200, 0, 0]);
  assert.deepEqual(pixel(50, 50), [255, 255, 255]);
});
