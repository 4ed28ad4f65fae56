// Hand-written SVG charts: sparkline, line chart, speedup matrix, scatter. Every chart has a viewBox and scales down to
// its container (CSS .chart-svg: width 100%, height from the viewBox, never wider than its natural size). Axis ticks
// are "nice" numbers: steps of 1, 2 or 5 × 10^k.
import { colorSwatch, day, el, fmt, svg } from './dom.js';

// An <svg> of a natural size width × height that shrinks with its container.
function chartSvg(width, height, attrs = {}) {
  const g = svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', ...attrs,
    class: `chart-svg${attrs.class ? ' ' + attrs.class : ''}` });
  g.style.maxWidth = `${width}px`;
  return g;
}

// The step of at most `count` intervals over `span`: 1, 2 or 5 × 10^k.
export function niceStep(span, count = 5) {
  const raw = span / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const m = raw / mag;
  return (m <= 1.000001 ? 1 : m <= 2.000001 ? 2 : m <= 5.000001 ? 5 : 10) * mag;
}

// Ticks covering [lo, hi]: { lo, hi } widened to whole steps, the step, the ticks and their decimals.
export function niceTicks(lo, hi, count = 5) {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) { lo = 0; hi = 1; }
  if (hi - lo < 1e-12) { const d = Math.abs(hi) * 0.05 || 0.5; lo -= d; hi += d; }
  const step = niceStep(hi - lo, count);
  const first = Math.floor(lo / step + 1e-9), last = Math.ceil(hi / step - 1e-9);
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  const ticks = [];
  for (let i = first; i <= last; i++) ticks.push(Number((i * step).toFixed(decimals)));
  return { lo: first * step, hi: last * step, step, decimals, ticks };
}

// Speedup colour: red below 1 (darker the slower), green above 1.
export function speedColor(v) {
  if (v === null || v === undefined) return '#cfd4da';
  if (v < 1) {
    const t = Math.min(1, (1 - v) / 0.4);
    return `rgb(${Math.round(245 - 40 * t)},${Math.round(170 - 120 * t)},${Math.round(160 - 115 * t)})`;
  }
  const t = Math.min(1, (v - 1) / 1.5);
  return `rgb(${Math.round(200 - 150 * t)},${Math.round(230 - 80 * t)},${Math.round(190 - 120 * t)})`;
}

const present = (v) => v !== null && v !== undefined;

export function sparkline(points, { width = 300, height = 46, key = 'geomean_speedup_hud' } = {}) {
  const vals = points.map((p) => p[key]).filter(present);
  const g = chartSvg(width, height, { 'aria-label': `${key} over the last ${points.length} runs` });
  if (!vals.length) return g;
  const lo = Math.min(...vals) * 0.97, hi = Math.max(...vals) * 1.03;
  const x = (i) => 4 + (i * (width - 8)) / Math.max(1, points.length - 1);
  const y = (v) => height - 4 - ((v - lo) / (hi - lo || 1)) * (height - 8);
  if (lo < 1 && hi > 1) g.appendChild(svg('line', { class: 'ref', x1: 0, x2: width, y1: y(1), y2: y(1) }));
  let d = '';
  points.forEach((p, i) => {
    if (present(p[key])) d += `${d ? 'L' : 'M'}${x(i).toFixed(1)},${y(p[key]).toFixed(1)}`;
  });
  g.appendChild(svg('path', { d, fill: 'none', stroke: '#1f4e79', 'stroke-width': 1.5 }));
  points.forEach((p, i) => {
    if (!present(p[key])) return;
    g.appendChild(svg('circle', { cx: x(i), cy: y(p[key]), r: i === points.length - 1 ? 3 : 1.8,
      fill: p[key] < 1 ? '#c62828' : '#1f4e79' }, svg('title', { text: `${p.run} (${day(p.created_at)}): ${fmt(p[key])}` })));
  });
  return g;
}

// The run labels under a line chart: about five, the first and the last; a label that would run into the last one
// (estimated at 6.5 units a character) is left out.
function xLabels(g, labels, x, y) {
  const every = Math.max(1, Math.ceil(labels.length / 5));
  const last = labels.length - 1;
  const width = (i) => 6.5 * String(labels[i]).length;
  labels.forEach((l, i) => {
    if (i !== last && (i % every || (i > 0 && x(i) + width(i) / 2 + 8 > x(last) - width(last)))) return;
    const anchor = labels.length > 1 && i === 0 ? 'start' : i === last && last > 0 ? 'end' : 'middle';
    g.appendChild(svg('text', { x: x(i), y, 'text-anchor': anchor, text: l }));
  });
}

// Horizontal grid lines and their labels at the nice ticks of a y axis.
function yGrid(g, ticks, y, x1, x2) {
  for (const v of ticks.ticks) {
    g.appendChild(svg('line', { class: 'grid', x1, x2, y1: y(v), y2: y(v) }));
    g.appendChild(svg('text', { class: 'tick', 'data-axis': 'y', x: x1 - 6, y: y(v) + 4, 'text-anchor': 'end',
      text: v.toFixed(ticks.decimals) }));
  }
}

