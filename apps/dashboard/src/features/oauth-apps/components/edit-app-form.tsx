import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { OAUTH_SCOPES, SCOPE_DESCRIPTIONS } from '@switchyard/shared-dto';
import type { OAuthClientResponse, OAuthScope } from '@switchyard/shared-dto';

import { FormAlert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { CheckboxField } from '../../../components/ui/checkbox-field';
import { TextField } from '../../../components/ui/text-field';
import { toFormErrors } from '../../../lib/form-errors';
import { useUpdateOAuthApp } from '../api/update-oauth-app';
import { APP_FORM_FIELDS, checkAppForm } from './app-form-values';
import type { AppFormField, AppFormValues } from './app-form-values';

interface EditAppFormProps {
  app: OAuthClientResponse;
  onDone: (saved: boolean) => void;
}

/** Changes an app's name, redirect URIs, scopes and token lifetimes (checked as on registration). */
export function EditAppForm({ app, onDone }: EditAppFormProps) {
  const id = useId();
  const [values, setValues] = useState<AppFormValues>({
    clientName: app.clientName,
    redirectUris: app.redirectUris.join('\n'),
    requestedScopes: app.scopes,
    confidential: app.clientType === 'CONFIDENTIAL',
    accessTokenTtlSeconds: String(app.accessTokenTtlSeconds),
    refreshTokenTtlSeconds: String(app.refreshTokenTtlSeconds),
  });
  const [clientErrors, setClientErrors] = useState<Partial<Record<AppFormField, string[]>> | null>(null);
  const mutation = useUpdateOAuthApp(app.id);
  const serverErrors = toFormErrors(mutation.error, APP_FORM_FIELDS);
  const errors = clientErrors ?? serverErrors.fields;
  const update = (patch: Partial<AppFormValues>) => setValues((current) => ({ ...current, ...patch }));
  const toggleScope = (scope: OAuthScope, checked: boolean) =>
    update({
      requestedScopes: OAUTH_SCOPES.filter((candidate) =>
        candidate === scope ? checked : values.requestedScopes.includes(candidate),
      ),
    });

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const check = checkAppForm(values);
    if (!check.ok) return setClientErrors(check.errors);
    setClientErrors(null);
    // The type (confidential or public) is fixed at registration: the update has no such field.
    const { generateSecret: _fixed, ...body } = check.request;
    mutation.mutate(body, { onSuccess: () => onDone(true) });
  };

  return (
    <form className="app-form" onSubmit={submit} noValidate aria-label={`Edit ${app.clientName}`}>
      {clientErrors ? null : <FormAlert messages={serverErrors.general} />}
      <TextField
        label="App name"
        name="clientName"
        value={values.clientName}
        errors={errors.clientName}
        onChange={(event) => update({ clientName: event.target.value })}
      />
      <TextField
        label="Redirect URIs"
        hint="One per line. Changing them (or the scopes) of a trusted app ends its trust until an admin renews it."
        multiline
        rows={3}
        value={values.redirectUris}
        errors={errors.redirectUris}
        onChange={(event) => update({ redirectUris: event.target.value })}
      />
      <fieldset className="fieldset" aria-invalid={errors.requestedScopes ? true : undefined}>
        <legend className="field-label">Scopes</legend>
        {OAUTH_SCOPES.map((scope) => (
          <CheckboxField
            key={scope}
            name={`${id}-scope`}
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
        {errors.requestedScopes ? <p className="field-errors">{errors.requestedScopes.join(' ')}</p> : null}
      </fieldset>
      <div className="filter-row">
        <TextField
          label="Access token lifetime (seconds)"
          inputMode="numeric"
          value={values.accessTokenTtlSeconds}
          errors={errors.accessTokenTtlSeconds}
          onChange={(event) => update({ accessTokenTtlSeconds: event.target.value })}
        />
        <TextField
          label="Refresh token lifetime (seconds)"
          inputMode="numeric"
          value={values.refreshTokenTtlSeconds}
          errors={errors.refreshTokenTtlSeconds}
          onChange={(event) => update({ refreshTokenTtlSeconds: event.target.value })}
        />
      </div>
      <div className="app-card-actions">
        <Button type="submit" busy={mutation.isPending}>
          Save changes
        </Button>
        <Button variant="secondary" disabled={mutation.isPending} onClick={() => onDone(false)}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
