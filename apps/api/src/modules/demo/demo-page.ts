import type { Turn } from './demo-text';
import { aiWidgetFor, type AppModels } from './demo-ai-app';
import { truncateChars } from './fields';

/**
 * The demo model as a web-page writer (docs/demo-provider.md): when a system or developer message asks for "a
 * single self-contained HTML page" (the spaces app builder does), the answer is a small, deterministic, working
 * page that reflects the request. A request that carries a page in an ```html fence is a revision: the change is
 * applied to that page. Everything from the prompt is HTML-escaped; nothing from it reaches a script.
 */

const ASKS_FOR_PAGE = /single\s+self-contained\s+html\s+page/i;
const REVISIONS_MARKER = '<!-- demo-revisions -->';
const ACCENT = /--accent: #[0-9a-f]{6};/;

const COLORS: Record<string, string> = {
  red: '#dc2626',
  orange: '#ea580c',
  yellow: '#ca8a04',
  green: '#16a34a',
  teal: '#0d9488',
  blue: '#2563eb',
  purple: '#9333ea',
  pink: '#db2777',
  black: '#111827',
  gray: '#4b5563',
  grey: '#4b5563',
};

export function wantsHtmlPage(turns: Turn[]): boolean {
  return turns.some((turn) => (turn.role === 'system' || turn.role === 'developer') && ASKS_FOR_PAGE.test(turn.text));
}

/** The page for the last user message: a revision of the page it quotes, or a new page. */
export function demoHtmlPage(turns: Turn[]): string {
  const request = [...turns].reverse().find((turn) => turn.role === 'user')?.text ?? '';
  const quoted = /```html[^\n]*\n([\s\S]*?)```([\s\S]*)$/i.exec(request);
  if (quoted) return revisePage(quoted[1].trim(), quoted[2].replace(/^\s*(the change:)?\s*/i, '').trim());
  return newPage(request.trim(), modelsNamed(turns));
}

/** The models the builder's system prompt lets the page call ("Chat model: demo-chat."), if any. */
function modelsNamed(turns: Turn[]): AppModels {
  const system = turns
    .filter((turn) => turn.role === 'system' || turn.role === 'developer')
    .map((turn) => turn.text)
    .join('\n');
  const named = (kind: string) =>
    new RegExp(`^${kind} model: ([A-Za-z0-9._:/-]+?)\\.?\\s`, 'm').exec(`${system}\n`)?.[1];
  return { chat: named('Chat'), image: named('Image') };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A short title of the page's own, as a model would write one: the first words of the first sentence, not the prompt. */
function titleFor(prompt: string): string {
  const words = prompt
    .replace(/^\s*(please\s+)?((make|build|create|write|give)\s+(me\s+)?)?(an?|the)?\s*/i, '')
    .split(/[.!?\n]/)[0]
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 5);
  // A title does not end on a small word ("Counter for the birds", not "Counter for the birds I").
  while (words.length > 1 && TRAILING.has(words[words.length - 1].toLowerCase())) words.pop();
  const title = truncateChars(words.join(' ') || 'Demo app', 60);
  return title.charAt(0).toUpperCase() + title.slice(1);
}

const TRAILING = new Set([
  'a',
  'an',
  'the',
  'i',
  'of',
  'for',
  'in',
  'on',
  'to',
  'and',
  'with',
  'my',
  'your',
  'can',
  'that',
  'this',
]);

function colorIn(text: string): string | undefined {
  const word = text.toLowerCase().match(/\b(red|orange|yellow|green|teal|blue|purple|pink|black|gr[ae]y)\b/)?.[1];
  return word ? COLORS[word] : undefined;
}

interface Widget {
  html: string;
  script: string;
  /** Elements before the page's script (the kit's script tag). */
  head?: string;
}

/** What the page does, by what the prompt mentions (the first rule that matches). */
function widgetFor(prompt: string, models: AppModels): Widget {
  if (/\b(cookies?|storage|sandbox|inspect\w*|probe)\b/i.test(prompt)) return INSPECTOR;
  const ai = aiWidgetFor(prompt, models);
  if (ai) return ai;
  if (/\b(todo|to-do|tasks?|checklist)\b/i.test(prompt)) return TODO;
  if (/\b(clock|time|stopwatch)\b/i.test(prompt)) return CLOCK;
  return COUNTER;
}

