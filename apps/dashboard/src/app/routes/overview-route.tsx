import type { UserResponse } from '@switchyard/shared-dto';

import { useDocumentTitle } from '../../lib/router';

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'long' });

function formatDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateFormat.format(date);
}

export function OverviewRoute({ user }: { user: UserResponse }) {
  useDocumentTitle('Overview');

  return (
    <>
      <h1 className="page-title">Welcome, {user.name || user.email}</h1>
      <section className="card" aria-labelledby="account-heading">
        <h2 id="account-heading" className="card-title">
          Your account
        </h2>
        <dl className="details">
          <div>
            <dt>Email</dt>
            <dd>{user.email}</dd>
          </div>
          <div>
            <dt>Role</dt>
            <dd>{user.role}</dd>
          </div>
          {user.handle ? (
            <div>
              <dt>Handle</dt>
              <dd>@{user.handle}</dd>
            </div>
          ) : null}
          <div>
            <dt>Member since</dt>
            <dd>{formatDate(user.createdAt)}</dd>
          </div>
        </dl>
      </section>
    </>
  );
}
