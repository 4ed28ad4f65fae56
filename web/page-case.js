// Case: one model's history per dtype × mode, the findings and artifacts of one run, the issues that mention it.
import { API, api, errorBox, putJson, runsBrief } from './api.js';
import { lineChart } from './charts.js';
import { el, findingPill, fmt, notice, num, pct, table, td } from './dom.js';
import { link, navigate } from './hash.js';

const enc = encodeURIComponent;

function caseForm(platforms, c) {
  const inputs = {
    platform: el('select', { name: 'platform', 'aria-label': 'platform' },
      platforms.map((p) => el('option', { value: p, selected: p === c.platform }, p))),
    suite: el('input', { name: 'suite', value: c.suite, 'aria-label': 'suite', size: 14 }),
    model: el('input', { name: 'model', value: c.model, 'aria-label': 'model', size: 36 }),
    dtype: el('input', { name: 'dtype', value: c.dtype, 'aria-label': 'dtype', size: 10 }),
    mode: el('input', { name: 'mode', value: c.mode, 'aria-label': 'mode', size: 10 }),
  };
  return el('form', { class: 'filters', onsubmit: (e) => {
    e.preventDefault();
    navigate('case', Object.fromEntries(Object.entries(inputs).map(([k, input]) => [k, input.value])));
  } },
  Object.entries(inputs).map(([k, input]) => el('label', {}, k, input)), el('button', { type: 'submit' }, 'Show'));
}

const measured = (values) => values.some((v) => v !== null && v !== undefined);

// Speedup and latency always; compile time and peak-memory compression where the runs measured them.
function seriesCharts(s) {
  const labels = s.points.map((p) => p.run.replace(/^[a-z0-9]+-/, '').replace(/^nightly-\d{4}/, 'n-'));
  const ran = (key) => s.points.map((p) => (p.failed ? null : p[key] ?? null));
  const compile = ran('compilation_s'), memory = ran('compression_ratio');
  return el('div', { class: 'row' },
    lineChart(labels, [{ name: 'speedup', color: '#1f4e79', values: ran('speedup') }],
      { refLine: 1, yLabel: 'speedup' }),
    lineChart(labels, [
      { name: 'eager ms', color: '#ef6c00', values: s.points.map((p) => p.eager_ms) },
      { name: 'compiled ms', color: '#6a1b9a', values: s.points.map((p) => p.compiled_ms) }], { yLabel: 'latency (ms)' }),
    measured(compile) ? lineChart(labels, [{ name: 'compilation s', color: '#00838f', values: compile }],
      { yLabel: 'compile time (s)', format: (v) => fmt(v, 1) }) : null,
    measured(memory) ? lineChart(labels, [{ name: 'compression ratio', color: '#2e7d32', values: memory }],
      { refLine: 1, yLabel: 'peak memory compression (×)' }) : null);
}

function seriesSection(view, s, c) {
  view.appendChild(el('h3', {}, `${s.dtype} ${s.mode}${s.config ? ' [' + s.config + ']' : ''} · ${s.points.length} runs`,
    s.change_points.length ? el('span', { class: 'pill bad' }, `${s.change_points.length} change point(s)`) : null));
  view.appendChild(seriesCharts(s));
  if (s.change_points.length) {
    view.appendChild(table(['run', { label: 'before', num: true }, { label: 'after', num: true }, { label: 'change', num: true }, 'worse'],
      s.change_points.map((p) => el('tr', { class: p.worse ? 'bad' : '' }, td(p.run), num(p.before), num(p.after),
        el('td', { class: 'num', text: pct(p.relative_change) }), td(p.worse ? 'yes' : 'no')))));
  }
  view.appendChild(el('details', {}, el('summary', { text: 'points' }),
    table(['run', 'torch', { label: 'speedup', num: true }, { label: 'eager ms', num: true }, { label: 'compiled ms', num: true }, 'accuracy'],
      s.points.map((p) => el('tr', { class: p.speedup > 0 && p.speedup < 1 ? 'bad' : '' },
        td(el('a', { href: link('case', { ...c, dtype: s.dtype, mode: s.mode, run: p.run }), text: p.run })),
        td(p.torch_version), el('td', { class: 'num speed', text: p.failed ? 'failed' : (p.speedup_text || fmt(p.speedup)) }),
        num(p.eager_ms), num(p.compiled_ms), td(p.accuracy || ''))))));
}

