import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { SPACE_GENERATE_PROMPT_RANGE, SPACE_TITLE_MAX_LENGTH } from '@switchyard/shared-dto';

import { FormAlert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import { toFormErrors } from '../../../lib/form-errors';
import { useGenerateSpaceApp } from '../api/generate-app';

const FIELDS = ['prompt', 'title'] as const;
const [MIN, MAX] = SPACE_GENERATE_PROMPT_RANGE;

/** Describes an app in words; a model then writes it (the list below shows its status as it goes). */
export function GenerateForm() {
  const headingId = useId();
  const [prompt, setPrompt] = useState('');
  const [title, setTitle] = useState('');
  const [tooShort, setTooShort] = useState(false);
  const [started, setStarted] = useState('');
  const generateMutation = useGenerateSpaceApp();
  const errors = toFormErrors(generateMutation.error, FIELDS);
  const promptErrors = tooShort ? [`Describe it in at least ${MIN} characters.`] : errors.fields.prompt;

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setStarted('');
    const text = prompt.trim();
    if (text.length < MIN) {
      setTooShort(true);
      return;
    }
    setTooShort(false);
    generateMutation.mutate(
      { prompt: text, ...(title.trim() ? { title: title.trim() } : {}) },
      {
        onSuccess: (app) => {
          setPrompt('');
          setTitle('');
          setStarted(
            app.title === 'New app'
              ? 'A model is writing your app. It appears in Your apps below, named by its page once it is written.'
              : `A model is writing “${app.title}”. It appears in Your apps below.`,
          );
        },
      },
    );
  };

  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId} className="card-title">
        New app
      </h2>
      <form className="app-form" onSubmit={handleSubmit} noValidate aria-labelledby={headingId}>
        <FormAlert messages={errors.general} />
        <TextField
          multiline
          label="Describe your app"
          hint={`${MIN}-${MAX} characters. A model writes it as a single web page, paid from your budget like any other call.`}
          name="prompt"
          rows={4}
          maxLength={MAX}
          value={prompt}
          onChange={(event) => {
            setTooShort(false);
            setPrompt(event.target.value);
          }}
          errors={promptErrors}
        />
        <TextField
          label="Title (optional)"
          hint="Leave it blank to use the title of the page the model writes. You can rename the app at any time."
          name="title"
          maxLength={SPACE_TITLE_MAX_LENGTH}
          value={title}
          onChange={(event) => setTitle(event.target.value)}
          errors={errors.fields.title}
        />
        <Button type="submit" busy={generateMutation.isPending}>
          Generate app
        </Button>
      </form>
      <p className="field-hint" role="status">
        {started}
      </p>
    </section>
  );
}
