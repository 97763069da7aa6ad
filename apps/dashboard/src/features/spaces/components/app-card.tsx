import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { SPACE_EDIT_PROMPT_RANGE, SPACE_TITLE_MAX_LENGTH } from '@switchyard/shared-dto';
import type { SpaceAppResponse } from '@switchyard/shared-dto';

import { Alert, FormAlert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { FormattedDate } from '../../../components/ui/formatted-date';
import type { Announce } from '../../../components/ui/list-card';
import { TextField } from '../../../components/ui/text-field';
import { toFormErrors } from '../../../lib/form-errors';
import {
  useDeleteSpaceApp,
  useEditSpaceApp,
  usePublishSpaceApp,
  useRenameSpaceApp,
  useUndoSpaceApp,
} from '../api/change-app';
import { AppPreview } from './app-preview';
import { Link } from '../../../lib/router';
import { RemixCredit } from './remix-credit';

const STATUS_LABEL: Record<SpaceAppResponse['status'], string> = {
  generating: 'Generating…',
  ready: 'Ready',
  failed: 'Failed',
};
const [EDIT_MIN, EDIT_MAX] = SPACE_EDIT_PROMPT_RANGE;

interface AppCardProps {
  app: SpaceAppResponse;
  onAnnounce: Announce;
}

/** One app: its state as it is written, its preview, and what its owner can do with it. */
export function AppCard({ app, onAnnounce }: AppCardProps) {
  const headingId = useId();
  const previewId = useId();
  const [showPreview, setShowPreview] = useState(false);
  const [change, setChange] = useState('');
  const [changeTooShort, setChangeTooShort] = useState(false);
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const [renaming, setRenaming] = useState<string | null>(null);
  const renameMutation = useRenameSpaceApp();
  const renameErrors = toFormErrors(renameMutation.error, ['title'] as const);
  const editMutation = useEditSpaceApp();
  const publishMutation = usePublishSpaceApp();
  const undoMutation = useUndoSpaceApp();
  const deleteMutation = useDeleteSpaceApp({
    onDeleted: () => onAnnounce(`${app.title} was deleted.`, { removed: true }),
  });
  const editErrors = toFormErrors(editMutation.error, ['prompt'] as const);
  const failure = publishMutation.error ?? undoMutation.error ?? deleteMutation.error;
  const generating = app.status === 'generating';
  const hasPage = app.version !== null;

  const submitChange = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const prompt = change.trim();
    if (prompt.length < EDIT_MIN) {
      setChangeTooShort(true);
      return;
    }
    setChangeTooShort(false);
    editMutation.mutate(
      { slug: app.slug, prompt },
      {
        onSuccess: () => {
          setChange('');
          onAnnounce(`The model is revising ${app.title}.`);
        },
      },
    );
  };

  const submitRename = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const title = (renaming ?? '').trim();
    if (!title) return;
    renameMutation.mutate(
      { slug: app.slug, title },
      {
        onSuccess: (saved) => {
          setRenaming(null);
          onAnnounce(`Renamed to ${saved.title}.`);
        },
      },
    );
  };

  const togglePublished = () =>
    publishMutation.mutate(
      { slug: app.slug, published: !app.published },
      {
        onSuccess: (saved) =>
          onAnnounce(saved.published ? `${saved.title} is published.` : `${saved.title} is no longer published.`),
      },
    );

  return (
    <article className="app-card" aria-labelledby={headingId} data-slug={app.slug}>
      <div className="app-card-header">
        <h3 id={headingId} className="app-card-title">
          {app.title}
        </h3>
        <span className={`badge badge-${app.status === 'failed' ? 'revoked' : 'active'}`}>
          {STATUS_LABEL[app.status]}
        </span>
        {app.published ? <span className="badge badge-active">Published</span> : null}
        {renaming === null ? (
          <Button variant="ghost" className="button-small" onClick={() => setRenaming(app.title)}>
            Rename<span className="visually-hidden"> {app.title}</span>
          </Button>
        ) : null}
      </div>
      {renaming !== null ? (
        <form className="space-rename" onSubmit={submitRename} noValidate aria-label={`Rename ${app.title}`}>
          <FormAlert messages={renameErrors.general} />
          <TextField
            label="Title"
            hint="Its address stays the same; pages the model writes later keep this title."
            maxLength={SPACE_TITLE_MAX_LENGTH}
            value={renaming}
            onChange={(event) => setRenaming(event.target.value)}
            errors={renameErrors.fields.title}
            autoFocus
          />
          <div className="button-row">
            <Button type="submit" busy={renameMutation.isPending} disabled={!renaming.trim()}>
              Save title
            </Button>
            <Button variant="secondary" onClick={() => setRenaming(null)}>
              Cancel
            </Button>
          </div>
        </form>
      ) : null}
      {generating ? (
        <p className="space-working" role="status">
          <span className="spinner" aria-hidden="true" /> A model is writing this app…
        </p>
      ) : null}
      {app.error ? (
        <Alert>
          {app.status === 'failed'
            ? `Generation failed: ${app.error}`
            : `The last edit failed, so the page before it stays: ${app.error}`}
        </Alert>
      ) : null}
      <dl className="details">
        <div>
          <dt>Address</dt>
          <dd>
            {app.published ? (
              <a href={app.url} target="_blank" rel="noopener noreferrer">
                {app.url}
              </a>
            ) : (
              <span className="muted">{app.url} (not published)</span>
            )}
          </dd>
        </div>
        <div>
          <dt>Prompt</dt>
          <dd className="space-prompt">{app.prompt}</dd>
        </div>
        {app.remixOf ? (
          <div>
            <dt>Original</dt>
            <dd>
              <RemixCredit credit={app.remixOf} />
            </dd>
          </div>
        ) : null}
        {app.clientId ? (
          <div>
            <dt>Sign-in</dt>
            <dd>
              Visitors sign in to its OAuth app <code>{app.clientId}</code> and pay for their own calls; see its users
              and usage on <Link href="/apps">OAuth apps</Link>.
            </dd>
          </div>
        ) : null}
        <div>
          <dt>Version</dt>
          <dd>{app.version ?? 'None yet'}</dd>
        </div>
        <div>
          <dt>Updated</dt>
          <dd>
            <FormattedDate iso={app.updatedAt} format="dateTime" />
          </dd>
        </div>
      </dl>
      {failure ? <Alert>That did not work: {failure.message}</Alert> : null}
      <div className="app-card-actions">
        {confirmingDelete ? (
          <div className="inline-confirm" role="group" aria-label={`Delete ${app.title}?`}>
            <span className="inline-confirm-question">Delete {app.title}? Every version goes with it.</span>
            <Button
              variant="danger"
              busy={deleteMutation.isPending}
              onClick={() => deleteMutation.mutate(app.slug, { onError: () => setConfirmingDelete(false) })}
            >
              Delete
            </Button>
            <Button
              variant="secondary"
              autoFocus
              disabled={deleteMutation.isPending}
              onClick={() => setConfirmingDelete(false)}
            >
              Cancel
            </Button>
          </div>
        ) : (
          <>
            {hasPage ? (
              <Button
                variant="secondary"
                aria-expanded={showPreview}
                aria-controls={showPreview ? previewId : undefined}
                onClick={() => setShowPreview((shown) => !shown)}
              >
                {showPreview ? 'Hide preview' : 'Preview'}
                <span className="visually-hidden"> {app.title}</span>
              </Button>
            ) : null}
            {hasPage ? (
              <Button variant="secondary" busy={publishMutation.isPending} onClick={togglePublished}>
                {app.published ? 'Unpublish' : 'Publish'}
                <span className="visually-hidden"> {app.title}</span>
              </Button>
            ) : null}
            {app.canUndo ? (
              <Button
                variant="secondary"
                busy={undoMutation.isPending}
                onClick={() =>
                  undoMutation.mutate(app.slug, {
                    onSuccess: () => onAnnounce(`The last edit of ${app.title} was undone.`),
                  })
                }
              >
                Undo last edit<span className="visually-hidden"> of {app.title}</span>
              </Button>
            ) : null}
            <Button
              variant="secondary"
              onClick={() => {
                deleteMutation.reset();
                setConfirmingDelete(true);
              }}
            >
              Delete<span className="visually-hidden"> {app.title}</span>
            </Button>
          </>
        )}
      </div>
      {showPreview && hasPage ? <AppPreview slug={app.slug} title={app.title} id={previewId} /> : null}
      {hasPage ? (
        <form className="space-edit" onSubmit={submitChange} noValidate aria-label={`Change ${app.title}`}>
          <FormAlert messages={editErrors.general} />
          <TextField
            multiline
            label="Change"
            hint={`${EDIT_MIN}-${EDIT_MAX} characters: what the model should change on this page.`}
            name="change"
            rows={2}
            maxLength={EDIT_MAX}
            value={change}
            disabled={generating}
            onChange={(event) => {
              setChangeTooShort(false);
              setChange(event.target.value);
            }}
            errors={
              changeTooShort ? [`Describe the change in at least ${EDIT_MIN} characters.`] : editErrors.fields.prompt
            }
          />
          <Button type="submit" variant="secondary" busy={editMutation.isPending} disabled={generating}>
            Apply change<span className="visually-hidden"> to {app.title}</span>
          </Button>
        </form>
      ) : null}
    </article>
  );
}
