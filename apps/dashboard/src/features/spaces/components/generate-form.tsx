import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { SPACE_GENERATE_PROMPT_RANGE } from '@switchyard/shared-dto';

import { FormAlert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import { toFormErrors } from '../../../lib/form-errors';
import { useGenerateSpaceApp } from '../api/generate-app';

const FIELDS = ['prompt'] as const;
const [MIN, MAX] = SPACE_GENERATE_PROMPT_RANGE;

/** Describes an app in words; a model then writes it (the list below shows its status as it goes). */
export function GenerateForm() {
  const headingId = useId();
  const [prompt, setPrompt] = useState('');
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
      { prompt: text },
      {
        onSuccess: (app) => {
          setPrompt('');
          setStarted(`A model is writing “${app.title}”. It appears in Your apps below.`);
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
