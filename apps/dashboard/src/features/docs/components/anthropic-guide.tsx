import { CodeBlock } from '../../../components/ui/code-block';
import { DocSection } from './doc-section';

/** Anthropic's Messages API on the gateway (docs/anthropic.md): Claude Code and Anthropic's SDKs, unchanged. */
export function AnthropicGuide({ origin }: { origin: string }) {
  return (
    <DocSection id="anthropic" title="Anthropic's Messages API and Claude Code">
      <p>
        The gateway also speaks Anthropic&apos;s Messages API, in front of every chat model of the catalog:{' '}
        <code className="mono">POST /v1/messages</code> (streaming too: thinking, tools and tool results) and{' '}
        <code className="mono">POST /v1/messages/count_tokens</code> (free). Send your key in{' '}
        <code className="mono">x-api-key</code> or as a bearer token. <code className="mono">max_tokens</code> is
        required and is what the call reserves from your balance; errors come in Anthropic&apos;s shape, and a budget
        that cannot cover the call is 403 <code className="mono">permission_error</code>.
      </p>
      <CodeBlock
        caption="Claude Code"
        code={`export ANTHROPIC_BASE_URL=${origin}
export ANTHROPIC_AUTH_TOKEN=sy-...      # or ANTHROPIC_API_KEY
export ANTHROPIC_MODEL=demo-chat        # a chat model id from the model list
claude`}
      />
      <CodeBlock
        caption="JavaScript (npm install @anthropic-ai/sdk)"
        code={`import Anthropic from '@anthropic-ai/sdk';

const client = new Anthropic({ baseURL: '${origin}', apiKey: process.env.SWITCHYARD_API_KEY });

const message = await client.messages.create({
  model: 'demo-chat',
  max_tokens: 1024,
  messages: [{ role: 'user', content: 'Hello!' }],
});
console.log(message.content);`}
      />
    </DocSection>
  );
}
