import { CodeBlock } from '../../../components/ui/code-block';
import { Link } from '../../../lib/router';
import { DocSection } from './doc-section';

export function QuickStart({ baseUrl }: { baseUrl: string }) {
  return (
    <DocSection id="quick-start" title="Quick start with an API key">
      <ol className="doc-steps">
        <li>
          <p>
            Create a key on <Link href="/keys">API keys</Link> and copy it: it is shown once. Keep it on a server or in a
            secret manager, never in a web page or an app you ship.
          </p>
          <CodeBlock caption="Shell" code={`export SWITCHYARD_API_KEY=sy-...`} />
        </li>
        <li>
          <p>
            Point any OpenAI client at <code className="mono">{baseUrl}</code> and send the key as a bearer token. The
            gateway speaks the OpenAI API: chat completions (streaming too), images, speech, transcription, embeddings
            and more.
          </p>
          <CodeBlock
            caption="curl"
            code={`curl ${baseUrl}/chat/completions \\
  -H "Authorization: Bearer $SWITCHYARD_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"model": "demo-chat", "messages": [{"role": "user", "content": "Hello!"}]}'`}
          />
          <CodeBlock
            caption="JavaScript (npm install openai)"
            code={`import OpenAI from 'openai';

const client = new OpenAI({ baseURL: '${baseUrl}', apiKey: process.env.SWITCHYARD_API_KEY });

const stream = await client.chat.completions.create({
  model: 'demo-chat',
  messages: [{ role: 'user', content: 'Hello!' }],
  stream: true,
});
for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta?.content ?? '');`}
          />
          <CodeBlock
            caption="Python (pip install openai)"
            code={`import os
from openai import OpenAI

client = OpenAI(base_url="${baseUrl}", api_key=os.environ["SWITCHYARD_API_KEY"])
completion = client.chat.completions.create(
    model="demo-chat",
    messages=[{"role": "user", "content": "Hello!"}],
)
print(completion.choices[0].message.content)`}
          />
        </li>
        <li>
          <p>
            Read the model list at run time: it changes when the operator edits the catalog. Filter it by{' '}
            <code className="mono">type</code> (text, image, audio, embedding), <code className="mono">method</code>{' '}
            (chat_completions, image_generation, audio_speech, audio_transcription, embeddings…) and{' '}
            <code className="mono">capability</code> (such as vision). Decide from these fields, never from how a
            model&apos;s id looks. The <Link href="/models">Models</Link> page shows the same list.
          </p>
          <CodeBlock
            caption="Chat models that accept images"
            code={`curl "${baseUrl}/models?type=text&method=chat_completions&capability=vision" \\
  -H "Authorization: Bearer $SWITCHYARD_API_KEY"`}
          />
        </li>
        <li>
          <p>
            Every call is paid from your balance. See what you spend on <Link href="/">Overview</Link> and{' '}
            <Link href="/usage">Usage</Link>, add funds on <Link href="/billing">Billing</Link>, and cap a key&apos;s
            spending with <code className="mono">PUT /api/v1/keys/{'{id}'}/limits</code>.
          </p>
        </li>
      </ol>
    </DocSection>
  );
}