// A gap (null) breaks the line, unless `connect`: then the line joins the points on either side (series sampled on
// another series' x, such as two platforms' runs on one date axis).
function seriesPath(s, x, y, connect) {
  let d = '';
  s.values.forEach((v, i) => {
    if (!present(v)) { if (!connect) d += ' '; return; }
    d += `${d && !d.endsWith(' ') ? 'L' : 'M'}${x(i).toFixed(1)},${y(v).toFixed(1)}`;
  });
  return svg('path', { d: d.trim(), fill: 'none', stroke: s.color, 'stroke-width': 1.8 });
}

// The y range with a margin (no point on the frame); a quantity that cannot be negative (every value >= 0: latency,
// seconds, a rate) never gets an axis below zero.
// A bounded quantity (a percentage) keeps its axis within `bounds` [min, max].
function yTicks(all, refLine, bounds) {
  const lo = Math.min(...all, refLine ?? Infinity), hi = Math.max(...all, refLine ?? -Infinity);
  const margin = (hi - lo) * 0.04;
  let floor = lo >= 0 ? Math.max(0, lo - margin) : lo - margin;
  let ceil = hi + margin;
  if (bounds) {
    floor = Math.max(bounds[0], floor);
    ceil = Math.min(bounds[1], ceil);
    if (ceil - floor < 1e-12) floor = Math.max(bounds[0], ceil - (bounds[1] - bounds[0]) * 0.05);
  }
  const ticks = niceTicks(floor, ceil, 5);
  if (bounds && ticks.hi > bounds[1]) {  // the nice step overshot the bound: drop the ticks past it
    ticks.ticks = ticks.ticks.filter((t) => t <= bounds[1] + 1e-9);
    ticks.hi = bounds[1];
  }
  return ticks;
}

// Line chart of several series over the same x (run index). series: [{name, color, values: [number|null],
// titles?: [string], onclick?: (i) => void}]; a point's hover text is titles[i], else "name label: value".
export function lineChart(labels, series, { width = 640, height = 220, refLine = null, yLabel = '', connect = false,
  format = fmt, bounds = null } = {}) {
  const all = series.flatMap((s) => s.values).filter(present);
  const g = chartSvg(width, height, { 'aria-label': yLabel });
  const figure = el('figure', { class: 'chart' }, g,
    el('figcaption', { class: 'legend' }, series.map((s) => el('span', {}, colorSwatch(s.color), s.name))));
  if (!all.length) return figure;
  const pad = { l: 52, r: 10, t: 10, b: 34 };
  const ticks = yTicks(all, refLine, bounds);
  const x = (i) => pad.l + (i * (width - pad.l - pad.r)) / Math.max(1, labels.length - 1);
  const y = (v) => height - pad.b - ((v - ticks.lo) / (ticks.hi - ticks.lo)) * (height - pad.t - pad.b);
  yGrid(g, ticks, y, pad.l, width - pad.r);
  g.appendChild(svg('text', { x: 12, y: pad.t + 4, transform: `rotate(-90 12 ${pad.t + 4})`, 'text-anchor': 'end', text: yLabel }));
  xLabels(g, labels, x, height - pad.b + 14);
  if (refLine !== null) g.appendChild(svg('line', { class: 'ref', x1: pad.l, x2: width - pad.r, y1: y(refLine), y2: y(refLine) }));
  for (const s of series) {
    g.appendChild(seriesPath(s, x, y, connect));
    s.values.forEach((v, i) => {
      if (!present(v)) return;
      const text = s.titles && s.titles[i] ? s.titles[i] : `${s.name} ${labels[i]}: ${format(v)}`;
      g.appendChild(svg('circle', { cx: x(i), cy: y(v), r: 2.5, fill: s.color, 'data-value': v,
        class: s.onclick ? 'point link' : 'point', onclick: s.onclick ? () => s.onclick(i) : null }, svg('title', { text })));
    });
  }
  return figure;
}

function matrixCell(c, pos, sel, onPick) {
  const v = c.cell ? c.cell.geomean_speedup_hud : null;
  const m = c.cell;
  return svg('g', { class: 'cell-g', 'data-suite': c.suite, 'data-dtype': c.dtype, 'data-mode': c.mode, 'data-value': v ?? '',
    onclick: () => onPick(sel ? null : { suite: c.suite, dtype: c.dtype, mode: c.mode }) },
  svg('rect', { class: `cell${sel ? ' selected' : ''}`, x: pos.x, y: pos.y, width: pos.w, height: pos.h, fill: speedColor(v) }),
  svg('text', { x: pos.x + pos.w / 2, y: pos.y + pos.h / 2 + 4, 'text-anchor': 'middle',
    text: m ? `${fmt(v)}${m.slow ? ` · ${m.slow} slow` : ''}` : '—' }),
  svg('title', { text: m ? `${c.suite} ${c.dtype} ${c.mode}: geomean HUD ${fmt(v)}, runner.py ${fmt(m.geomean_speedup_runner)}, ${m.measured} measured, ${m.slow} slow, ${m.failed} failed, ${m.accuracy_failed} accuracy failed` : 'no rows' }));
}

