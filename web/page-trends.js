// Trends: PyTorch HUD's four compiler metrics (pass rate, geomean speedup, mean compilation time, peak-memory
// compression ratio) per suite for one dtype × mode, over the last runs of one or more platforms side by side
// (GET /api/v1/trends). Every point names its run and links to it.
import { api, runsBrief } from './api.js';
import { lineChart } from './charts.js';
import { day, el, fmt, notice, pct, select } from './dom.js';
import { link, navigate, update } from './hash.js';

const COLORS = ['#1f4e79', '#c62828', '#2e7d32', '#6a1b9a', '#ef6c00', '#00838f'];
export const METRICS = [
  { key: 'pass_rate', label: 'pass rate (%)', format: (v) => pct(v), scale: 100, bounds: [0, 100] },
  { key: 'geomean_speedup', label: 'geomean speedup (×)', format: (v) => fmt(v), refLine: 1 },
  { key: 'mean_compilation_s', label: 'mean compilation time (s)', format: (v) => fmt(v, 1) },
  { key: 'geomean_compression_ratio', label: 'peak memory compression (×)', format: (v) => fmt(v, 2), refLine: 1 },
];

const uniqSorted = (values) => [...new Set(values)].sort();

// One time axis for every platform: the instants any of them ran, in order (labelled by day). Each run has its own
// slot, so two runs of a day are both drawn; a platform's line joins its own runs across the others' slots.
function timeAxis(trends) {
  return uniqSorted(trends.flatMap((t) => t.runs.map((r) => r.created_at)));
}

function pointsByTime(t, group) {
  const created = new Map(t.runs.map((r) => [r.key, r.created_at]));
  const out = new Map();
  for (const p of group ? group.points : []) out.set(created.get(p.run), p);
  return out;
}

function metricChart(metric, times, trends, suite, dtype, mode) {
  const days = times.map(day);
  const labels = days.map((d) => d.slice(5));  // MM-DD: four charts a row leave room for short labels only
  const series = trends.map((t, i) => {
    const group = t.groups.find((g) => g.suite === suite && g.dtype === dtype && g.mode === mode);
    const byTime = pointsByTime(t, group);
    const points = times.map((x) => byTime.get(x) || null);
    const value = (p) => (p && p[metric.key] !== null && p[metric.key] !== undefined ? p[metric.key] * (metric.scale || 1) : null);
    return {
      name: t.platform, color: COLORS[i % COLORS.length], values: points.map(value),
      titles: points.map((p, j) => (p ? `${t.platform} ${days[j]} (${p.run}): ${metric.format(p[metric.key])}; ${p.passing} of ${p.rows} passing` : null)),
      onclick: (j) => points[j] && navigate('run', { run: points[j].run }),
    };
  });
  if (!series.some((s) => s.values.some((v) => v !== null))) {
    return el('figure', { class: 'chart empty', 'data-metric': metric.key, 'data-suite': suite },
      el('figcaption', { class: 'muted', text: `${metric.label}: not measured by these runs` }));
  }
  const figure = lineChart(labels, series, { width: 320, height: 190, refLine: metric.refLine ?? null, yLabel: metric.label,
    connect: true, format: (v) => fmt(v, 2), bounds: metric.bounds || null });
  figure.dataset.metric = metric.key;
  figure.dataset.suite = suite;
  return figure;
}

function filters(platforms, chosen, dtypes, modes, params) {
  const boxes = platforms.map((p) => el('label', { class: 'check' },
    el('input', { type: 'checkbox', name: 'platform', value: p, checked: chosen.includes(p), onchange: (e) => {
      const next = e.target.checked ? [...chosen, p] : chosen.filter((x) => x !== p);
      update({ platforms: next.join(',') });
    } }), p));
  return el('div', { class: 'filters' }, el('span', { class: 'label', text: 'platforms' }), boxes,
    select('dtype', 'dtype', dtypes, params.dtype, (v) => update({ dtype: v })),
    select('mode', 'mode', modes, params.mode, (v) => update({ mode: v })),
    select('runs', 'runs', ['10', '30', '60', '120'], params.runs, (v) => update({ runs: v })));
}

export async function trendsPage(view, params) {
  view.appendChild(el('h1', { text: 'Trends' }));
  const brief = await runsBrief();
  if (!brief.platforms.length) {
    view.appendChild(notice('No runs yet. Upload results (POST /api/v1/uploads) or start with --demo.'));
    return;
  }
  const chosen = (params.get('platforms') || brief.platforms.slice(0, 2).join(',')).split(',').filter(Boolean);
  const runs = params.get('runs') || '30';
  const trends = await Promise.all(chosen.map((p) => api(`/trends?platform=${encodeURIComponent(p)}&runs=${encodeURIComponent(runs)}`)));
  const groups = trends.flatMap((t) => t.groups);
  const dtypes = uniqSorted(groups.map((g) => g.dtype)), modes = uniqSorted(groups.map((g) => g.mode));
  const dtype = params.get('dtype') || (dtypes.includes('bfloat16') ? 'bfloat16' : dtypes[0] || '');
  const mode = params.get('mode') || (modes.includes('inference') ? 'inference' : modes[0] || '');
  view.appendChild(filters(brief.platforms, chosen, dtypes, modes, { dtype, mode, runs }));
  view.appendChild(el('p', { class: 'muted', text: `${dtype} ${mode}, the last ${runs} runs of each platform on one time axis. ` +
    Object.entries(trends[0] ? trends[0].metrics : {}).map(([k, v]) => `${k}: ${v}`).join('. ') + '. Click a point for its run.' }));
  const times = timeAxis(trends);
  const suites = uniqSorted(groups.filter((g) => g.dtype === dtype && g.mode === mode).map((g) => g.suite));
  if (!suites.length) {
    view.appendChild(notice(`No ${dtype} ${mode} results on ${chosen.join(', ') || 'the chosen platforms'}.`));
    return;
  }
  for (const suite of suites) {
    view.appendChild(el('section', { class: 'trend-suite', 'data-suite': suite },
      el('h2', {}, suite, ' ', el('a', { class: 'muted', href: link('backlog', { platform: chosen[0] || '' }), text: 'backlog' })),
      el('div', { class: 'row trend-row' }, METRICS.map((m) => metricChart(m, times, trends, suite, dtype, mode)))));
  }
}
