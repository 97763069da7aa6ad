import { ListCard } from '../../../components/ui/list-card';
import { QueryList } from '../../../components/ui/query-list';
import { useConsents } from '../api/list-consents';
import { ConsentCard } from './consent-card';

/** Every app the user authorized; the one named by `focusClientId` opens with its caps form. */
export function ConsentList({ focusClientId }: { focusClientId?: string }) {
  const consentsQuery = useConsents();

  return (
    <ListCard title="Apps with access to your account">
      {(announce) => (
        <QueryList query={consentsQuery} what="your authorized apps" empty="You have not authorized any apps.">
          {(consents) => (
            <div className="app-cards">
              {consents.map((consent) => (
                <ConsentCard
                  key={consent.clientId}
                  consent={consent}
                  onAnnounce={announce}
                  startEditing={consent.clientId === focusClientId}
                />
              ))}
            </div>
          )}
        </QueryList>
      )}
    </ListCard>
  );
}
