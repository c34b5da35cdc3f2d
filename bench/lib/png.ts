/**
 * Plots for the benchmarks' notes without a plotting library: line charts drawn into an RGB
 * raster and written as PNG (IHDR, one zlib-compressed IDAT, IEND, each with its CRC32).
 * No text is drawn: a chart's caption says what its panels and colours are.
 */
import { crc32, deflateSync } from 'node:zlib';

export type Rgb = readonly [number, number, number];

/** A series of values over evenly spaced samples, drawn as a line. */
export interface Series {
  values: readonly number[];
  color: Rgb;
}

/** One panel: series sharing a vertical scale from 0 to their highest value (or `max`). */
export interface Panel {
  series: readonly Series[];
  max?: number;
}

const PANEL_HEIGHT = 200;
const MARGIN = 10;
const GRID = 4;

/** Panels stacked top to bottom, each with a frame and grid lines at quarters of its scale. */
export function plotPanels(panels: readonly Panel[], width = 800): Buffer {
  const height = panels.length * (PANEL_HEIGHT + MARGIN) + MARGIN;
  const image = new Raster(width, height);
  panels.forEach((panel, index) => {
    const top = MARGIN + index * (PANEL_HEIGHT + MARGIN);
    const box = { left: MARGIN, top, right: width - MARGIN, bottom: top + PANEL_HEIGHT };
    for (let line = 0; line <= GRID; line++) {
      const y = Math.round(box.bottom - (line / GRID) * PANEL_HEIGHT);
      image.line(box.left, y, box.right, y, line === 0 ? [0, 0, 0] : [220, 220, 220]);
    }
    image.line(box.left, box.top, box.left, box.bottom, [0, 0, 0]);
    const max = panel.max ?? Math.max(1e-9, ...panel.series.flatMap((s) => s.values.filter(Number.isFinite)));
    for (const { values, color } of panel.series) {
      const step = values.length > 1 ? (box.right - box.left) / (values.length - 1) : 0;
      const at = (i: number) => [
        Math.round(box.left + i * step), Math.round(box.bottom - Math.min(1, values[i]! / max) * PANEL_HEIGHT),
      ] as const;
      for (let i = 1; i < values.length; i++) {
        if (!Number.isFinite(values[i - 1]!) || !Number.isFinite(values[i]!)) continue;
        image.line(...at(i - 1), ...at(i), color);
      }
    }
  });
  return image.png();
}

class Raster {
  readonly width: number;
  readonly height: number;
  readonly #pixels: Uint8Array;

  constructor(width: number, height: number) {
    this.width = width;
    this.height = height;
    this.#pixels = new Uint8Array(width * height * 3).fill(255);
  }

  set(x: number, y: number, [r, g, b]: Rgb): void {
    if (x < 0 || y < 0 || x >= this.width || y >= this.height) return;
    const at = (y * this.width + x) * 3;
    this.#pixels[at] = r;
    this.#pixels[at + 1] = g;
    this.#pixels[at + 2] = b;
  }

  /** Bresenham's line. */
  line(x0: number, y0: number, x1: number, y1: number, color: Rgb): void {
    const dx = Math.abs(x1 - x0), dy = -Math.abs(y1 - y0);
    const sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    let error = dx + dy;
    for (;;) {
      this.set(x0, y0, color);
      if (x0 === x1 && y0 === y1) return;
      const twice = 2 * error;
      if (twice >= dy) { error += dy; x0 += sx; }
      if (twice <= dx) { error += dx; y0 += sy; }
    }
  }

  /** The raster as PNG: 8-bit RGB, each row after filter type 0 (none). */
  png(): Buffer {
    const row = this.width * 3;
    const raw = Buffer.alloc((row + 1) * this.height);
    for (let y = 0; y < this.height; y++) raw.set(this.#pixels.subarray(y * row, (y + 1) * row), y * (row + 1) + 1);
    const header = Buffer.alloc(13);
    header.writeUInt32BE(this.width, 0);
    header.writeUInt32BE(this.height, 4);
    header.set([8, 2, 0, 0, 0], 8); // bit depth, colour type RGB, compression, filter, interlace
    return Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0)),
    ]);
  }
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}
