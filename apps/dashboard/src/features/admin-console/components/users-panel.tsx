import { Fragment, useId, useState } from 'react';
import type { AccountStatus, AdminUser } from '@switchyard/shared-dto';

import { Button } from '../../../components/ui/button';
import { FormattedDate } from '../../../components/ui/formatted-date';
import { PagedList } from '../../../components/ui/paged-list';
import { SelectField } from '../../../components/ui/select-field';
import { TextField } from '../../../components/ui/text-field';
import { formatMoney } from '../../../lib/money';
import { useAdminUsers } from '../api/console';
import { UserDetail } from './user-detail';

const STATUS_OPTIONS: { value: AccountStatus | ''; label: string }[] = [
  { value: '', label: 'Any status' },
  { value: 'active', label: 'Active' },
  { value: 'disabled', label: 'Disabled' },
  { value: 'deleted', label: 'Deleted' },
];

export function statusBadge(status: AccountStatus) {
  return (
    <span className={status === 'active' ? 'badge badge-active' : 'badge badge-revoked'}>
      {status === 'active' ? 'Active' : status === 'disabled' ? 'Disabled' : 'Deleted'}
    </span>
  );
}

/** Accounts: search by email, name, handle or id; each row opens the account's details and actions below it. */
export function UsersPanel({ selfId }: { selfId: string }) {
  const id = useId();
  const [typed, setTyped] = useState('');
  const [q, setQ] = useState('');
  const [status, setStatus] = useState<AccountStatus | ''>('');
  const [open, setOpen] = useState<string | null>(null);
  const users = useAdminUsers(q, status);

  const table = (items: AdminUser[]) => (
    <div className="table-scroll">
      <table className="data-table stack-on-phone console-users" aria-labelledby={`${id}-heading`}>
        <thead>
          <tr>
            <th scope="col">Account</th>
            <th scope="col">Status</th>
            <th scope="col" className="numeric">
              Balance
            </th>
            <th scope="col" className="numeric">
              Spent this month
            </th>
            <th scope="col">Last call</th>
          </tr>
        </thead>
        <tbody>
          {items.map((user) => (
            <Fragment key={user.id}>
              <tr aria-selected={user.id === open || undefined}>
                <th scope="row" className="data-table-name" data-label="Account">
                  <Button
                    variant="ghost"
                    className="button-link"
                    aria-expanded={user.id === open}
                    onClick={() => setOpen(user.id === open ? null : user.id)}
                  >
                    {user.email}
                  </Button>
                  {user.name ? <span className="muted small"> {user.name}</span> : null}
                  {user.role === 'admin' ? <span className="badge"> admin</span> : null}
                </th>
                <td data-label="Status">{statusBadge(user.status)}</td>
                <td className="numeric" data-label="Balance">
                  {formatMoney(user.balance)}
                </td>
                <td className="numeric" data-label="Spent this month">
                  {formatMoney(user.spentThisMonth)}
                </td>
                <td data-label="Last call">
                  {user.lastCallAt ? <FormattedDate iso={user.lastCallAt} format="dateTime" /> : 'Never'}
                </td>
              </tr>
              {user.id === open ? (
                <tr className="console-detail-row">
                  <td colSpan={5}>
                    <UserDetail user={user} self={user.id === selfId} onClose={() => setOpen(null)} />
                  </td>
                </tr>
              ) : null}
            </Fragment>
          ))}
        </tbody>
      </table>
    </div>
  );

  return (
    <section className="card stack" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`} className="card-title">
        Accounts
      </h2>
      <form
        className="filter-row"
        role="search"
        aria-label="Find accounts"
        onSubmit={(event) => {
          event.preventDefault();
          setOpen(null);
          setQ(typed.trim());
        }}
      >
        <TextField
          label="Find"
          type="search"
          placeholder="Email, name, handle or id"
          maxLength={254}
          value={typed}
          onChange={(event) => setTyped(event.target.value)}
        />
        <SelectField
          label="Status"
          value={status}
          options={STATUS_OPTIONS}
          onChange={(value) => {
            setOpen(null);
            setStatus(value);
          }}
        />
        <div className="filter-row-submit">
          <Button type="submit" variant="secondary">
            Search
          </Button>
        </div>
      </form>
      <PagedList query={users} what="the accounts" empty="No account matches.">
        {table}
      </PagedList>
    </section>
  );
}
