import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { SCOPE_DESCRIPTIONS } from '@switchyard/shared-dto';
import type { AuthorizationParams, AuthorizationRequestInfo } from '@switchyard/shared-dto';

import { FormAlert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { SpendCapFields } from '../../../components/ui/spend-cap-fields';
import { toFormErrors } from '../../../lib/form-errors';
import { capInputsFrom, formatMoney, parseCapInputs } from '../../../lib/money';
import type { CapInputs } from '../../../lib/money';
import { useDecideAuthorization } from '../api/decide-authorization';

const FIELDS = ['limits.monthly', 'limits.perRequest'] as const;

interface ConsentFormProps {
  info: AuthorizationRequestInfo;
  params: AuthorizationParams;
  /** Where the server sends the browser after the decision. */
  onDecided: (redirectTo: string) => void;
}

/** The scopes in words, optional spend caps, and the two answers. */
export function ConsentForm({ info, params, onDecided }: ConsentFormProps) {
  const scopesId = useId();
  const { client } = info;
  const asksForApi = info.scopes.some(({ scope }) => scope === 'api:access');
  const [caps, setCaps] = useState<CapInputs>(() => capInputsFrom(info.limits));
  const [capErrors, setCapErrors] = useState<Partial<Record<keyof CapInputs, string[]>> | null>(null);
  const [decided, setDecided] = useState(false);
  const decideMutation = useDecideAuthorization();
  const serverErrors = toFormErrors(decideMutation.error, FIELDS);
  const busy = decideMutation.isPending || decided;

  const decide = (approve: boolean) => {
    decideMutation.reset();
    let limits;
    if (approve && asksForApi) {
      const parsed = parseCapInputs(caps);
      if (!parsed.ok) {
        setCapErrors(parsed.problems);
        return;
      }
      limits = parsed.value;
    }
    setCapErrors(null);
    decideMutation.mutate(
      { params, approve, limits, markupPercent: info.markupPercent },
      {
        onSuccess: ({ redirectTo }) => {
          // Keep the buttons disabled while the browser leaves, so the code is not asked for twice.
          setDecided(true);
          onDecided(redirectTo);
        },
      },
    );
  };

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    decide(true);
  };

  const alreadyGranted = new Set(info.alreadyGranted);
  const fieldErrors = capErrors ?? {
    monthly: serverErrors.fields['limits.monthly'],
    perRequest: serverErrors.fields['limits.perRequest'],
  };

  return (
    <form className="consent-form" onSubmit={handleSubmit} noValidate aria-describedby={scopesId}>
      <div id={scopesId}>
        <p>
          <strong>{client.clientName}</strong> would like to:
        </p>
        <ul className="scope-list">
          {info.scopes.map(({ scope, description }) => (
            <li key={scope}>
              {description || SCOPE_DESCRIPTIONS[scope] || scope}
              {alreadyGranted.has(scope) ? <span className="muted"> (already allowed)</span> : null}
            </li>
          ))}
        </ul>
      </div>
      {asksForApi && info.markupPercent > 0 ? (
        <p className="consent-markup" data-testid="consent-markup">
          {client.clientName} adds <strong>{info.markupPercent}%</strong> to the price of each call you make through it:
          a call the provider prices at $1.00 costs you ${(1 + info.markupPercent / 100).toFixed(2)}, from your budget.
          {info.agreedMarkupPercent !== null && info.agreedMarkupPercent < info.markupPercent
            ? ` You agreed to ${info.agreedMarkupPercent}% before; allowing accepts the new rate.`
            : ''}
        </p>
      ) : null}
      {asksForApi && info.sponsoredUpTo !== null ? (
        <p className="consent-sponsored" data-testid="consent-sponsored">
          {client.clientName} pays up to <strong>{formatMoney(info.sponsoredUpTo)}</strong> of your calls through it;
          after that, they come from your budget.
        </p>
      ) : null}
      <p className="consent-redirect">
        {client.clientName} will redirect to <strong className="mono">{client.redirectHost}</strong>
      </p>
      {asksForApi ? (
        <fieldset className="fieldset">
          <legend className="field-label">Spending caps (optional)</legend>
          <p className="field-hint">What {client.clientName} may spend of your budget. You can change this later.</p>
          <SpendCapFields value={caps} onChange={setCaps} errors={fieldErrors} disabled={busy} />
        </fieldset>
      ) : null}
      {capErrors ? null : <FormAlert messages={serverErrors.general} />}
      {decided ? (
        <p role="status" className="muted">
          Taking you back to {client.redirectHost}…
        </p>
      ) : null}
      <div className="button-row consent-buttons">
        <Button variant="secondary" disabled={busy} onClick={() => decide(false)}>
          Deny
        </Button>
        <Button type="submit" busy={busy}>
          Allow
        </Button>
      </div>
    </form>
  );
}
