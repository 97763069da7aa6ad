import { useMemo, useState } from 'react';

import { QueryView } from '../../../components/ui/query-view';
import { TextField } from '../../../components/ui/text-field';
import { useOpenApi } from '../api/get-openapi';
import { filterOperations, readOperations } from '../lib/openapi';
import type { Operation } from '../lib/openapi';
import { DocSection } from './doc-section';

// The gateway first: it is what most readers came for.
const TAG_ORDER = ['gateway', 'usage', 'keys', 'oauth2', 'oauth2-clients', 'consents', 'payments', 'gift cards', 'accounts', 'health'];

const TAG_TITLES: Record<string, string> = {
  gateway: 'Gateway (OpenAI-compatible, /v1)',
  usage: 'Usage and balance',
  keys: 'API keys',
  oauth2: 'OAuth 2 protocol',
  'oauth2-clients': 'OAuth apps',
  consents: 'Authorized apps',
  payments: 'Payments',
  'gift cards': 'Gift cards',
  accounts: 'Accounts',
  health: 'Health',
};

const SCHEME_LABELS: Record<string, string> = {
  gateway: 'API key or OAuth access token',
  anthropicApiKey: 'API key in x-api-key',
  googleApiKey: 'API key in x-goog-api-key',
  session: 'session token',
  'session-cookie': 'dashboard session cookie',
  oauth: 'OAuth access token',
};

function accessLabel(operation: Operation): string {
  if (operation.security.length === 0) return 'Public';
  return [...new Set(operation.security.map((scheme) => SCHEME_LABELS[scheme] ?? scheme))].join(' or ');
}

function OperationDetails({ operation }: { operation: Operation }) {
  return (
    <details className="endpoint">
      <summary>
        <span className={`method method-${operation.method.toLowerCase()}`}>{operation.method}</span>{' '}
        <code className="mono endpoint-path">{operation.path}</code>
        <span className="endpoint-summary">{operation.summary}</span>
      </summary>
      <div className="endpoint-body">
        {operation.description ? <p>{operation.description}</p> : null}
        <p>
          <strong>Access:</strong> {accessLabel(operation)}
        </p>
        {operation.parameters.length > 0 ? (
          <div>
            <strong>Parameters</strong>
            <ul className="scope-list">
              {operation.parameters.map((parameter) => (
                <li key={`${parameter.in}-${parameter.name}`}>
                  <code className="mono">{parameter.name}</code> ({parameter.in}
                  {parameter.required ? ', required' : ''}){parameter.description ? `: ${parameter.description}` : ''}
                </li>
              ))}
            </ul>
          </div>
        ) : null}
        {operation.body ? (
          <p>
            <strong>Body</strong> ({operation.body.contentType}):{' '}
            {operation.body.fields.length > 0
              ? operation.body.fields.map((field, index) => (
                  <span key={field.name}>
                    {index > 0 ? ', ' : ''}
                    <code className="mono">{field.name}</code>
                    {field.required ? ' (required)' : ''}
                  </span>
                ))
              : 'see the description'}
          </p>
        ) : null}
        {operation.responses.length > 0 ? (
          <div>
            <strong>Answers</strong>
            <ul className="scope-list">
              {operation.responses.map((response) => (
                <li key={response.status}>
                  <code className="mono">{response.status}</code>
                  {response.description ? `: ${response.description}` : ''}
                </li>
              ))}
            </ul>
          </div>
        ) : null}
      </div>
    </details>
  );
}

/** Every route of this server, read from its own /openapi.json, so the list is never out of date. */
export function EndpointReference({ origin }: { origin: string }) {
  const openApi = useOpenApi();
  const [search, setSearch] = useState('');
  const groups = useMemo(() => readOperations(openApi.data, TAG_ORDER), [openApi.data]);
  const shown = filterOperations(groups, search);
  const total = groups.reduce((sum, group) => sum + group.operations.length, 0);
  const matching = shown.reduce((sum, group) => sum + group.operations.length, 0);

  return (
    <DocSection id="endpoints" title="Endpoints">
      <p>
        Rendered from this server&apos;s <a href={`${origin}/openapi.json`}>/openapi.json</a> (OpenAPI 3), which you can also load
        into a client generator or an API tool. Gateway routes are also served under <code className="mono">/apikey/v1</code>{' '}
        (API keys only) and <code className="mono">/oauth2/v1</code> (OAuth tokens only).
      </p>
      <QueryView query={openApi} what="/openapi.json">
        {() => (
          <>
            <TextField
              label="Find an endpoint"
              type="search"
              placeholder="chat, POST, /api/v1/keys…"
              value={search}
              onChange={(event) => setSearch(event.target.value)}
            />
            <p className="muted small" role="status">
              {matching} of {total} endpoints
            </p>
            {shown.map((group) => (
              <div key={group.tag} className="endpoint-group">
                <h3 className="subheading">{TAG_TITLES[group.tag] ?? group.tag}</h3>
                {group.description ? <p className="muted">{group.description}</p> : null}
                {group.operations.map((operation) => (
                  <OperationDetails key={`${operation.method} ${operation.path}`} operation={operation} />
                ))}
              </div>
            ))}
          </>
        )}
      </QueryView>
    </DocSection>
  );
}
