#!/usr/bin/env node
// Regenerates resources/icons/ from the geometry below (the same shapes as icon.svg): PNGs at every
// size the installers use, icon.ico (Windows, PNG-compressed entries) and icon.icns (macOS).
// Pure Node (zlib), no ImageMagick: `node scripts/make-icons.mjs`. The outputs are committed.
import { Buffer } from 'node:buffer';
import process from 'node:process';
import { deflateSync } from 'node:zlib';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const OUT = join(dirname(fileURLToPath(import.meta.url)), '..', 'resources', 'icons');
const VIEW = 512;
const RADIUS = 112;
// A lightning bolt: engy = energy that does verified work.
const BOLT = [
  [300, 52],
  [140, 292],
  [246, 292],
  [210, 460],
  [376, 206],
  [270, 206],
  [330, 52],
];
const BG_TOP = [13, 23, 42];
const BG_BOTTOM = [20, 60, 88];
const BOLT_TOP = [178, 255, 102];
const BOLT_BOTTOM = [38, 222, 196];

const SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="${VIEW}" height="${VIEW}" viewBox="0 0 ${VIEW} ${VIEW}">
  <!-- Source of the engy panel icon; scripts/make-icons.mjs rasterises the same geometry. -->
  <defs>
    <linearGradient id="bg" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="rgb(${BG_TOP.join(',')})"/>
      <stop offset="1" stop-color="rgb(${BG_BOTTOM.join(',')})"/>
    </linearGradient>
    <linearGradient id="bolt" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="rgb(${BOLT_TOP.join(',')})"/>
      <stop offset="1" stop-color="rgb(${BOLT_BOTTOM.join(',')})"/>
    </linearGradient>
  </defs>
  <rect x="0" y="0" width="${VIEW}" height="${VIEW}" rx="${RADIUS}" ry="${RADIUS}" fill="url(#bg)"/>
  <polygon points="${BOLT.map((p) => p.join(',')).join(' ')}" fill="url(#bolt)"/>
</svg>
`;

function insideRoundedRect(x, y) {
  const cx = Math.min(Math.max(x, RADIUS), VIEW - RADIUS);
  const cy = Math.min(Math.max(y, RADIUS), VIEW - RADIUS);
  return (x - cx) ** 2 + (y - cy) ** 2 <= RADIUS ** 2 && x >= 0 && y >= 0 && x <= VIEW && y <= VIEW;
}

function insideBolt(x, y) {
  let inside = false;
  for (let i = 0, j = BOLT.length - 1; i < BOLT.length; j = i++) {
    const [xi, yi] = BOLT[i];
    const [xj, yj] = BOLT[j];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

const mix = (a, b, t) => a.map((v, i) => v + (b[i] - v) * t);

function render(size) {
  const ss = size <= 64 ? 8 : 4; // supersampling per axis: small sizes need smoother edges
  const px = Buffer.alloc(size * size * 4);
  const scale = VIEW / size;
  for (let py = 0; py < size; py++) {
    for (let pxX = 0; pxX < size; pxX++) {
      let r = 0,
        g = 0,
        b = 0,
        a = 0;
      for (let sy = 0; sy < ss; sy++) {
        for (let sx = 0; sx < ss; sx++) {
          const x = (pxX + (sx + 0.5) / ss) * scale;
          const y = (py + (sy + 0.5) / ss) * scale;
          if (!insideRoundedRect(x, y)) continue;
          const t = y / VIEW;
          const c = insideBolt(x, y) ? mix(BOLT_TOP, BOLT_BOTTOM, t) : mix(BG_TOP, BG_BOTTOM, t);
          r += c[0];
          g += c[1];
          b += c[2];
          a += 1;
        }
      }
      const o = (py * size + pxX) * 4;
      const n = ss * ss;
      // Straight (non-premultiplied) alpha, as PNG wants.
      px[o] = a ? Math.round(r / a) : 0;
      px[o + 1] = a ? Math.round(g / a) : 0;
      px[o + 2] = a ? Math.round(b / a) : 0;
      px[o + 3] = Math.round((a / n) * 255);
    }
  }
  return px;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}
function png(size) {
  const rgba = render(size);
  const raw = Buffer.alloc((size * 4 + 1) * size);
  for (let y = 0; y < size; y++) rgba.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

function ico(images) {
  const header = Buffer.alloc(6);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(images.length, 4);
  let offset = 6 + 16 * images.length;
  const entries = images.map(([size, data]) => {
    const e = Buffer.alloc(16);
    e[0] = size >= 256 ? 0 : size;
    e[1] = size >= 256 ? 0 : size;
    e.writeUInt16LE(1, 4);
    e.writeUInt16LE(32, 6);
    e.writeUInt32LE(data.length, 8);
    e.writeUInt32LE(offset, 12);
    offset += data.length;
    return e;
  });
  return Buffer.concat([header, ...entries, ...images.map(([, d]) => d)]);
}

function icns(entries) {
  const parts = entries.map(([type, data]) => {
    const h = Buffer.alloc(8);
    h.write(type, 0, 'ascii');
    h.writeUInt32BE(data.length + 8, 4);
    return Buffer.concat([h, data]);
  });
  const body = Buffer.concat(parts);
  const h = Buffer.alloc(8);
  h.write('icns', 0, 'ascii');
  h.writeUInt32BE(body.length + 8, 4);
  return Buffer.concat([h, body]);
}

mkdirSync(join(OUT, 'png'), { recursive: true });
writeFileSync(join(OUT, 'icon.svg'), SVG);
const sizes = [16, 24, 32, 48, 64, 128, 256, 512, 1024];
const pngs = new Map(sizes.map((s) => [s, png(s)]));
for (const s of sizes.filter((s) => s <= 512)) writeFileSync(join(OUT, 'png', `${s}x${s}.png`), pngs.get(s));
writeFileSync(join(OUT, 'icon.png'), pngs.get(1024));
// The tray's icon (electron/main.ts): 32 px, which panels scale down to their own height.
writeFileSync(join(OUT, 'tray.png'), pngs.get(32));
writeFileSync(join(OUT, 'icon.ico'), ico([16, 24, 32, 48, 64, 128, 256].map((s) => [s, pngs.get(s)])));
writeFileSync(
  join(OUT, 'icon.icns'),
  icns([
    ['icp4', pngs.get(16)],
    ['icp5', pngs.get(32)],
    ['icp6', pngs.get(64)],
    ['ic07', pngs.get(128)],
    ['ic08', pngs.get(256)],
    ['ic09', pngs.get(512)],
    ['ic10', pngs.get(1024)],
    ['ic11', pngs.get(32)],
    ['ic12', pngs.get(64)],
    ['ic13', pngs.get(256)],
    ['ic14', pngs.get(512)],
  ]),
);
process.stdout.write(`icons written to ${OUT}\n`);
