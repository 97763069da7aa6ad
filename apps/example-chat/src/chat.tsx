import { BudgetExhaustedError, NotSignedInError, toSwitchyardError } from '@switchyard/sdk';
import { TopUpButton, useSwitchyard } from '@switchyard/react';
import OpenAI from 'openai';
import { type FormEvent, useEffect, useMemo, useState } from 'react';

interface Message {
  role: 'user' | 'assistant';
  content: string;
}

/**
 * The chat: models listed at runtime, answers streamed with the official openai SDK through the user's token
 * (`openaiOptions()`), and a refused call kept, with the button that fixes it (add funds, or raise this app's cap
 * in a popup), after which the same message is sent again.
 */
export function Chat() {
  const { client, refreshBalance } = useSwitchyard();
  const openai = useMemo(() => new OpenAI(client.openaiOptions()), [client]);
  const [models, setModels] = useState<string[]>([]);
  const [model, setModel] = useState('');
  const [messages, setMessages] = useState<Message[]>([]);
  const [draft, setDraft] = useState('');
  const [busy, setBusy] = useState(false);
  const [refused, setRefused] = useState<{ error: BudgetExhaustedError; history: Message[] } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    openai.models
      .list({ query: { type: 'text', method: 'chat_completions' } })
      .then((page) => {
        const ids = page.data.map((entry) => entry.id);
        setModels(ids);
        setModel((current) => current || ids[0] || '');
      })
      .catch((error: unknown) => setProblem(`Could not list the models: ${String(error)}`));
  }, [openai]);

  /** Streams the answer to `history` (which ends with the user's message). */
  const send = async (history: Message[]) => {
    setBusy(true);
    setRefused(null);
    setProblem(null);
    setMessages([...history, { role: 'assistant', content: '' }]);
    try {
      const stream = await openai.chat.completions.create({ model, stream: true, messages: history });
      let answer = '';
      for await (const chunk of stream) {
        answer += chunk.choices[0]?.delta?.content ?? '';
        setMessages([...history, { role: 'assistant', content: answer }]);
      }
    } catch (thrown) {
      setMessages(history);
      const error = toSwitchyardError(thrown);
      if (error instanceof BudgetExhaustedError) setRefused({ error, history });
      else if (error instanceof NotSignedInError) setProblem('You were signed out. Sign in again to go on.');
      else setProblem(error instanceof Error ? error.message : String(error));
    } finally {
      setBusy(false);
      void refreshBalance();
    }
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const text = draft.trim();
    if (!text || busy) return;
    setDraft('');
    void send([...messages, { role: 'user', content: text }]);
  };

  return (
    <section className="chat" aria-label="Chat">
      <ol className="messages" aria-live="polite">
        {messages.map((message, index) => (
          <li key={index} className={`message ${message.role}`} data-role={message.role}>
            {message.content || (busy && index === messages.length - 1 ? '…' : '')}
          </li>
        ))}
      </ol>
      {refused ? (
        <div className="refused" role="alert">
          <p>
            {refused.error.kind === 'app'
              ? 'This app reached the spending cap you set on it.'
              : 'Your Switchyard budget cannot cover this message.'}{' '}
            {refused.error.message}
          </p>
          <TopUpButton limit={refused.error.kind} onDone={() => void send(refused.history)} />
        </div>
      ) : null}
      {problem ? <p role="alert">{problem}</p> : null}
      <form className="composer" onSubmit={submit}>
        <label>
          Model
          <select value={model} onChange={(event) => setModel(event.target.value)} disabled={busy}>
            {models.map((id) => (
              <option key={id}>{id}</option>
            ))}
          </select>
        </label>
        <label className="grow">
          Message
          <textarea value={draft} onChange={(event) => setDraft(event.target.value)} rows={3} />
        </label>
        <button type="submit" disabled={busy || !model || !draft.trim()}>
          Send
        </button>
      </form>
    </section>
  );
}
