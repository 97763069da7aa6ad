import { useId, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { CLIENT_NAME_RANGE, OAUTH_SCOPES, SCOPE_DESCRIPTIONS } from '@switchyard/shared-dto';
import type { OAuthClientResponse, OAuthScope } from '@switchyard/shared-dto';

import { FormAlert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { CheckboxField } from '../../../components/ui/checkbox-field';
import { TextField } from '../../../components/ui/text-field';
import { toFormErrors } from '../../../lib/form-errors';
import { useCreateOAuthApp } from '../api/create-oauth-app';
import { APP_FORM_FIELDS, checkAppForm, EMPTY_APP_FORM } from './app-form-values';
import type { AppFormField, AppFormValues } from './app-form-values';
import { NewAppPanel } from './new-app-panel';

/** Registers an app, then shows its client ID and (once) its secret. The secret lives in this component only. */
export function CreateAppForm() {
  const headingId = useId();
  const scopesId = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const [values, setValues] = useState<AppFormValues>(EMPTY_APP_FORM);
  const [clientErrors, setClientErrors] = useState<Partial<Record<AppFormField, string[]>> | null>(null);
  const [created, setCreated] = useState<OAuthClientResponse | null>(null);
  const [showLifetimes, setShowLifetimes] = useState(false);
  const createMutation = useCreateOAuthApp();
  const serverErrors = toFormErrors(createMutation.error, APP_FORM_FIELDS);
  const fieldErrors = clientErrors ?? serverErrors.fields;

  const update = (patch: Partial<AppFormValues>) => setValues((current) => ({ ...current, ...patch }));

  const toggleScope = (scope: OAuthScope, checked: boolean) =>
    setValues((current) => ({
      ...current,
      requestedScopes: OAUTH_SCOPES.filter((candidate) =>
        candidate === scope ? checked : current.requestedScopes.includes(candidate),
      ),
    }));

  const focusFirstInvalid = () => {
    // After React has rendered aria-invalid on the fields.
    requestAnimationFrame(() => {
      const invalid = formRef.current?.querySelector<HTMLElement>(
        'input[aria-invalid="true"], textarea[aria-invalid="true"], fieldset[aria-invalid="true"] input',
      );
      invalid?.focus();
    });
  };

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setCreated(null);
    createMutation.reset();
    const check = checkAppForm(values);
    if (!check.ok) {
      setClientErrors(check.errors);
      if (check.errors.accessTokenTtlSeconds || check.errors.refreshTokenTtlSeconds) setShowLifetimes(true);
      focusFirstInvalid();
      return;
    }
    setClientErrors(null);
    createMutation.mutate(check.request, {
      onSuccess: (app) => {
        setCreated(app);
        setValues(EMPTY_APP_FORM);
        // Drop the answer (and the secret in it) from the mutation; with gcTime 0 the cache forgets it too.
        createMutation.reset();
      },
      onError: focusFirstInvalid,
    });
  };

  const handleDone = () => {
    setCreated(null);
    const input = formRef.current?.elements.namedItem('clientName');
    if (input instanceof HTMLInputElement) input.focus();
  };

  const scopeErrors = fieldErrors.requestedScopes ?? [];

  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId} className="card-title">
        Register an app
      </h2>
      <form ref={formRef} className="app-form" onSubmit={handleSubmit} noValidate aria-labelledby={headingId}>
        {clientErrors ? null : <FormAlert messages={serverErrors.general} />}
        <TextField
          label="App name"
          hint="Your users see it on the consent page."
          type="text"
          name="clientName"
          autoComplete="off"
          required
          maxLength={CLIENT_NAME_RANGE[1]}
          value={values.clientName}
          onChange={(event) => update({ clientName: event.target.value })}
          errors={fieldErrors.clientName}
        />
        <TextField
          multiline
          label="Redirect URIs"
          hint="One per line, matched exactly. https, http on a loopback address (http://127.0.0.1:8080/callback), or your app's own scheme (myapp://callback). No fragments or wildcards."
          name="redirectUris"
          rows={3}
          required
          spellCheck={false}
          autoComplete="off"
          value={values.redirectUris}
          onChange={(event) => update({ redirectUris: event.target.value })}
          errors={fieldErrors.redirectUris}
        />
        <fieldset
          className="fieldset"
          aria-invalid={scopeErrors.length > 0 || undefined}
          aria-describedby={scopeErrors.length > 0 ? `${scopesId}-error` : undefined}
        >
          <legend className="field-label">Scopes</legend>
          {OAUTH_SCOPES.map((scope) => (
            <CheckboxField
              key={scope}
              name="requestedScopes"
              value={scope}
              checked={values.requestedScopes.includes(scope)}
              onChange={(event) => toggleScope(scope, event.target.checked)}
              label={
                <>
                  <code className="mono">{scope}</code> {SCOPE_DESCRIPTIONS[scope]}
                </>
              }
            />
          ))}
          {scopeErrors.length > 0 ? (
            <ul id={`${scopesId}-error`} className="field-errors">
              {scopeErrors.map((message) => (
                <li key={message}>{message}</li>
              ))}
            </ul>
          ) : null}
        </fieldset>
        <CheckboxField
          label="Confidential app (generate a client secret)"
          hint="For apps with a server that can keep a secret. Mobile, desktop and browser apps stay public and use PKCE alone."
          name="confidential"
          checked={values.confidential}
          onChange={(event) => update({ confidential: event.target.checked })}
        />
        <details
          className="app-form-more"
          open={showLifetimes || Boolean(fieldErrors.accessTokenTtlSeconds || fieldErrors.refreshTokenTtlSeconds)}
          onToggle={(event) => setShowLifetimes(event.currentTarget.open)}
        >
          <summary>Token lifetimes</summary>
          <div className="app-form-more-body">
            <TextField
              label="Access token lifetime (seconds)"
              type="text"
              inputMode="numeric"
              name="accessTokenTtlSeconds"
              autoComplete="off"
              value={values.accessTokenTtlSeconds}
              onChange={(event) => update({ accessTokenTtlSeconds: event.target.value })}
              errors={fieldErrors.accessTokenTtlSeconds}
            />
            <TextField
              label="Refresh token lifetime (seconds)"
              type="text"
              inputMode="numeric"
              name="refreshTokenTtlSeconds"
              autoComplete="off"
              value={values.refreshTokenTtlSeconds}
              onChange={(event) => update({ refreshTokenTtlSeconds: event.target.value })}
              errors={fieldErrors.refreshTokenTtlSeconds}
            />
          </div>
        </details>
        <Button type="submit" busy={createMutation.isPending}>
          Register app
        </Button>
      </form>
      {created ? <NewAppPanel created={created} onDone={handleDone} /> : null}
    </section>
  );
}
