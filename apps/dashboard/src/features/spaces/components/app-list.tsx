import { ListCard } from '../../../components/ui/list-card';
import { QueryList } from '../../../components/ui/query-list';
import { useSpaceApps } from '../api/list-apps';
import { AppCard } from './app-card';

/** The user's apps, newest first, with live status while a model writes one. */
export function AppList() {
  const appsQuery = useSpaceApps();

  return (
    <ListCard title="Your apps">
      {(announce) => (
        <QueryList query={appsQuery} what="your apps" empty="No apps yet. Describe one above.">
          {(apps) => (
            <div className="app-cards">
              {apps.map((app) => (
                <AppCard key={app.slug} app={app} onAnnounce={announce} />
              ))}
            </div>
          )}
        </QueryList>
      )}
    </ListCard>
  );
}
