import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import type { NotificationSettings } from '@switchyard/shared-dto';

import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { QueryView } from '../../../components/ui/query-view';
import { TextField } from '../../../components/ui/text-field';
import { capInputValue, parseCapInput } from '../../../lib/money';
import { useAlertSettings, useSaveAlertSettings } from '../api/account';

/** A share of a limit as typed: blank is "off", else a whole number from 1 to 100. */
export function parsePercent(text: string): { ok: true; value: number | null } | { ok: false; problem: string } {
  const trimmed = text.trim().replace(/%$/, '');
  if (trimmed === '') return { ok: true, value: null };
  if (!/^\d{1,3}$/.test(trimmed) || Number(trimmed) < 1 || Number(trimmed) > 100)
    return { ok: false, problem: 'Enter a whole number from 1 to 100, or leave it blank for no alert.' };
  return { ok: true, value: Number(trimmed) };
}

function AlertsForm({ settings }: { settings: NotificationSettings }) {
  const [low, setLow] = useState(capInputValue(settings.lowBalance));
  const [percent, setPercent] = useState(capInputValue(settings.capAlertPercent));
  const [problems, setProblems] = useState<{ low?: string[]; percent?: string[] }>({});
  const [done, setDone] = useState('');
  const save = useSaveAlertSettings();

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setDone('');
    const lowBalance = parseCapInput(low);
    const share = parsePercent(percent);
    setProblems({
      ...(lowBalance.ok ? {} : { low: [lowBalance.problem.replace('no cap', 'no alert')] }),
      ...(share.ok ? {} : { percent: [share.problem] }),
    });
    if (!lowBalance.ok || !share.ok) return;
    save.mutate(
      { lowBalance: lowBalance.value, capAlertPercent: share.value },
      { onSuccess: () => setDone('Your alerts are saved.') },
    );
  };

  return (
    <form className="key-form" onSubmit={submit} noValidate aria-label="Alerts">
      <TextField
        label="Mail me when my balance falls below"
        hint="An amount such as 1 or 0.50; blank for no alert. Once each time it falls below."
        inputMode="decimal"
        value={low}
        onChange={(event) => setLow(event.target.value)}
        errors={problems.low}
      />
      <TextField
        label="Mail me when a key or an app reaches this % of a limit"
        hint="Of a key's or an app's daily, weekly, monthly or total limit; blank for no alert. Once per limit and period."
        inputMode="numeric"
        value={percent}
        onChange={(event) => setPercent(event.target.value)}
        errors={problems.percent}
      />
      {save.isError ? <Alert>{save.error.message}</Alert> : null}
      <div>
        <Button type="submit" busy={save.isPending}>
          Save alerts
        </Button>
      </div>
      <p role="status" className="muted small">
        {done}
      </p>
    </form>
  );
}

/** The budget alerts by mail (receipts for every credit always come). */
export function AlertsCard() {
  const headingId = useId();
  const settings = useAlertSettings();
  return (
    <section className="card stack" aria-labelledby={headingId}>
      <h2 id={headingId} className="card-title">
        Alerts
      </h2>
      <p className="muted">
        Mail before money runs out. A receipt comes for every credit (card payment, gift card, credit from the operator)
        whatever you choose here.
      </p>
      <QueryView query={settings} what="your alerts">
        {(data) => <AlertsForm settings={data} />}
      </QueryView>
    </section>
  );
}
