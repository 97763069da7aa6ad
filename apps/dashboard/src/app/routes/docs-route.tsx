import { AnthropicGuide } from '../../features/docs/components/anthropic-guide';
import { EndpointReference } from '../../features/docs/components/endpoint-reference';
import { ErrorsSection, LimitsSection } from '../../features/docs/components/errors-and-limits';
import { GeminiGuide } from '../../features/docs/components/gemini-guide';
import { OAuthGuide } from '../../features/docs/components/oauth-guide';
import { QuickStart } from '../../features/docs/components/quick-start';
import { gatewayBaseUrl } from '../../lib/gateway';
import { useDocumentTitle } from '../../lib/router';

const CONTENTS = [
  { id: 'quick-start', label: 'Quick start' },
  { id: 'anthropic', label: 'Claude Code, Codex, Anthropic API' },
  { id: 'gemini', label: 'Gemini CLI, Gemini API' },
  { id: 'oauth', label: 'OAuth (PKCE)' },
  { id: 'endpoints', label: 'Endpoints' },
  { id: 'errors', label: 'Errors' },
  { id: 'limits', label: 'Limits' },
];

export function DocsRoute() {
  useDocumentTitle('Docs');
  const baseUrl = gatewayBaseUrl();
  const origin = baseUrl.replace(/\/v1$/, '');

  return (
    <>
      <div className="page-header">
        <h1 className="page-title">Developer docs</h1>
        <p className="muted">
          Switchyard is an OpenAI-compatible gateway: one base URL and one key for every model in the catalog, paid from
          your balance. Call it with an API key from your own code, or let users sign in to your app with OAuth so they
          pay from theirs.
        </p>
      </div>
      <nav className="card doc-contents" aria-label="On this page">
        <ul className="doc-contents-list">
          {CONTENTS.map((item) => (
            <li key={item.id}>
              <a href={`#${item.id}`}>{item.label}</a>
            </li>
          ))}
        </ul>
      </nav>
      <QuickStart baseUrl={baseUrl} />
      <AnthropicGuide origin={origin} />
      <GeminiGuide origin={origin} />
      <OAuthGuide origin={origin} baseUrl={baseUrl} />
      <EndpointReference origin={origin} />
      <ErrorsSection />
      <LimitsSection />
    </>
  );
}
