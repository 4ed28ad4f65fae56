// Issues: the issues the bot labeled (axes with reasons) and its outbox. The outbox needs a token with scope bot; each
// section shows its own error, so a missing token does not hide the labeled issues.
import { api, errorBox } from './api.js';
import { day, el, select, table, td } from './dom.js';
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
  const [iss, out] = await Promise.allSettled([api('/issues'),
    api(`/outbox${state ? '?state=' + encodeURIComponent(state) : ''}`)]);
  view.appendChild(el('h2', { text: 'Labeled issues' }));
  if (iss.status === 'rejected') view.appendChild(errorBox(iss.reason));
  else view.appendChild(table(['issue', 'title', 'axes (value: reason)', 'labels', 'updated'], iss.value.issues.map(issueRow),
    { empty: 'no labeled issue yet', className: 'issues-table' }));
  view.appendChild(el('h2', { text: 'Bot outbox' }));
  if (out.status === 'rejected') view.appendChild(errorBox(out.reason));
  else outboxSection(view, out.value, state);
}
