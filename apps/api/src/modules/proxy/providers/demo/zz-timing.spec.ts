import { DemoProvider } from './demo-provider';
it('times', async () => {
  const provider = new DemoProvider({ chunkDelayMs: 0 });
  for (const input of ['One two three.', 'word '.repeat(800)]) {
    let t = Date.now();
    const r = await provider.handle({ method: 'audio_speech', publicModel: 'x', json: { input, voice: 'nova', response_format: 'wav' } });
    const t1 = Date.now() - t; t = Date.now();
    const b = await r.arrayBuffer();
    console.log(input.length, t1, Date.now() - t, b.byteLength);
  }
});
