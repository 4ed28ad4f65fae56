// Issues: what maintainers kept of the bot's labels, the issues the bot labeled (axes with reasons) and its outbox. The
// outbox needs a token with scope bot; each section shows its own error, so a missing token does not hide the others.
import { api, errorBox, labelFeedback } from './api.js';
import { day, el, pct, select, table, td } from './dom.js';
import { update } from './hash.js';

// An axis value as a label: "module: inductor" for axis module and value "inductor" — and for value
// "module: inductor", which already carries its axis prefix (labels are written that way), not "module: module: ...".
export function axisLabel(axis, value) {
  const v = String(value ?? '');
  const prefix = `${axis}:`;
  return v.toLowerCase().startsWith(prefix.toLowerCase()) ? v : `${axis}: ${v}`;
}

function issueRow(i) {
  const axes = i.axes && i.axes.length ? i.axes : (i.result && i.result.axes) || [];
  return el('tr', { class: 'issue-row' },
    td(el('a', { href: `https://github.com/${i.repo}/issues/${i.number}`, text: `#${i.number}` })),
    td(el('span', { class: 'issue-title', text: i.title })),
    td(el('ul', {}, axes.map((a) =>
      el('li', {}, el('b', { text: axisLabel(a.axis, a.value) }), el('span', { class: 'muted', text: ` — ${a.layer && a.layer !== 'rules' ? `[${a.layer}] ` : ''}${a.reason}` }))))),
    td((i.labels || []).map((l) => el('span', { class: 'pill', text: l }))), td(day(i.updated_at)));
}

// A label the maintainers mostly removed is the labeler's to fix: its kept share is marked below one half.
function feedbackRow(f) {
  const share = f.precision_kept;
  const cell = (v) => el('td', { class: 'num', text: v });
  return el('tr', { class: 'feedback-row' }, td(f.repo), td(el('span', { class: 'pill', text: f.label })),
    td(f.axis ?? '', 'muted'), cell(f.applied), cell(f.kept), cell(f.removed), cell(f.added),
    cell(f.suggested_then_added),
    el('td', { class: `num share ${share === null ? 'muted' : share < 0.5 ? 'bad' : ''}`, text: pct(share, 0) }));
}

function feedbackSection(view, fb) {
  const t = fb.totals;
  view.appendChild(el('p', { class: 'muted', text: t.applied || t.added
    ? `Of ${t.applied} labels the bot applied, maintainers kept ${t.kept} (${pct(t.precision_kept, 0)}) and removed ${t.removed}; they added ${t.added} by hand that the labeler could have given (${t.suggested_then_added} of them it had suggested).`
    : 'Nothing to count yet: the bot counts what maintainers do to its labels once it has applied some.' }));
  view.appendChild(table(['repository', 'label', 'axis', { label: 'applied', num: true }, { label: 'kept', num: true },
    { label: 'removed', num: true }, { label: 'added by hand', num: true, title: 'added by a maintainer where the bot had not applied it' },
    { label: 'of which suggested', num: true, title: 'the labeler had suggested it on that issue' },
    { label: 'kept share', num: true, title: 'kept / applied' }],
  fb.labels.map(feedbackRow), { empty: 'no label applied or added yet', className: 'feedback-table' }));
  // The labelers serve retrained from these corrections ([github] retrain_corrections).
  for (const m of fb.models || []) {
    view.appendChild(el('p', { class: 'muted retrained', text: `${m.repo}: labeler retrained ${day(m.trained_at)} from ${m.issues} issues and ${m.corrections} corrections; ${m.corrections_since} corrections since.` }));
  }
}

const statePill = (state) => el('span', {
  class: `pill ${state === 'failed' ? 'bad' : state === 'sent' ? 'good' : state === 'pending' ? 'warn' : ''}`, text: state });

function outboxRow(a) {
  return el('tr', { class: a.state === 'failed' ? 'bad' : '' }, el('td', { class: 'num', text: a.id }),
    td(a.issue_number ? `${a.repo}#${a.issue_number}` : a.repo), td(a.kind), td(statePill(a.state)),
    el('td', { class: 'num', text: a.attempts }), td(a.last_error || ''), td(day(a.created_at)),
    td(el('details', {}, el('summary', { text: 'payload' }), el('pre', { class: 'md', text: JSON.stringify(a.payload, null, 2) }))));
}

function outboxSection(view, o, state) {
  const states = ['pending', 'sent', 'failed', 'dry_run'].map((s) => ({ value: s, label: `${s} (${o.counts[s] ?? 0})` }));
  view.appendChild(el('div', { class: 'filters' },
    select('state', 'state', [{ value: '', label: 'all' }, ...states], state, (v) => update({ state: v })),
    el('span', { class: 'muted', text: o.dry_run ? 'dry run: no GitHub token, actions are recorded and not sent' : 'live: actions are sent to GitHub' })));
  view.appendChild(table(['id', 'issue', 'kind', 'state', { label: 'attempts', num: true }, 'last error', 'created', 'payload'],
    o.actions.map(outboxRow), { empty: 'no action', className: 'outbox-table' }));
}

export async function issuesPage(view, params) {
  view.appendChild(el('h1', { text: 'Issues' }));
  const state = params.get('state') || '';
  const [fb, iss, out] = await Promise.allSettled([labelFeedback(), api('/issues'),
    api(`/outbox${state ? '?state=' + encodeURIComponent(state) : ''}`)]);
  view.appendChild(el('h2', { text: 'What maintainers kept' }));
  if (fb.status === 'rejected') view.appendChild(errorBox(fb.reason));
  else feedbackSection(view, fb.value);
  view.appendChild(el('h2', { text: 'Labeled issues' }));
  if (iss.status === 'rejected') view.appendChild(errorBox(iss.reason));
  else view.appendChild(table(['issue', 'title', 'axes (value: reason)', 'labels', 'updated'], iss.value.issues.map(issueRow),
    { empty: 'no labeled issue yet', className: 'issues-table' }));
  view.appendChild(el('h2', { text: 'Bot outbox' }));
  if (out.status === 'rejected') view.appendChild(errorBox(out.reason));
  else outboxSection(view, out.value, state);
}
