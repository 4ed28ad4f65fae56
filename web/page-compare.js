// Compare: base vs target run: group aggregates, changed cases, and a base vs target speedup scatter.
import { API, api, runsBrief } from './api.js';
import { scatter } from './charts.js';
import { day, el, notice, num, select, table, td, uniq } from './dom.js';
import { link, navigate, update } from './hash.js';

const RED = '#c62828', GREEN = '#2e7d32', GREY = '#90a4ae';
const isRegression = (c) => /regression|red/.test(c.verdict);
const ms = (v) => (v === null || v === undefined ? '?' : Number(v).toFixed(1));
const ratio = (base, target) => (base > 0 && target > 0 ? base / target : null);

// A speedup (eager / compiled) that went up because eager got slower is no improvement: the compiled path did not get
// faster, and may have got slower. The server's verdict already says so (eager_slower is a worse change,
// docs/verdicts.md); this note says why the speedup rose. Uses the case's latencies; where the API leaves them out,
// the eager ratio (base / target eager latency) alone.
export function speedupNote(c, thresholds) {
  if (!(c.base_speedup > 0 && c.target_speedup > c.base_speedup)) return null;
  const eagerRatio = c.eager_ratio ?? ratio(c.base_eager_ms, c.target_eager_ms);
  if (eagerRatio === null || eagerRatio === undefined || !(eagerRatio < thresholds.regression)) return null;
  const latencies = c.base_eager_ms !== undefined || c.base_compiled_ms !== undefined
    ? `eager ${ms(c.base_eager_ms)}→${ms(c.target_eager_ms)} ms, inductor ${ms(c.base_compiled_ms)}→${ms(c.target_compiled_ms)} ms`
    : `eager ratio ${eagerRatio.toFixed(3)}, inductor ratio ${c.inductor_ratio === null || c.inductor_ratio === undefined ? '?' : c.inductor_ratio.toFixed(3)}`;
  return `speedup up because eager slowed: ${latencies}`;
}

function compareForm(runs, base, target) {
  const baseInput = el('select', { name: 'base', 'aria-label': 'base' },
    el('option', { value: 'previous', selected: base === 'previous' }, 'previous run of the target\'s platform'),
    el('optgroup', { label: 'tags' }, runs.tags.map((t) => el('option', { value: t, selected: base === t }, `tag: ${t}`))),
    el('optgroup', { label: 'runs' }, runs.runs.map((r) => el('option', { value: r.key, selected: base === r.key }, `${r.key} (${day(r.created_at)})`))));
  const targetInput = el('select', { name: 'target', 'aria-label': 'target' },
    runs.runs.map((r) => el('option', { value: r.key, selected: target === r.key }, `${r.key} (${day(r.created_at)})`)));
  return el('form', { class: 'filters', onsubmit: (e) => {
    e.preventDefault();
    update({ base: baseInput.value, target: targetInput.value });
  } },
  el('label', {}, 'base (run or tag)', baseInput), el('label', {}, 'target', targetInput),
  el('button', { type: 'submit', id: 'run-compare' }, 'Compare'));
}

function groupsSection(view, ag, thresholds) {
  const groupRow = (name, g) => el('tr', {}, td(name), el('td', { class: 'num', text: g.compared }),
    num(g.base.geomean_speedup.unclipped_hud), num(g.target.geomean_speedup.unclipped_hud),
    num(g.base.geomean_speedup.clipped_at_1_runner), num(g.target.geomean_speedup.clipped_at_1_runner),
    num(g.geomean_inductor_ratio, 3, g.geomean_inductor_ratio < thresholds.regression ? 'bad' : ''),
    num(g.geomean_eager_ratio, 3, g.geomean_eager_ratio < thresholds.regression ? 'bad' : ''),
    el('td', { class: 'num', text: g.verdicts.regression }), el('td', { class: 'num', text: g.verdicts.improvement }),
    el('td', { class: 'num', text: g.verdicts.new_failed }));
  const headers = ['group', { label: 'compared', num: true }, { label: 'base HUD', num: true }, { label: 'target HUD', num: true },
    { label: 'base runner.py', num: true }, { label: 'target runner.py', num: true }, { label: 'inductor ratio', num: true },
    { label: 'eager ratio', num: true }, { label: 'regressions', num: true }, { label: 'improvements', num: true }, { label: 'new failed', num: true }];
  const groups = [groupRow('overall', ag.overall), ...Object.entries(ag.by_suite).map(([s, g]) => groupRow(s, g))];
  view.appendChild(el('h2', { text: 'Groups' }));
  view.appendChild(table(headers, groups, { className: 'groups-table' }));
  view.appendChild(el('details', {}, el('summary', { text: 'by suite × dtype × mode (groups sharing an axis)' }),
    table(headers, ag.by_suite_dtype_mode.map((g) => groupRow(`${g.suite} ${g.dtype} ${g.mode}`, g)))));
}

function caseFilters(data, { base, target, verdict, suite }) {
  const q = `base=${encodeURIComponent(base)}&target=${encodeURIComponent(target)}`;
  return el('div', { class: 'filters' },
    select('verdict', 'verdict', [{ value: 'changed', label: 'changed (not unchanged)' }, { value: 'regression', label: 'regressions' },
      { value: 'improvement', label: 'improvements' }, { value: 'all', label: 'all' }], verdict, (v) => update({ verdict: v })),
    select('suite', 'suite', ['', ...uniq(data.cases.map((c) => c.suite))], suite, (v) => update({ suite: v })),
    el('span', { class: 'links' },
      el('a', { href: `${API}/compare?${q}&format=csv`, text: 'CSV' }),
      el('a', { href: `${API}/compare?${q}&format=md`, text: 'markdown' })));
}

