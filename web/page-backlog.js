// Backlog: open slower-than-eager cases per platform with their open issues; compile-time and memory regressions
// between the platform's two newest runs.
import { api, runsBrief } from './api.js';
import { el, notice, num, select, table, td } from './dom.js';
import { link, update } from './hash.js';

// owner/repo#N (a person's reference or the tracker issue that acknowledged the case) as a link to the issue.
function issueLink(ref) {
  const m = /^([\w.-]+\/[\w.-]+)#(\d+)$/.exec(ref);
  return m ? el('a', { class: 'issue-link', href: `https://github.com/${m[1]}/issues/${m[2]}`, text: ref }) : ref;
}

// The open tracker issues whose extracted cases name this case, each a link to the issue.
const issueCell = (issues) => el('td', { class: 'case-issues' },
  ...(issues || []).flatMap((i, n) => [n ? ' ' : '', el('a', { class: 'issue-link', href: i.url, title: i.title, text: `#${i.number}` })]));

const runLink = (run) => el('a', { href: link('run', { run }), text: run });
const statusPill = (status) =>
  el('span', { class: `pill ${status === 'open' ? 'bad' : status === 'fixed' ? 'good' : 'warn'}`, text: status });

function backlogRow(c, platform) {
  return el('tr', { class: c.status === 'open' ? 'bad' : '' }, td(c.suite), td(c.dtype), td(c.mode),
    td(el('a', { href: link('case', { platform, suite: c.suite, model: c.model, dtype: c.dtype, mode: c.mode, run: c.latest_run }), text: c.model })),
    td(statusPill(c.status)), td(runLink(c.first_seen)), td(runLink(c.last_seen)), td(c.fixed_in ? runLink(c.fixed_in) : ''),
    el('td', { class: 'num speed', text: c.latest_speedup || '' }), num(c.worst_speedup), el('td', { class: 'num', text: c.runs_slow }),
    td(c.triage ? el('span', {}, el('span', { class: 'pill', title: c.triage.reason || c.triage.issue || '', text: c.triage.state }),
      c.triage.issue ? ' ' : '', c.triage.issue ? issueLink(c.triage.issue) : '') : ''), issueCell(c.issues));
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
    { label: 'worst', num: true }, { label: 'runs slow', num: true }, 'triage', 'issues'];
  view.appendChild(table(headers, rows.filter((c) => !known(c)).map((c) => backlogRow(c, platform)),
    { empty: `no ${status === 'all' ? '' : status + ' '}case`, className: 'backlog-table' }));
  const apart = rows.filter(known);
  if (apart.length) {
    view.appendChild(el('h2', { text: 'Known limitations (expected, wontfix)' }));
    view.appendChild(table(headers, apart.map((c) => backlogRow(c, platform)), { className: 'known-table' }));
  }
  latestRegressions(view, d.latest_regressions, platform);
}

// Compile time and memory are judged between two runs, not against speedup < 1: the ones of the two newest runs.
function latestRegressions(view, latest, platform) {
  if (!latest) return;
  const caseLink = (c) => el('a', { href: link('case', { platform, suite: c.suite, model: c.model, dtype: c.dtype, mode: c.mode }), text: c.model });
  const section = (title, list, base, target, ratio, className) => {
    view.appendChild(el('h2', { text: `${title}, ${latest.base_run} → ${latest.target_run}` }));
    view.appendChild(table(['suite', 'dtype', 'mode', 'model', { label: latest.base_run, num: true }, { label: latest.target_run, num: true },
      { label: 'ratio', num: true }, 'issues'], list.map((c) => el('tr', {}, td(c.suite), td(c.dtype), td(c.mode), td(caseLink(c)),
      num(c[base]), num(c[target]), num(c[ratio]), issueCell(c.issues))), { empty: 'none', className }));
  };
  section(`Compile-time regressions (compiles slower: ratio < ${latest.compile_regression})`, latest.compile_time,
    'base_compilation_s', 'target_compilation_s', 'compile_ratio', 'compile-regressions');
  section(`Memory regressions (compression ratio down: ratio < ${latest.memory_regression})`, latest.memory,
    'base_compression_ratio', 'target_compression_ratio', 'memory_ratio', 'memory-regressions');
}
