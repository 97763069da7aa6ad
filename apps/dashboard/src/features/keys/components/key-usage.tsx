import { useId } from 'react';

import { CodeBlock } from '../../../components/ui/code-block';
import { env } from '../../../config/env';
import { Link } from '../../../lib/router';

// The demo catalog's chat model: present on every installation, so the snippets run as they are.
const EXAMPLE_MODEL = 'demo-chat';

/** How to call the gateway with a key: the OpenAI SDK for JavaScript and plain curl. */
export function KeyUsage() {
  const headingId = useId();
  // The gateway sits under the same prefix as the rest of the server (none unless behind a reverse proxy).
  const baseUrl = `${window.location.origin}${env.apiBasePath}/v1`;

  const sdkSnippet = `import OpenAI from 'openai';

const client = new OpenAI({
  baseURL: '${baseUrl}',
  apiKey: process.env.SWITCHYARD_API_KEY,
});

const completion = await client.chat.completions.create({
  model: '${EXAMPLE_MODEL}',
  messages: [{ role: 'user', content: 'Hello!' }],
});
console.log(completion.choices[0].message.content);`;

  const curlSnippet = `curl ${baseUrl}/chat/completions \\
  -H "Authorization: Bearer $SWITCHYARD_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"model": "${EXAMPLE_MODEL}", "messages": [{"role": "user", "content": "Hello!"}]}'`;

  return (
    <section className="card stack" aria-labelledby={headingId}>
      <h2 id={headingId} className="card-title">
        Use a key
      </h2>
      <p>
        The gateway speaks the OpenAI API at <code className="mono">{baseUrl}</code>: point any OpenAI client there and
        send the key as a bearer token. The models you can use are discovered at runtime with{' '}
        <code className="mono">GET /v1/models</code>; <code className="mono">{EXAMPLE_MODEL}</code> is the demo
        catalog&apos;s chat model.
      </p>
      <CodeBlock caption="OpenAI SDK for JavaScript" code={sdkSnippet} />
      <CodeBlock caption="curl" code={curlSnippet} />
      <p className="muted small">
        More languages, streaming, images and audio: the <Link href="/playground">Playground</Link> shows any request as
        code, and the <Link href="/docs">Docs</Link> have the rest.
      </p>
    </section>
  );
}