// Colours follow the server's verdict and nothing else, as the reports and tracking issues do.
const verdictClass = (c) => (isRegression(c) ? 'bad' : c.verdict === 'improvement' ? 'good' : '');

function verdictCell(c, note) {
  const text = c.severity ? `${c.verdict} (${c.severity})` : c.verdict;
  const cls = verdictClass(c);
  return td([el('span', { class: `pill ${cls}`, text }), note ? el('div', { class: 'speedup-note', text: note }) : null]);
}

function caseRow(c, data, caseHref) {
  const note = speedupNote(c, data.thresholds);
  const reg = data.thresholds.regression;
  return el('tr', { class: [isRegression(c) ? 'bad' : '', note ? 'mixed' : ''].join(' ').trim(), 'data-model': c.model },
    td(c.suite), td(c.dtype), td(c.mode), td(el('a', { href: caseHref(c), text: c.model })),
    num(c.base_speedup), num(c.target_speedup, 3, 'speed'),
    num(c.inductor_ratio, 3, c.inductor_ratio < reg ? 'bad' : ''), num(c.eager_ratio, 3, c.eager_ratio < reg ? 'bad' : ''),
    td((c.moved || []).join(', ')), verdictCell(c, note), td(c.status_change || ''));
}

function shownCases(cases, verdict, suite) {
  const keep = (c) => verdict === 'all' ||
    (verdict === 'changed' ? c.verdict !== 'unchanged' : c.verdict === verdict || (verdict === 'regression' && c.verdict === 'red'));
  const shown = cases.filter((c) => (!suite || c.suite === suite) && keep(c));
  const sevRank = (c) => (c.verdict === 'red' || c.severity === 'red' ? 0 : c.verdict === 'regression' ? 1 : 2);
  return shown.sort((a, b) => sevRank(a) - sevRank(b) || (a.speedup_ratio ?? 9) - (b.speedup_ratio ?? 9));
}

function speedupScatter(data, caseParams) {
  const points = data.cases.filter((c) => c.base_speedup > 0 && c.target_speedup > 0).map((c) => {
    const note = speedupNote(c, data.thresholds);
    return { x: c.base_speedup, y: c.target_speedup, r: /unchanged/.test(c.verdict) ? 2.5 : 4,
      color: isRegression(c) ? RED : c.verdict === 'improvement' ? GREEN : GREY,
      onclick: () => navigate('case', caseParams(c)),
      title: `${c.suite} ${c.dtype} ${c.mode} ${c.model}: ${c.base_speedup.toFixed(3)} → ${c.target_speedup.toFixed(3)} (${c.verdict})${note ? '; ' + note : ''}` };
  });
  return scatter(points, { label: 'base speedup vs target speedup per case', xLabel: 'base speedup', yLabel: 'target speedup',
    legend: [[RED, 'regression'], [GREEN, 'improvement'], [GREY, 'unchanged'],
      [null, 'below the diagonal: target slower']] });
}

export async function comparePage(view, params) {
  view.appendChild(el('h1', { text: 'Compare' }));
  const runs = await runsBrief();
  const target = params.get('target') || (runs.runs[0] && runs.runs[0].key) || '';
  const base = params.get('base') || 'previous';
  const verdict = params.get('verdict') || 'changed';
  const suite = params.get('suite') || '';
  view.appendChild(compareForm(runs, base, target));
  if (!target) { view.appendChild(notice('No runs yet.')); return; }

  const data = await api(`/compare?base=${encodeURIComponent(base)}&target=${encodeURIComponent(target)}`);
  view.appendChild(el('p', {}, 'Base ', el('a', { class: 'mono', href: link('run', { run: data.base }), text: data.base }),
    ' → target ', el('a', { class: 'mono', href: link('run', { run: data.target }), text: data.target }),
    el('span', { class: 'muted', text: ` · ratio = base latency / target latency per path (< 1: target slower); a regression when anything got worse: now slower than eager, the speedup or a path below ${data.thresholds.regression} (red below ${data.thresholds.red}), compile time below ${data.thresholds.compile_regression}, memory compression below ${data.thresholds.memory_regression}; an improvement only when nothing did (docs/verdicts.md)` })));
  groupsSection(view, data.aggregates, data.thresholds);
  view.appendChild(caseFilters(data, { base, target, verdict, suite }));

  const platform = (runs.runs.find((r) => r.key === data.target) || {}).platform || '';
  const caseParams = (c) => ({ platform, suite: c.suite, model: c.model, dtype: c.dtype, mode: c.mode, run: data.target });
  const shown = shownCases(data.cases, verdict, suite);
  view.appendChild(el('div', {},
    el('section', {}, el('h2', { text: `Cases (${shown.length} of ${data.cases.length})` }),
      el('div', { class: 'scroll' }, table(['suite', 'dtype', 'mode', 'model', { label: 'base speedup', num: true }, { label: 'target speedup', num: true },
        { label: 'inductor ratio', num: true }, { label: 'eager ratio', num: true }, 'moved', 'verdict', 'status'],
      shown.slice(0, 1000).map((c) => caseRow(c, data, (x) => link('case', caseParams(x)))),
      { empty: 'no case with this verdict', className: 'compare-table' }))),
    el('section', {}, el('h2', { text: 'Speedup: base vs target' }), speedupScatter(data, caseParams))));
}