// Suite × mode rows, dtype columns; onPick({suite, dtype, mode}) on a click, onPick(null) on the selected cell.
export function matrixChart(matrix, selected, onPick) {
  const rows = [];
  for (const suite of matrix.suites) for (const mode of matrix.modes) rows.push({ suite, mode });
  const cols = matrix.dtypes;
  const cw = 112, ch = 34, left = 200, top = 24;
  const width = left + cols.length * cw + 10, height = top + rows.length * ch + 8;
  const g = chartSvg(width, height, { class: 'matrix', 'aria-label': 'geomean speedup matrix' });
  cols.forEach((d, j) => g.appendChild(svg('text', { x: left + j * cw + cw / 2, y: 16, 'text-anchor': 'middle', text: d })));
  const byKey = new Map(matrix.cells.map((c) => [`${c.suite}|${c.dtype}|${c.mode}`, c]));
  rows.forEach((r, i) => {
    g.appendChild(svg('text', { x: left - 8, y: top + i * ch + ch / 2 + 4, 'text-anchor': 'end', text: `${r.suite} · ${r.mode}` }));
    cols.forEach((d, j) => {
      const sel = selected.suite === r.suite && selected.dtype === d && selected.mode === r.mode;
      const cell = { suite: r.suite, dtype: d, mode: r.mode, cell: byKey.get(`${r.suite}|${d}|${r.mode}`) };
      g.appendChild(matrixCell(cell, { x: left + j * cw, y: top + i * ch, w: cw, h: ch }, sel, onPick));
    });
  });
  return el('div', {}, g, el('div', { class: 'legend' },
    el('span', {}, colorSwatch(speedColor(0.65)), '< 1 (slower than eager)'),
    el('span', {}, colorSwatch(speedColor(1.2)), '≥ 1'),
    el('span', {}, colorSwatch(speedColor(2.5)), '≥ 2.5'),
    el('span', { text: 'click a cell to filter the tables' })));
}

function scatterAxes(g, ticks, x, y, size, pad) {
  for (const v of ticks.ticks) {
    const t = v.toFixed(ticks.decimals);
    g.appendChild(svg('line', { class: 'grid', x1: x(v), x2: x(v), y1: y(ticks.lo), y2: y(ticks.hi) }));
    g.appendChild(svg('line', { class: 'grid', x1: x(ticks.lo), x2: x(ticks.hi), y1: y(v), y2: y(v) }));
    g.appendChild(svg('text', { class: 'tick', 'data-axis': 'x', x: x(v), y: size - pad + 14, 'text-anchor': 'middle', text: t }));
    g.appendChild(svg('text', { class: 'tick', 'data-axis': 'y', x: pad - 6, y: y(v) + 4, 'text-anchor': 'end', text: t }));
  }
  g.appendChild(svg('line', { class: 'axis', x1: x(ticks.lo), y1: y(ticks.lo), x2: x(ticks.hi), y2: y(ticks.hi) }));
  if (ticks.lo < 1 && ticks.hi > 1) {
    g.appendChild(svg('line', { class: 'ref', x1: x(1), x2: x(1), y1: y(ticks.lo), y2: y(ticks.hi) }));
    g.appendChild(svg('line', { class: 'ref', x1: x(ticks.lo), x2: x(ticks.hi), y1: y(1), y2: y(1) }));
  }
}

// Base vs target speedup, one point per case: points [{x, y, color, r, title, onclick}], same scale on both axes.
export function scatter(points, { legend = [], label = 'scatter', xLabel = '', yLabel = '' } = {}) {
  const size = 420, pad = 44;
  const g = chartSvg(size, size, { class: 'scatter', 'aria-label': label });
  const figure = el('figure', { class: 'chart' }, g, el('figcaption', { class: 'legend' },
    legend.map(([color, text]) => (color ? el('span', {}, colorSwatch(color), text) : el('span', { text })))));
  if (!points.length) return figure;
  const ticks = niceTicks(Math.min(0.8, ...points.map((p) => Math.min(p.x, p.y))) * 0.97,
    Math.max(1.2, ...points.map((p) => Math.max(p.x, p.y))) * 1.03, 5);
  const scale = (v) => ((v - ticks.lo) / (ticks.hi - ticks.lo)) * (size - pad - 10);
  const x = (v) => pad + scale(v), y = (v) => size - pad - scale(v);
  scatterAxes(g, ticks, x, y, size, pad);
  g.appendChild(svg('text', { x: size / 2, y: size - 8, 'text-anchor': 'middle', text: xLabel }));
  g.appendChild(svg('text', { x: 12, y: size / 2, transform: `rotate(-90 12 ${size / 2})`, 'text-anchor': 'middle', text: yLabel }));
  for (const p of points) {
    g.appendChild(svg('circle', { cx: x(p.x), cy: y(p.y), r: p.r, fill: p.color, 'fill-opacity': 0.8, onclick: p.onclick },
      svg('title', { text: p.title })));
  }
  return figure;
}
