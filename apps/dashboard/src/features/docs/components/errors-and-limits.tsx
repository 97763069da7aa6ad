import { DocSection } from './doc-section';

const GATEWAY_ERRORS: [string, string, string][] = [
  ['400', 'invalid_request_error, unsupported_method', 'The body is wrong, or the model does not do this method. Fix the request.'],
  ['401', 'missing_credentials, invalid_token', 'No bearer credential, or an OAuth token that expired: refresh once, then sign in again.'],
  ['403', 'invalid_api_key', 'The API key is unknown or revoked.'],
  ['403', 'budget_exhausted', 'The account’s balance cannot cover the call (error.remainingBudget says what is left). Add funds.'],
  ['403', 'spend_limit_exceeded', 'A key’s spend limit or an app’s cap cannot cover the call: error.scope (key or app) and error.limit (per_request, daily, weekly, monthly, total) say which, with limitAmount, spent, needed and resetsAt. Raise the limit or wait for resetsAt.'],
  ['403', 'endpoint_not_allowed', 'The path is not on the gateway’s allowlist ("Endpoint not allowed").'],
  ['404', 'model_not_found', 'No such model in the catalog now. List the models again.'],
  ['413', 'payload_too_large', 'The body passed a size limit (see Limits).'],
  ['429', 'rate_limited', 'Too many requests this minute for this key or app. Wait for Retry-After seconds.'],
  ['502', 'upstream_error', 'The provider failed or could not be reached. Nothing is charged when nothing was delivered.'],
  ['503', 'shutting_down', 'This instance is stopping. Retry after Retry-After.'],
  ['504', 'upstream_timeout', 'The provider did not answer in time.'],
];

export function ErrorsSection() {
  return (
    <DocSection id="errors" title="Errors">
      <p>
        The gateway (<code className="mono">/v1</code>) answers errors in the OpenAI shape that its SDKs already parse,{' '}
        <code className="mono">{'{"error": {"message", "type", "code"}}'}</code>, always as JSON, even when streaming
        was asked: check the status before reading a stream. The management API (<code className="mono">/api/v1</code>)
        answers <code className="mono">{'{"success": false, "message", "error": {"code", "details"}}'}</code>, where
        details list the fields that failed validation. The OAuth endpoints answer RFC 6749&apos;s{' '}
        <code className="mono">error</code> and <code className="mono">error_description</code>. Every answer carries an{' '}
        <code className="mono">x-request-id</code> header to quote when you ask for help.
      </p>
      <div className="table-scroll">
        <table className="data-table stack-on-phone">
          <caption className="visually-hidden">Gateway errors</caption>
          <thead>
            <tr>
              <th scope="col">Status</th>
              <th scope="col">Code</th>
              <th scope="col">What it means, what to do</th>
            </tr>
          </thead>
          <tbody>
            {GATEWAY_ERRORS.map(([status, code, meaning]) => (
              <tr key={`${status}-${code}`}>
                <td data-label="Status">
                  <code className="mono">{status}</code>
                </td>
                <th scope="row" data-label="Code">
                  <code className="mono">{code}</code>
                </th>
                <td data-label="What it means, what to do">{meaning}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </DocSection>
  );
}

const LIMITS: [string, string][] = [
  ['Image input for vision', 'about 800 KB before base64; JPEG, PNG, GIF or WebP (the Playground shrinks larger pictures)'],
  ['JSON body', '20 MB'],
  ['Multipart upload', '100 MB in all, 50 MB per file, 16 files'],
  ['Transcription file', '25 MB'],
  ['Requests per minute', 'per API key and per user of each app; the operator sets the default, a key or app may have its own'],
  ['Balance polling', 'every 5 to 10 minutes is plenty (GET /api/v1/usage/me/summary)'],
  ['PKCE code verifier', '43 to 128 characters'],
  ['Authorization code', 'single use, 60 seconds'],
  ['Access token', '3600 seconds by default'],
  ['Refresh token', '30 days by default; rotated on every use'],
  ['OAuth app name', '3 to 255 characters'],
  ['Card top-up', 'at least 0.50 (USD)'],
];

export function LimitsSection() {
  return (
    <DocSection id="limits" title="Limits">
      <div className="table-scroll">
        <table className="data-table stack-on-phone">
          <caption className="visually-hidden">Limits</caption>
          <thead>
            <tr>
              <th scope="col">What</th>
              <th scope="col">Limit</th>
            </tr>
          </thead>
          <tbody>
            {LIMITS.map(([what, limit]) => (
              <tr key={what}>
                <th scope="row" data-label="What">
                  {what}
                </th>
                <td data-label="Limit">{limit}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="muted small">
        Streams and long calls hold a reservation of their worst-case cost while they run; the unspent part returns when
        they end, so a call is never charged more than it was allowed.
      </p>
    </DocSection>
  );
}
