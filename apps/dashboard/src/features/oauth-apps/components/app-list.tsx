import { ListCard } from '../../../components/ui/list-card';
import { QueryList } from '../../../components/ui/query-list';
import { useOAuthApps } from '../api/list-oauth-apps';
import { AppCard } from './app-card';

/** The caller's registered apps, newest first as the server sends them. */
export function AppList() {
  const appsQuery = useOAuthApps();

  return (
    <ListCard title="Your apps">
      {(announce) => (
        <QueryList query={appsQuery} what="your apps" empty="No OAuth apps yet.">
          {(apps) => (
            <div className="app-cards">
              {apps.map((app) => (
                <AppCard key={app.id} app={app} onAnnounce={announce} />
              ))}
            </div>
          )}
        </QueryList>
      )}
    </ListCard>
  );
}
