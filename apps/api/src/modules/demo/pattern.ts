import { seededRandom } from './hash';

// Per-pixel / per-sample loops use these module-level bindings rather than `Math.x`: under Jest's vm sandbox
// every global lookup is an interceptor call, which made the loops 10x slower in tests.
const { min, max, sqrt } = Math;

/**
 * The demo's "generated art": a diagonal two-colour gradient with a few soft discs, all chosen by a seed, so a
 * prompt always gives the same picture and different prompts give visibly different ones. `phase` (0..1)
 * moves the discs along small orbits: the video frames are this pattern at successive phases.
 */

interface Disc {
  cx: number;
  cy: number;
  radius: number;
  orbit: number;
  angle: number;
  color: [number, number, number];
}

function hslToRgb(h: number, s: number, l: number): [number, number, number] {
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => {
    const k = (n + h * 12) % 12;
    return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [f(0), f(8), f(4)];
}

export function renderPattern(seed: number, width: number, height: number, phase = 0): Uint8Array {
  const random = seededRandom(seed);
  const hue = random();
  const from = hslToRgb(hue, 0.55 + 0.3 * random(), 0.3 + 0.2 * random());
  const to = hslToRgb((hue + 0.25 + 0.5 * random()) % 1, 0.55 + 0.3 * random(), 0.55 + 0.2 * random());
  const angle = random() * Math.PI * 2;
  const discs: Disc[] = Array.from({ length: 3 + Math.floor(random() * 4) }, () => ({
    cx: 0.15 + 0.7 * random(),
    cy: 0.15 + 0.7 * random(),
    radius: 0.08 + 0.2 * random(),
    orbit: 0.05 + 0.1 * random(),
    angle: random() * Math.PI * 2,
    color: hslToRgb(random(), 0.6 + 0.3 * random(), 0.45 + 0.3 * random()),
  }));

  const pixels = new Uint8Array(width * height * 3);
  // Background: project each pixel on the gradient direction, normalised to 0..1 over the image.
  const dx = Math.cos(angle);
  const dy = Math.sin(angle);
  const corners = [0, dx * width, dy * height, dx * width + dy * height];
  const lo = Math.min(...corners);
  const span = Math.max(...corners) - lo || 1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const t = (x * dx + y * dy - lo) / span;
      const o = (y * width + x) * 3;
      pixels[o] = from[0] + (to[0] - from[0]) * t;
      pixels[o + 1] = from[1] + (to[1] - from[1]) * t;
      pixels[o + 2] = from[2] + (to[2] - from[2]) * t;
    }
  }
  // Discs, drawn only over their bounding boxes with a soft edge (cheap even at 1792 px).
  const unit = Math.min(width, height);
  for (const disc of discs) {
    const orbitAngle = disc.angle + phase * Math.PI * 2;
    const cx = (disc.cx + disc.orbit * Math.cos(orbitAngle)) * width;
    const cy = (disc.cy + disc.orbit * Math.sin(orbitAngle)) * height;
    const r = disc.radius * unit;
    const edge = Math.max(1, r * 0.15);
    const x0 = max(0, Math.floor(cx - r));
    const x1 = min(width - 1, Math.ceil(cx + r));
    const y0 = max(0, Math.floor(cy - r));
    const y1 = min(height - 1, Math.ceil(cy + r));
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const ox = x + 0.5 - cx;
        const oy = y + 0.5 - cy;
        const d = sqrt(ox * ox + oy * oy);
        if (d >= r) continue;
        const alpha = 0.85 * min(1, (r - d) / edge);
        const o = (y * width + x) * 3;
        for (let c = 0; c < 3; c++) pixels[o + c] = pixels[o + c] + (disc.color[c] - pixels[o + c]) * alpha;
      }
    }
  }
  return pixels;
}
