import { useQueryClient } from '@tanstack/react-query';
import type { UserResponse } from '@switchyard/shared-dto';

import { meQueryOptions } from '../../features/auth/api/get-me';
import { AppList } from '../../features/spaces/components/app-list';
import { GenerateForm } from '../../features/spaces/components/generate-form';
import { HandleForm } from '../../features/spaces/components/handle-form';
import { Link, useDocumentTitle } from '../../lib/router';

export function SpacesRoute({ user }: { user: UserResponse }) {
  useDocumentTitle('Spaces');
  const queryClient = useQueryClient();

  return (
    <>
      <div className="page-header">
        <h1 className="page-title">Spaces</h1>
        <p className="muted">
          Describe an app in words and a model writes it as a web page, on your budget. Publish it to give it a public
          address; your published apps are listed on your profile
          {user.handle ? (
            <>
              {' '}
              at <Link href={`/u/${encodeURIComponent(user.handle)}`}>/u/{user.handle}</Link>
            </>
          ) : null}
          . Apps run on their own address, sandboxed: they cannot see your session or anything else of this dashboard,
          and make no requests.
        </p>
      </div>
      <HandleForm
        current={user.handle}
        onSaved={() => queryClient.invalidateQueries({ queryKey: meQueryOptions().queryKey })}
      />
      {user.handle ? (
        <>
          <GenerateForm />
          <AppList />
        </>
      ) : null}
    </>
  );
}