function findingsTable(detail) {
  const findings = [];
  for (const a of detail.artifacts || []) for (const f of a.findings || []) findings.push({ a, f });
  for (const r of detail.rows || []) for (const f of r.findings || []) findings.push({ a: { name: `${r.kind} row`, id: null }, f });
  return table(['source', 'classifier', 'verdict', 'evidence'],
    findings.map(({ a, f }) => el('tr', {}, td(a.name), td(f.classifier), td(findingPill(f)), el('td', { class: 'evidence', text: f.evidence || '' }))),
    { empty: 'no finding', className: 'findings-table' });
}

function artifactsTable(detail) {
  return table(['artifact', 'role', 'kind', { label: 'size', num: true }, 'summary', 'download'],
    (detail.artifacts || []).map((a) => el('tr', {}, td(el('span', { class: 'artifact-name', text: a.name })), td(a.role), td(a.kind),
      el('td', { class: 'num', text: a.size }), td(typeof a.summary === 'string' ? a.summary : JSON.stringify(a.summary ?? '')),
      td(el('a', { href: `${API}/artifacts/${a.id}/raw`, text: 'raw' })))), { empty: 'no artifact attached', className: 'artifacts-table' });
}

// Findings and artifacts of one run: the one in the link, else the newest point of the first series.
async function runSection(view, c, run, series) {
  const dtype = c.dtype || (series[0] && series[0].dtype), mode = c.mode || (series[0] && series[0].mode);
  if (!run || !dtype || !mode) return;
  view.appendChild(el('h2', {}, 'Findings and artifacts in ', el('a', { class: 'mono', href: link('run', { run }), text: run })));
  try {
    const detail = await api(`/runs/${enc(run)}/cases/${enc(c.suite)}/${enc(dtype)}/${enc(mode)}/${enc(c.model)}`);
    const ex = detail.explanation || {};
    view.appendChild(el('p', { class: 'explanation' }, el('span', { class: `pill ${ex.verdict === 'explained' ? 'bad' : ''}`, text: ex.verdict || 'no explanation' }),
      ' ', ex.text || ''));
    view.appendChild(findingsTable(detail));
    view.appendChild(artifactsTable(detail));
  } catch (e) {
    view.appendChild(e.status === 404 ? notice(`No ${dtype} ${mode} row of this model in ${run}.`) : errorBox(e));
  }
}

// The open tracker issues whose extracted cases name this case (stored with each labeled issue, narrowed by the
// issue's hardware): the explain answer's `issues`, not a guess from titles.
function issuesSection(view, c, explained) {
  view.appendChild(el('h2', { text: 'Linked issues' }));
  if (!c.dtype || !c.mode) {
    view.appendChild(notice('Pick a dtype and a mode: issues name a case by suite, dtype, mode and model.'));
    return;
  }
  if (explained.error) {
    const e = explained.error;
    view.appendChild(e.status === 404 ? notice('No measurement of this case on this platform.') : errorBox(e));
    return;
  }
  const issues = explained.answer.issues || [];
  view.appendChild(table(['issue', 'title', 'hardware', 'speedup quoted'], issues.map((i) => el('tr', { class: 'linked-issue' },
    td(el('a', { href: i.url, text: i.ref })), td(i.title), td(i.platform || 'any'),
    td(i.speedup == null ? '' : String(i.speedup)))), { empty: 'no open tracker issue names this case' }));
}

