// Backlog: open slower-than-eager cases per platform.
import { api, runsBrief } from './api.js';
import { el, notice, num, select, table, td } from './dom.js';
import { link, update } from './hash.js';

// owner/repo#N (a person's reference or the tracker issue that acknowledged the case) as a link to the issue.
function issueLink(ref) {
  const m = /^([\w.-]+\/[\w.-]+)#(\d+)$/.exec(ref);
  return m ? el('a', { class: 'issue-link', href: `https://github.com/${m[1]}/issues/${m[2]}`, text: ref }) : ref;
}

const runLink = (run) => el('a', { href: link('run', { run }), text: run });
const statusPill = (status) =>
  el('span', { class: `pill ${status === 'open' ? 'bad' : status === 'fixed' ? 'good' : 'warn'}`, text: status });

function backlogRow(c, platform) {
  return el('tr', { class: c.status === 'open' ? 'bad' : '' }, td(c.suite), td(c.dtype), td(c.mode),
    td(el('a', { href: link('case', { platform, suite: c.suite, model: c.model, dtype: c.dtype, mode: c.mode, run: c.latest_run }), text: c.model })),
    td(statusPill(c.status)), td(runLink(c.first_seen)), td(runLink(c.last_seen)), td(c.fixed_in ? runLink(c.fixed_in) : ''),
    el('td', { class: 'num speed', text: c.latest_speedup || '' }), num(c.worst_speedup), el('td', { class: 'num', text: c.runs_slow }),
    td(c.triage ? el('span', {}, el('span', { class: 'pill', title: c.triage.reason || c.triage.issue || '', text: c.triage.state }),
      c.triage.issue ? ' ' : '', c.triage.issue ? issueLink(c.triage.issue) : '') : ''));
}

// expected / wontfix: decided, listed apart, never counted as work to do.
const known = (c) => c.triage && (c.triage.state === 'expected' || c.triage.state === 'wontfix');

export async function backlogPage(view, params) {
  view.appendChild(el('h1', { text: 'Backlog' }));
  const runs = await runsBrief();
  const platform = params.get('platform') || runs.platforms[0] || '';
  const status = params.get('status') || 'open';
  const suite = params.get('suite') || '';
  view.appendChild(el('div', { class: 'filters' },
    select('platform', 'platform', runs.platforms, platform, (v) => update({ platform: v })),
    select('status', 'status', ['open', 'fixed', 'failing', 'all'].map((s) => ({ value: s, label: s })),
      status, (v) => update({ status: v })),
    select('suite', 'suite', ['', 'huggingface', 'timm_models', 'torchbench'], suite, (v) => update({ suite: v }))));
  if (!platform) { view.appendChild(notice('No runs yet.')); return; }
  const d = await api(`/backlog?platform=${encodeURIComponent(platform)}`);
  view.appendChild(el('p', {}, el('span', { class: 'pill bad', text: `${d.open} open` }), el('span', { class: 'pill good', text: `${d.fixed} fixed` }),
    el('span', { class: 'pill warn', text: `${d.failing} failing` }), el('span', { class: 'muted', text: ` over ${d.runs} runs of ${platform}; slow = 0 < speedup < ${d.threshold}` })));
  const rows = d.cases.filter((c) => (status === 'all' || c.status === status) && (!suite || c.suite === suite));
  const headers = ['suite', 'dtype', 'mode', 'model', 'status', 'first seen', 'last seen', 'fixed in', { label: 'latest speedup', num: true },
    { label: 'worst', num: true }, { label: 'runs slow', num: true }, 'triage'];
  view.appendChild(table(headers, rows.filter((c) => !known(c)).map((c) => backlogRow(c, platform)),
    { empty: `no ${status === 'all' ? '' : status + ' '}case`, className: 'backlog-table' }));
  const apart = rows.filter(known);
  if (apart.length) {
    view.appendChild(el('h2', { text: 'Known limitations (expected, wontfix)' }));
    view.appendChild(table(headers, apart.map((c) => backlogRow(c, platform)), { className: 'known-table' }));
  }
}
