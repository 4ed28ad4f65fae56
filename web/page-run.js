// Run: the suite × dtype × mode matrix, slow cases (with the markdown copy), failed and missing models.
import { API, api, runsBrief } from './api.js';
import { matrixChart } from './charts.js';
import { day, el, findingPill, fmt, notice, num, pct, select, table, td } from './dom.js';
import { link, update } from './hash.js';

async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

function filterBar(runs, key, matrix, filters) {
  const { suite, dtype, mode } = filters;
  const enc = encodeURIComponent(key);
  const rowsQuery = Object.entries(filters).map(([k, v]) => (v ? `&${k}=${encodeURIComponent(v)}` : '')).join('');
  return el('div', { class: 'filters' },
    select('run', 'run', runs.runs.map((r) => ({ value: r.key, label: `${r.key} (${r.platform}, ${day(r.created_at)})` })), key,
      (v) => update({ run: v })),
    select('suite', 'suite', ['', ...matrix.suites], suite, (v) => update({ suite: v })),
    select('dtype', 'dtype', ['', ...matrix.dtypes], dtype, (v) => update({ dtype: v })),
    select('mode', 'mode', ['', ...matrix.modes], mode, (v) => update({ mode: v })),
    el('span', { class: 'links' },
      el('a', { href: `${API}/slow?run=${enc}&format=csv`, text: 'slow CSV' }),
      el('a', { href: `${API}/slow?run=${enc}&format=json`, text: 'slow JSON' }),
      el('a', { href: `${API}/slow?run=${enc}&format=md`, text: 'slow markdown' }),
      el('a', { href: `${API}/results?run=${enc}${rowsQuery}`, text: 'rows JSON' }),
      el('a', { href: `${API}/runs/${enc}/report.md`, text: 'report.md' })));
}

function runSummary(run, key, s) {
  return el('p', { class: 'muted' },
    `${run.platform} · torch ${run.torch_version || '?'} · ${day(run.created_at)} · ${run.files ? run.files.length : 0} files · `,
    `geomean speedup HUD ${fmt(s.geomean_speedup_hud)} / runner.py ${fmt(s.geomean_speedup_runner)} · pass rate ${pct(s.pass_rate)} · `,
    `${s.slow} slow · ${s.failed} failed · ${s.accuracy_failed} accuracy failed`,
    run.previous_run ? [' · previous: ', el('a', { href: link('run', { run: run.previous_run }), text: run.previous_run }), ' ',
      el('a', { href: link('compare', { base: run.previous_run, target: key }), text: '(compare)' })] : '');
}

const caseHref = (run, key, r) => link('case', { platform: run.platform, suite: r.suite, model: r.model, dtype: r.dtype, mode: r.mode, run: key });

function slowSection(view, run, key, slow, keep) {
  const enc = encodeURIComponent(key);
  const slowRows = slow.cases.filter(keep);
  view.appendChild(el('h2', {}, `Slow cases (${slowRows.length}${slowRows.length !== slow.cases.length ? ' of ' + slow.cases.length : ''})`));
  const copyStatus = el('span', { class: 'muted copy-status', role: 'status' });
  const mdPre = el('pre', { class: 'md', hidden: true });
  view.appendChild(el('div', { class: 'filters' },
    el('button', { type: 'button', id: 'copy-md', onclick: async () => {
      const md = await api(`/slow?run=${enc}&format=md`, { text: true });
      mdPre.textContent = md;
      mdPre.hidden = false;
      copyStatus.textContent = (await copyText(md)) ? 'copied the markdown table' : 'copy refused by the browser: select the text below';
    } }, 'Copy as markdown'), copyStatus));
  view.appendChild(mdPre);
  view.appendChild(table(['suite', 'dtype', 'mode', 'model', { label: 'batch size', num: true }, { label: 'speedup', num: true }, 'findings'],
    slowRows.map((r) => el('tr', { class: 'bad' },
      td(r.suite), td(r.dtype), td(r.mode),
      td(el('a', { class: 'case-link', href: caseHref(run, key, r), text: r.model })),
      el('td', { class: 'num', text: r.batch_size }), el('td', { class: 'num speed', text: fmt(r.speedup, 6) }),
      td((r.findings || []).map((f) => findingPill(f))))), { empty: 'no slow case', className: 'slow-table' }));
}

function failedMissingSection(run, key, failed, keep) {
  const failedRows = failed.results.filter(keep);
  const missing = (run.missing || []).filter(keep);
  return el('div', { class: 'row' },
    el('section', {}, el('h2', { text: `Failed (${failedRows.length})` }),
      table(['suite', 'dtype', 'mode', 'kind', 'model', 'accuracy', { label: 'speedup', num: true }],
        failedRows.map((r) => el('tr', {}, td(r.suite), td(r.dtype), td(r.mode), td(r.kind),
          td(el('a', { href: caseHref(run, key, r), text: r.model })),
          td(r.accuracy || ''), num(r.speedup, 3))), { empty: 'no failed model', className: 'failed-table' })),
    el('section', {}, el('h2', { text: `Missing (${missing.length})` }),
      el('p', { class: 'muted', text: 'in the previous run (or the reference) but without a row here' }),
      table(['suite', 'dtype', 'mode', 'kind', 'model'],
        missing.map((m) => el('tr', {}, td(m.suite), td(m.dtype), td(m.mode), td(m.kind), td(m.model))),
        { empty: 'no missing model', className: 'missing-table' })));
}

export async function runPage(view, params) {
  const runs = await runsBrief();
  let key = params.get('run');
  if (!key && runs.runs.length) key = runs.runs[0].key;
  const filters = { suite: params.get('suite') || '', dtype: params.get('dtype') || '', mode: params.get('mode') || '' };
  view.appendChild(el('h1', {}, 'Run ', el('span', { class: 'mono', text: key || '' })));
  if (!key) { view.appendChild(notice('No runs yet.')); return; }
  const enc = encodeURIComponent(key);
  const [run, matrix, slow, failed] = await Promise.all([
    api(`/runs/${enc}`), api(`/dashboard/matrix?run=${enc}`), api(`/slow?run=${enc}`),
    api(`/results?run=${enc}&flag=failed&limit=500`)]);
  const keep = (r) => ['suite', 'dtype', 'mode'].every((k) => !filters[k] || r[k] === filters[k]);

  view.appendChild(filterBar(runs, key, matrix, filters));
  view.appendChild(runSummary(run, key, matrix.summary));
  view.appendChild(el('h2', { text: 'Geomean speedup by suite × dtype × mode (HUD, unclipped; red below 1)' }));
  view.appendChild(matrixChart(matrix, filters, (cell) => update(cell || { suite: '', dtype: '', mode: '' })));
  slowSection(view, run, key, slow, keep);
  view.appendChild(failedMissingSection(run, key, failed, keep));
}
