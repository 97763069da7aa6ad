import { wasmTieringFlag } from './embedded-postgres';

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
