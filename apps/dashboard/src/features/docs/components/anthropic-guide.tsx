import { CodeBlock } from '../../../components/ui/code-block';
import { DocSection } from './doc-section';

/**
 * Anthropic's Messages API on the gateway, and the coding agents (docs/anthropic.md): Claude Code, Codex CLI and
 * Anthropic's SDKs, unchanged. The two recipes are the ones tools/agents/run.mjs runs in CI.
 */
export function AnthropicGuide({ origin }: { origin: string }) {
  return (
    <DocSection id="anthropic" title="Claude Code, Codex and Anthropic's Messages API">
      <p>
        The gateway also speaks Anthropic&apos;s Messages API, in front of every chat model of the catalog:{' '}
        <code className="mono">POST /v1/messages</code> (streaming too: thinking, tools and tool results) and{' '}
        <code className="mono">POST /v1/messages/count_tokens</code> (free). Send your key in{' '}
        <code className="mono">x-api-key</code> or as a bearer token. <code className="mono">max_tokens</code> is
        required and is what the call reserves from your balance; errors come in Anthropic&apos;s shape, and a budget
        that cannot cover the call is 403 <code className="mono">permission_error</code>. What the provider would
        fetch or run on your behalf at a cost the gateway cannot bound (URL documents, MCP servers, server tools) is
        refused with 400, naming the field.
      </p>
      <CodeBlock
        caption="Claude Code"
        code={`export ANTHROPIC_BASE_URL=${origin}
export ANTHROPIC_API_KEY=sy-...                  # or ANTHROPIC_AUTH_TOKEN=sy-...
export ANTHROPIC_MODEL=demo-chat                 # a chat model id from the model list
export ANTHROPIC_DEFAULT_HAIKU_MODEL=demo-chat   # the model Claude Code uses for small background tasks
claude -p "Say hello to Switchyard"              # or claude for a session`}
      />
      <p>
        Codex CLI works on the Responses API with a custom provider. Turn its web search off: the gateway refuses
        provider-side search, whose cost it cannot bound before the call.
      </p>
      <CodeBlock
        caption="Codex CLI: ~/.codex/config.toml"
        code={`model = "demo-chat"
model_provider = "switchyard"
web_search = "disabled"

[model_providers.switchyard]
name = "Switchyard"
base_url = "${origin}/v1"
env_key = "SWITCHYARD_API_KEY"
wire_api = "responses"`}
      />
      <CodeBlock
        caption="Codex CLI"
        code={`export SWITCHYARD_API_KEY=sy-...
codex exec --skip-git-repo-check "Say hello to Switchyard"   # or codex for a session`}
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
