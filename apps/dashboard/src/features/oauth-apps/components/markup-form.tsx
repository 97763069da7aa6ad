import { useState } from 'react';
import type { FormEvent } from 'react';
import type { OAuthClientResponse } from '@switchyard/shared-dto';

import { FormAlert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import { toFormErrors } from '../../../lib/form-errors';
import { useUpdateOAuthApp } from '../api/update-oauth-app';
import { parseMarkup } from './app-form-values';

/**
 * The app's markup (docs/earnings.md): what its users pay on top of the provider's price, which the maker earns
 * less the operator's fee. A raise reaches each user once they approve the app again; a cut reaches all at once.
 */
export function MarkupForm({ app, onSaved }: { app: OAuthClientResponse; onSaved: (message: string) => void }) {
  const [value, setValue] = useState(String(app.markupPercent));
  const [problem, setProblem] = useState<string | null>(null);
  const mutation = useUpdateOAuthApp(app.id);
  const serverErrors = toFormErrors(mutation.error, ['markupPercent'] as const);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const parsed = parseMarkup(value);
    if (typeof parsed === 'string') return setProblem(parsed);
    setProblem(null);
    mutation.mutate(
      { markupPercent: parsed },
      {
        onSuccess: (saved) =>
          onSaved(
            parsed > app.markupPercent
              ? `The markup of ${app.clientName} is now ${saved.markupPercent}%: each user pays it once they approve the app again.`
              : `The markup of ${app.clientName} is now ${saved.markupPercent}%, for every user at once.`,
          ),
      },
    );
  };

  return (
    <form className="filter-row markup-form" onSubmit={submit} noValidate aria-label={`Markup of ${app.clientName}`}>
      <TextField
        label="Markup (%)"
        name="markupPercent"
        inputMode="numeric"
        hint={
          `Users pay the provider's price plus this share; you earn it less the operator's fee.` +
          (app.usersOnOldRate > 0
            ? ` ${app.usersOnOldRate} user${app.usersOnOldRate === 1 ? ' is' : 's are'} still on a lower rate until they approve again.`
            : '')
        }
        value={value}
        errors={problem ? [problem] : serverErrors.fields.markupPercent}
        onChange={(event) => setValue(event.target.value)}
      />
      <Button type="submit" variant="secondary" busy={mutation.isPending}>
        Save markup
      </Button>
      {problem ? null : <FormAlert messages={serverErrors.general} />}
    </form>
  );
}