const explainPath = (c) => ['platform', 'suite', 'dtype', 'mode', 'model'].map((k) => enc(c[k])).join('/');

// GET /explain/... once for the page: the explanation and the linked issues both read it.
async function fetchExplained(c) {
  try {
    return { answer: await api(`/explain/${explainPath(c)}`) };
  } catch (error) {
    return { error };
  }
}

// The case explained (GET /explain/...): the verdict, what to attach next, and its triage state with the history of
// it; a person with a `triage` token can decide the state here (PUT /triage/...).
function explainSection(view, c, explained) {
  const path = explainPath(c);
  view.appendChild(el('h2', { text: 'Explanation and triage' }));
  if (explained.error) {
    view.appendChild(errorBox(explained.error));
    return;
  }
  const e = explained.answer;
  view.appendChild(el('p', { class: 'verdict', text: e.verdict }));
  if (e.next.length) view.appendChild(el('ul', { class: 'next' }, ...e.next.map((n) => el('li', { text: n }))));
  if (!e.triage) {
    view.appendChild(notice('Never slower than eager on this platform: no triage state.'));
    return;
  }
  const t = e.triage;
  view.appendChild(el('p', {}, 'State ', el('span', { class: 'pill', text: t.state }), ` since ${t.since_run}`,
    t.issue ? ` — ${t.issue}` : '', t.reason ? ` (${t.reason})` : ''));
  view.appendChild(table(['when', 'who', 'from', 'to', 'issue', 'reason'], t.history.map((h) => el('tr', {},
    td(h.at), td(h.who), td(h.from), td(h.state), td(h.issue), td(h.reason))), { empty: 'no change recorded' }));
  const state = el('select', { name: 'state' }, ...['new', 'acknowledged', 'expected', 'wontfix'].map((s) =>
    el('option', { value: s, text: s })));
  const issue = el('input', { name: 'issue', placeholder: 'owner/repo#N', value: t.issue || '' });
  const reason = el('input', { name: 'reason', placeholder: 'reason (an expected case needs one)', value: t.reason || '' });
  const out = el('span', { class: 'form-status' });
  const form = el('form', { class: 'triage-form' }, state, issue, reason, el('button', { type: 'submit', text: 'Set state' }), out);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    try {
      const r = await putJson(`/triage/${path}`, { state: state.value, issue: issue.value, reason: reason.value });
      out.textContent = `now ${r.state}`;
    } catch (err) {
      out.textContent = err.message;
    }
  });
  view.appendChild(form);
}

export async function casePage(view, params) {
  const c = Object.fromEntries(['platform', 'suite', 'model', 'dtype', 'mode'].map((k) => [k, params.get(k) || '']));
  view.appendChild(el('h1', {}, 'Case ', el('span', { class: 'mono case-model', text: c.model || '(pick one)' })));
  view.appendChild(caseForm((await runsBrief()).platforms, c));
  if (!c.platform || !c.suite || !c.model) {
    view.appendChild(notice('Open a case from a Run, Compare or Backlog table, or fill platform, suite and model.'));
    return;
  }
  const q = new URLSearchParams({ platform: c.platform });
  if (c.dtype) q.set('dtype', c.dtype);
  if (c.mode) q.set('mode', c.mode);
  let series = [];
  try {
    series = (await api(`/cases/${enc(c.suite)}/${enc(c.model)}/history?${q}`)).series;
  } catch (e) {
    view.appendChild(errorBox(e));
  }
  view.appendChild(el('h2', { text: `History on ${c.platform}` }));
  for (const s of series) seriesSection(view, s, c);
  const newest = series.length ? series[0].points[series[0].points.length - 1] : null;
  const explained = c.dtype && c.mode ? await fetchExplained(c) : null;
  if (explained) explainSection(view, c, explained);
  await runSection(view, c, params.get('run') || (newest && newest.run), series);
  issuesSection(view, c, explained);
}
