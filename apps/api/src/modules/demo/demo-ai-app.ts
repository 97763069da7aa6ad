/**
 * The demo model's AI apps (docs/demo-provider.md, docs/spaces.md): for a request such as "a haiku generator", "a
 * chat with a pirate" or "an image maker", when the builder's system prompt names models the page may call, a page
 * that signs its visitor in with the Switchyard kit and calls those models on the visitor's budget. A visitor who is
 * not signed in (or a preview, where the kit is absent) sees the whole app, its sign-in button and a note.
 */

/** The models the page may call, as the builder's system prompt names them. */
export interface AppModels {
  chat?: string;
  image?: string;
}

export interface AiWidget {
  html: string;
  script: string;
  head: string;
}

const WANTS_IMAGE = /\b(images?|pictures?|drawings?|draw|paint\w*|art|logos?|illustrat\w*|photos?)\b/i;
const WANTS_CHAT = /\b(chat\w*|talk|conversation|pirate|assistant|ask|tutor|advisor|companion)\b/i;
const WANTS_TEXT =
  /\b(haiku|poems?|poetry|story|stories|jokes?|riddles?|generator|generate\w*|writer|translat\w*|summar\w*|ideas?|names?|quotes?|limericks?|recipes?|ai)\b/i;

/** A JSON string literal that is safe inside an inline <script> (no "</script>" can close it). */
const literal = (value: string) =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028|\u2029/g, ' ');

export function aiWidgetFor(prompt: string, models: AppModels): AiWidget | null {
  if (models.image && WANTS_IMAGE.test(prompt)) return imageWidget(models.image);
  if (!models.chat) return null;
  if (WANTS_CHAT.test(prompt)) return chatWidget(models.chat, prompt, true);
  if (WANTS_TEXT.test(prompt)) return chatWidget(models.chat, prompt, false);
  return null;
}

const HEAD = '<script src="/sdk/v1/switchyard.js"></script>\n';

const SIGN_IN = `<p><button type="button" id="signin" data-switchyard-button>Sign in with Switchyard</button>
<span id="signin-note" class="prompt"></span></p>`;

/** Signs in and out, enables the app's button for a signed-in visitor, and says whose budget pays. */
const SIGN_IN_SCRIPT = `const sy = window.Switchyard ? Switchyard.init({}) : null;
const go = document.getElementById('go');
const note = document.getElementById('signin-note');
const answer = document.getElementById('answer');
function render() {
  const signedIn = !!sy && sy.state.status === 'signed-in';
  go.disabled = !signedIn;
  document.body.dataset.signedIn = String(signedIn);
  note.textContent = signedIn
    ? 'Signed in: each answer is paid from your own Switchyard budget.'
    : sy
      ? 'Sign in with Switchyard to use this app; each answer is paid from your own budget.'
      : 'Sign-in is not available on this copy of the app (a preview, or it is not published).';
}
if (sy) sy.subscribe(render);
render();
async function call(path, body) {
  const response = await sy.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error((json.error && json.error.message) || 'HTTP ' + response.status);
  return json;
}
async function run() {
  if (!sy || go.disabled) return;
  go.disabled = true;
  answer.textContent = 'Working…';
  try {
    await answerWith();
    document.body.dataset.answered = String(Number(document.body.dataset.answered || 0) + 1);
  } catch (error) {
    answer.textContent = 'Could not answer: ' + error.message;
  } finally {
    render();
  }
}
go.addEventListener('click', run);
document.getElementById('input').addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey) { event.preventDefault(); run(); }
});`;

function chatWidget(model: string, prompt: string, conversation: boolean): AiWidget {
  const instructions = `You are the app a visitor is using. Its maker described it as: ${prompt.slice(0, 500)}`;
  return {
    head: HEAD,
    html: `${SIGN_IN}
<p><label for="input">${conversation ? 'Your message' : 'What should it be about?'}</label><br>
<textarea id="input" rows="3" cols="40"></textarea></p>
<p><button type="button" id="go">${conversation ? 'Send' : 'Write it'}</button></p>
<div id="answer" aria-live="polite" style="white-space: pre-wrap"></div>`,
    script: `${SIGN_IN_SCRIPT}
const MODEL = ${literal(model)};
const history = [{ role: 'system', content: ${literal(instructions)} }];
const keepsConversation = ${conversation};
async function answerWith() {
  const input = document.getElementById('input');
  const text = input.value.trim() || 'Surprise me.';
  const messages = keepsConversation ? history.concat([{ role: 'user', content: text }]) : [history[0], { role: 'user', content: text }];
  const json = await call('/v1/chat/completions', { model: MODEL, messages });
  const reply = json.choices[0].message.content;
  if (keepsConversation) { history.push({ role: 'user', content: text }, { role: 'assistant', content: reply }); input.value = ''; }
  answer.textContent = reply;
}`,
  };
}

function imageWidget(model: string): AiWidget {
  return {
    head: HEAD,
    html: `${SIGN_IN}
<p><label for="input">Describe the picture</label><br><input id="input" size="40"></p>
<p><button type="button" id="go">Make it</button></p>
<p id="answer" aria-live="polite"></p>
<img id="picture" alt="" hidden style="max-width: 100%">`,
    script: `${SIGN_IN_SCRIPT}
const MODEL = ${literal(model)};
async function answerWith() {
  const text = document.getElementById('input').value.trim() || 'a lighthouse at dusk';
  const json = await call('/v1/images/generations', { model: MODEL, prompt: text, response_format: 'b64_json' });
  const picture = document.getElementById('picture');
  picture.src = 'data:image/png;base64,' + json.data[0].b64_json;
  picture.alt = text;
  picture.hidden = false;
  answer.textContent = 'Here it is.';
}`,
  };
}