function newPage(prompt: string, models: AppModels): string {
  const title = escapeHtml(titleFor(prompt));
  const widget = widgetFor(prompt, models);
  const accent = colorIn(prompt) ?? COLORS.blue;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>
:root { --accent: ${accent}; }
* { box-sizing: border-box; }
body { margin: 0; padding: 2rem 1rem; font-family: system-ui, sans-serif; background: #f8fafc; color: #0f172a; }
main { max-width: 40rem; margin: 0 auto; padding: 1.5rem; background: #fff; border-radius: 12px; box-shadow: 0 1px 3px rgba(15, 23, 42, 0.15); }
h1 { margin-top: 0; color: var(--accent); }
button { padding: 0.5rem 1rem; border: 0; border-radius: 8px; background: var(--accent); color: #fff; font: inherit; cursor: pointer; }
input { padding: 0.45rem; border: 1px solid #94a3b8; border-radius: 8px; font: inherit; }
.output { font-size: 2rem; font-weight: 700; }
.prompt, footer { color: #475569; }
dt { font-family: ui-monospace, monospace; margin-top: 0.5rem; }
</style>
</head>
<body>
<main>
<h1>${title}</h1>
<p class="prompt">You asked for: “${escapeHtml(truncateChars(prompt, 300))}”</p>
${widget.html}
<p id="status" role="status">Loading…</p>
<section id="revisions-section" hidden>
<h2>Revisions</h2>
<ol id="revisions">${REVISIONS_MARKER}</ol>
</section>
<footer><small>Written offline by Switchyard's demo model: the same request always gets the same page.</small></footer>
</main>
${widget.head ?? ''}<script>
${widget.script}
document.getElementById('status').textContent = 'JavaScript is running.';
document.body.dataset.ready = 'true';
</script>
</body>
</html>`;
}

/** Applies a change to a page: a colour it names becomes the accent, and the change is listed as a revision. */
function revisePage(page: string, change: string): string {
  let revised = page;
  const accent = colorIn(change);
  if (accent && ACCENT.test(revised)) revised = revised.replace(ACCENT, `--accent: ${accent};`);
  const item = `<li>${escapeHtml(truncateChars(change || 'A revision', 300))}</li>`;
  if (revised.includes(REVISIONS_MARKER)) {
    return revised
      .replace('<section id="revisions-section" hidden>', '<section id="revisions-section">')
      .replace(REVISIONS_MARKER, `${item}${REVISIONS_MARKER}`);
  }
  // Not a page the demo wrote: add the revision at the end of its body.
  const section = `<section><h2>Revisions</h2><ol>${item}${REVISIONS_MARKER}</ol></section>\n`;
  const end = revised.toLowerCase().lastIndexOf('</body>');
  return end < 0 ? revised : revised.slice(0, end) + section + revised.slice(end);
}

const COUNTER: Widget = {
  html: `<p class="output" id="count" aria-live="polite">0</p>
<p><button type="button" id="add">Add one</button> <button type="button" id="reset">Reset</button></p>`,
  script: `let count = 0;
const shown = document.getElementById('count');
document.getElementById('add').addEventListener('click', () => { count += 1; shown.textContent = String(count); });
document.getElementById('reset').addEventListener('click', () => { count = 0; shown.textContent = '0'; });`,
};

const TODO: Widget = {
  html: `<p><label for="task">New task</label> <input id="task" autocomplete="off"> <button type="button" id="add-task">Add</button></p>
<ul id="tasks"></ul>
<p id="left">Nothing to do.</p>`,
  script: `const tasks = [];
const list = document.getElementById('tasks');
function render() {
  list.replaceChildren(...tasks.map((task, index) => {
    const item = document.createElement('li');
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.checked = task.done;
    box.id = 'task-' + index;
    box.addEventListener('change', () => { task.done = box.checked; render(); });
    const label = document.createElement('label');
    label.htmlFor = box.id;
    label.textContent = task.text;
    item.append(box, ' ', label);
    return item;
  }));
  const left = tasks.filter((task) => !task.done).length;
  document.getElementById('left').textContent = left ? left + ' left to do.' : 'Nothing to do.';
}
// Hosted pages cannot submit forms (their sandbox has no allow-forms, so not even the submit event fires):
// a button and the Enter key add the task.
function add() {
  const input = document.getElementById('task');
  if (input.value.trim()) tasks.push({ text: input.value.trim(), done: false });
  input.value = '';
  render();
}
document.getElementById('add-task').addEventListener('click', add);
document.getElementById('task').addEventListener('keydown', (event) => { if (event.key === 'Enter') add(); });`,
};

const CLOCK: Widget = {
  html: `<p class="output" id="clock" aria-live="off">--:--:--</p>`,
  script: `const clock = document.getElementById('clock');
function tick() { clock.textContent = new Date().toLocaleTimeString(); }
tick();
setInterval(tick, 1000);`,
};

/**
 * Shows what this page can reach of the site that hosts it; in a Switchyard space: nothing. With `#target=<origin>`
 * in its address (a site to aim at, such as the dashboard's), it also tries to act there with the visitor's
 * session: a popup to its authorization endpoint, a navigation of the top window (only when framed: a page may
 * always navigate itself), a form post, and a fetch with credentials. Each writes what happened; a form post that
 * went through would leave the page.
 */
const INSPECTOR: Widget = {
  html: `<p>What this page could read of the site that hosts it:</p>
<dl>
<dt>document.cookie</dt><dd id="probe-cookie">…</dd>
<dt>localStorage</dt><dd id="probe-local">…</dd>
<dt>sessionStorage</dt><dd id="probe-session">…</dd>
<dt>fetch('/api/v1/auth/me', { credentials: 'include' })</dt><dd id="probe-account">…</dd>
<dt>the page around this one</dt><dd id="probe-parent">…</dd>
</dl>
<p>What it could do at the site named by <code>#target=</code> in its address:</p>
<dl>
<dt>window.open(target + '/oauth2/authorize?…')</dt><dd id="probe-popup">…</dd>
<dt>top.location = target</dt><dd id="probe-top">…</dd>
<dt>a form posted to target</dt><dd id="probe-form">…</dd>
<dt>fetch(target + '/api/v1/auth/me', { credentials: 'include' })</dt><dd id="probe-site">…</dd>
</dl>`,
  script: `function show(id, text) { document.getElementById(id).textContent = text; }
function storage(name) {
  const store = window[name];
  return store.length ? 'read: ' + Object.keys(store).join(', ') : 'empty';
}
try { show('probe-cookie', document.cookie ? 'read: ' + document.cookie : 'empty'); } catch (error) { show('probe-cookie', 'blocked (' + error.name + ')'); }
try { show('probe-local', storage('localStorage')); } catch (error) { show('probe-local', 'blocked (' + error.name + ')'); }
try { show('probe-session', storage('sessionStorage')); } catch (error) { show('probe-session', 'blocked (' + error.name + ')'); }
try { show('probe-parent', window.parent === window ? 'none (not in a frame)' : 'read: ' + window.parent.location.href); } catch (error) { show('probe-parent', 'blocked (' + error.name + ')'); }
fetch('/api/v1/auth/me', { credentials: 'include' })
  .then((response) => response.text().then((text) => show('probe-account', 'read (HTTP ' + response.status + '): ' + text.slice(0, 200))))
  .catch((error) => show('probe-account', 'blocked (' + error.name + ')'));
let target = null;
try {
  const named = new URLSearchParams(location.hash.slice(1)).get('target');
  const url = named ? new URL(named) : null;
  if (url && (url.protocol === 'http:' || url.protocol === 'https:')) target = url.origin;
} catch (error) { target = null; }
if (!target) {
  for (const id of ['probe-popup', 'probe-top', 'probe-form', 'probe-site']) show(id, 'not tried (no #target= in the address)');
} else {
  try {
    const opened = window.open(target + '/oauth2/authorize?response_type=code&client_id=sandbox-inspector', '_blank');
    show('probe-popup', opened ? 'opened a window' : 'blocked (no window)');
  } catch (error) { show('probe-popup', 'blocked (' + error.name + ')'); }
  if (window.top === window) show('probe-top', 'not tried (this page is the top window)');
  else {
    try { window.top.location.href = target + '/?from=sandbox-inspector'; show('probe-top', 'no error (the top window may be leaving)'); }
    catch (error) { show('probe-top', 'blocked (' + error.name + ')'); }
  }
  fetch(target + '/api/v1/auth/me', { credentials: 'include' })
    .then((response) => response.text().then((text) => show('probe-site', 'read (HTTP ' + response.status + '): ' + text.slice(0, 200))))
    .catch((error) => show('probe-site', 'blocked (' + error.name + ')'));
  try {
    const form = document.createElement('form');
    form.method = 'post';
    form.action = target + '/api/v1/spaces/sandbox-inspector-form';
    const field = document.createElement('input');
    field.type = 'hidden';
    field.name = 'typed';
    field.value = 'what a visitor typed';
    form.append(field);
    document.body.append(form);
    form.submit();
    setTimeout(() => show('probe-form', 'blocked (still on this page)'), 500);
  } catch (error) { show('probe-form', 'blocked (' + error.name + ')'); }
}`,
};
