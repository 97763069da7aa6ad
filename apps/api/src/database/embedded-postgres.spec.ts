import { heapGrowthFlag, wasmTieringFlag } from './embedded-postgres';

describe('wasmTieringFlag (the V8 flag an embedded database sets before PGlite compiles)', () => {
  it('asks for Liftoff only when node was given no Liftoff flag', () => {
    expect(wasmTieringFlag(['--max-semi-space-size=32'], '')).toBe('--liftoff-only');
    expect(wasmTieringFlag([], '--enable-source-maps --max-old-space-size=512')).toBe('--liftoff-only');
  });

  it('keeps a Liftoff flag given on the command line or in NODE_OPTIONS', () => {
    expect(wasmTieringFlag(['--no-liftoff'], '')).toBeNull();
    expect(wasmTieringFlag(['--liftoff-only'], '')).toBeNull();
    expect(wasmTieringFlag([], '--enable-source-maps  --liftoff')).toBeNull();
  });
});

describe('heapGrowthFlag (the V8 flag an embedded installation sets for its old generation)', () => {
  it('asks for growth by half when node was given no heap growth flag', () => {
    expect(heapGrowthFlag(['--max-semi-space-size=32'], '')).toBe('--heap-growing-percent=50');
    expect(heapGrowthFlag([], '--max-old-space-size=512 --heap-growing')).toBe('--heap-growing-percent=50');
  });

  it('keeps a heap growth flag given on the command line or in NODE_OPTIONS', () => {
    expect(heapGrowthFlag(['--heap-growing-percent=200'], '')).toBeNull();
    expect(heapGrowthFlag([], '--enable-source-maps --heap_growing_percent=80')).toBeNull();
  });
});
