// perftriage dashboard: one page app over the JSON API. No framework, no build step, no network beyond this server.
// Safety rule: data never goes through innerHTML; every node is built with createElement / textContent (el, svg).
// State rule: every filter and selection lives in the hash (#/page?key=value...), so a link reproduces the view.

const API = '/api/v1';

// ---------- DOM helpers ----------

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = String(v);
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (k === 'href') node.setAttribute('href', safeHref(v));
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  append(node, children);
  return node;
}

const SVGNS = 'http://www.w3.org/2000/svg';
function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null) continue;
    if (k === 'text') node.textContent = String(v);
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, String(v));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    node.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

// Only same-origin paths, hash links and http(s) links.
function safeHref(v) {
  const s = String(v);
  if (s.startsWith('#') || s.startsWith('/') || /^https?:\/\//i.test(s)) return s;
  return '#';
}

function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

// ---------- formatting ----------

const fmt = (v, d = 3) => (v === null || v === undefined || Number.isNaN(v) ? '—' : Number(v).toFixed(d));
const pct = (v, d = 1) => (v === null || v === undefined ? '—' : (100 * v).toFixed(d) + '%');
const day = (iso) => (iso ? String(iso).slice(0, 10) : '');

function delta(v, { percent = true, invert = false, digits = 1, points = false } = {}) {
  if (v === null || v === undefined) return el('span', { class: 'delta flat', text: '' });
  const good = invert ? v < 0 : v > 0;
  const flat = Math.abs(v) < (points ? 0.0005 : percent ? 0.0005 : 0.5);
  const cls = flat ? 'flat' : good ? 'up' : 'down';
  const arrow = flat ? '±' : v > 0 ? '▲' : '▼';
  const text = points ? `${(100 * Math.abs(v)).toFixed(digits)} pt`
    : percent ? `${(100 * Math.abs(v)).toFixed(digits)}%` : String(Math.abs(v));
  return el('span', { class: `delta ${cls}`, title: 'change against the previous run', text: `${arrow} ${text}` });
}

// ---------- URL state ----------

function parseHash() {
  const h = location.hash.replace(/^#\/?/, '');
  const [page, query] = h.split('?');
  return { page: page || 'overview', params: new URLSearchParams(query || '') };
}

function link(page, params = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, v);
  const s = q.toString();
  return `#/${page}${s ? '?' + s : ''}`;
}

function navigate(page, params) { location.hash = link(page, params); }

// Replace some parameters of the current view.
function update(changes) {
  const { page, params } = parseHash();
  const next = Object.fromEntries(params.entries());
  for (const [k, v] of Object.entries(changes)) {
    if (v === '' || v === null || v === undefined) delete next[k]; else next[k] = v;
  }
  navigate(page, next);
}

// ---------- API ----------

class ApiError extends Error {
  constructor(status, message, code) { super(message); this.status = status; this.code = code; }
}

// The API token, pasted once into the header's form: kept in sessionStorage (this tab only, gone when it closes) and
// sent as `Authorization: Bearer` on every request, never as a cookie, so a request another site makes carries nothing.
const TOKEN_KEY = 'perftriage.token';

function apiToken() {
  try { return sessionStorage.getItem(TOKEN_KEY) || ''; } catch { return ''; }
}

function showTokenState(state) {
  const form = document.getElementById('token-form');
  if (!form) return;
  form.dataset.state = state;
  document.getElementById('token-forget').hidden = !apiToken();
  document.getElementById('token-input').placeholder = apiToken() ? 'token in use (paste to replace)' : 'paste a token';
}

function setApiToken(token) {
  try {
    if (token) sessionStorage.setItem(TOKEN_KEY, token); else sessionStorage.removeItem(TOKEN_KEY);
  } catch { /* storage disabled: the token lasts until the page reloads */ }
  showTokenState(token ? 'set' : 'none');
  render();
}

function setupTokenForm() {
  const form = document.getElementById('token-form');
  if (!form) return;
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const input = document.getElementById('token-input');
    const token = input.value.trim();
    input.value = '';
    if (token) setApiToken(token);
  });
  document.getElementById('token-forget').addEventListener('click', () => setApiToken(''));
  showTokenState(apiToken() ? 'set' : 'none');
}

async function api(path, { text = false } = {}) {
  const started = performance.now();
  const headers = { Accept: text ? 'text/plain' : 'application/json' };
  const token = apiToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(API + path, { headers, credentials: 'omit' });
  setStatus(`${path.split('?')[0]} ${res.status} in ${Math.round(performance.now() - started)} ms`);
  // 401: no token, or one that is unknown, revoked or expired; 403: a token without the scope. Either way the header's
  // form asks for (another) token.
  if (res.status === 401 || res.status === 403) {
    showTokenState(res.status === 401 ? 'needed' : 'scope');
    setStatus(res.status === 401 ? 'this view needs an API token: paste one above'
      : 'this view needs a token with another scope');
  }
  if (!res.ok) {
    let message = `${res.status} ${res.statusText}`;
    let code = '';
    try {
      const body = await res.json();
      if (body && body.error) { message = body.error.message || message; code = body.error.code || ''; }
    } catch { /* not JSON */ }
    throw new ApiError(res.status, message, code);
  }
  return text ? res.text() : res.json();
}

// An endpoint another part of the service provides may be missing: say so clearly instead of failing the page.
async function optional(path, what) {
  try {
    return { data: await api(path) };
  } catch (e) {
    if (e.status === 404 && e.code === 'no_route') {
      return { missing: `${what} is not available on this server (${API}${path.split('?')[0]} does not exist).` };
    }
    return { error: e };
  }
}

function setStatus(text) { const s = document.getElementById('status'); if (s) s.textContent = text; }

function errorBox(e) { return el('div', { class: 'error', role: 'alert', text: e.message || String(e) }); }
function notice(text) { return el('div', { class: 'notice', text }); }

function table(headers, rows, { empty = 'none', className = '' } = {}) {
  const head = el('tr', {}, headers.map((h) => el('th', { class: h.num ? 'num' : '', title: h.title, text: h.label ?? h })));
  const body = rows.length
    ? rows
    : [el('tr', {}, el('td', { colspan: headers.length, class: 'muted', text: empty }))];
  return el('table', { class: className }, el('thead', {}, head), el('tbody', {}, body));
}

function td(value, cls = '') { return el('td', { class: cls }, value); }
const num = (v, d = 3, extra = '') => el('td', { class: `num ${extra}` }, fmt(v, d));

function select(name, label, options, value, onChange) {
  const s = el('select', { name, 'aria-label': label, onchange: (e) => onChange(e.target.value) },
    options.map((o) => {
      const opt = typeof o === 'string' ? { value: o, label: o || 'all' } : o;
      return el('option', { value: opt.value, selected: opt.value === value }, opt.label);
    }));
  return el('label', {}, label, s);
}

const uniq = (xs) => [...new Set(xs)].sort();

// ---------- charts (hand-written SVG) ----------

// Speedup colour: red below 1 (darker the slower), green above 1.
function speedColor(v) {
  if (v === null || v === undefined) return '#cfd4da';
  if (v < 1) {
    const t = Math.min(1, (1 - v) / 0.4);
    return `rgb(${Math.round(245 - 40 * t)},${Math.round(170 - 120 * t)},${Math.round(160 - 115 * t)})`;
  }
  const t = Math.min(1, (v - 1) / 1.5);
  return `rgb(${Math.round(200 - 150 * t)},${Math.round(230 - 80 * t)},${Math.round(190 - 120 * t)})`;
}

function sparkline(points, { width = 300, height = 46, key = 'geomean_speedup_hud' } = {}) {
  const vals = points.map((p) => p[key]).filter((v) => v !== null && v !== undefined);
  const g = svg('svg', { width, height, viewBox: `0 0 ${width} ${height}`, role: 'img',
    'aria-label': `${key} over the last ${points.length} runs` });
  if (!vals.length) return g;
  const lo = Math.min(...vals) * 0.97, hi = Math.max(...vals) * 1.03;
  const x = (i) => 4 + (i * (width - 8)) / Math.max(1, points.length - 1);
  const y = (v) => height - 4 - ((v - lo) / (hi - lo || 1)) * (height - 8);
  if (lo < 1 && hi > 1) g.appendChild(svg('line', { class: 'ref', x1: 0, x2: width, y1: y(1), y2: y(1) }));
  let d = '';
  points.forEach((p, i) => {
    if (p[key] === null || p[key] === undefined) return;
    d += `${d ? 'L' : 'M'}${x(i).toFixed(1)},${y(p[key]).toFixed(1)}`;
  });
  g.appendChild(svg('path', { d, fill: 'none', stroke: '#1f4e79', 'stroke-width': 1.5 }));
  points.forEach((p, i) => {
    if (p[key] === null || p[key] === undefined) return;
    g.appendChild(svg('circle', { cx: x(i), cy: y(p[key]), r: i === points.length - 1 ? 3 : 1.8,
      fill: p[key] < 1 ? '#c62828' : '#1f4e79' }, svg('title', { text: `${p.run} (${day(p.created_at)}): ${fmt(p[key])}` })));
  });
  return g;
}

// Line chart of several series over the same x (run index). series: [{name, color, values: [number|null]}]
function lineChart(labels, series, { width = 640, height = 220, refLine = null, yLabel = '' } = {}) {
  const all = series.flatMap((s) => s.values).filter((v) => v !== null && v !== undefined);
  const g = svg('svg', { width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': yLabel });
  if (!all.length) return g;
  const pad = { l: 52, r: 10, t: 10, b: 34 };
  let lo = Math.min(...all), hi = Math.max(...all);
  if (refLine !== null) { lo = Math.min(lo, refLine); hi = Math.max(hi, refLine); }
  const span = hi - lo || Math.abs(hi) || 1;
  lo -= span * 0.08; hi += span * 0.08;
  const x = (i) => pad.l + (i * (width - pad.l - pad.r)) / Math.max(1, labels.length - 1);
  const y = (v) => height - pad.b - ((v - lo) / (hi - lo)) * (height - pad.t - pad.b);
  for (let k = 0; k <= 4; k++) {
    const v = lo + ((hi - lo) * k) / 4;
    g.appendChild(svg('line', { class: 'grid', x1: pad.l, x2: width - pad.r, y1: y(v), y2: y(v) }));
    g.appendChild(svg('text', { x: pad.l - 6, y: y(v) + 4, 'text-anchor': 'end', text: fmt(v, v < 10 ? 2 : 1) }));
  }
  g.appendChild(svg('text', { x: 12, y: pad.t + 4, transform: `rotate(-90 12 ${pad.t + 4})`, 'text-anchor': 'end', text: yLabel }));
  const every = Math.max(1, Math.ceil(labels.length / 5));
  labels.forEach((l, i) => {
    if (i % every && i !== labels.length - 1) return;
    g.appendChild(svg('text', { x: x(i), y: height - pad.b + 14, 'text-anchor': 'middle', text: l }));
  });
  if (refLine !== null) g.appendChild(svg('line', { class: 'ref', x1: pad.l, x2: width - pad.r, y1: y(refLine), y2: y(refLine) }));
  for (const s of series) {
    let d = '';
    s.values.forEach((v, i) => {
      if (v === null || v === undefined) { d += ' '; return; }
      d += `${d && !d.endsWith(' ') ? 'L' : 'M'}${x(i).toFixed(1)},${y(v).toFixed(1)}`;
    });
    g.appendChild(svg('path', { d: d.trim(), fill: 'none', stroke: s.color, 'stroke-width': 1.8 }));
    s.values.forEach((v, i) => {
      if (v === null || v === undefined) return;
      g.appendChild(svg('circle', { cx: x(i), cy: y(v), r: 2.5, fill: s.color },
        svg('title', { text: `${s.name} ${labels[i]}: ${fmt(v)}` })));
    });
  }
  return el('figure', { class: 'chart' }, g,
    el('figcaption', { class: 'legend' }, series.map((s) => el('span', {}, colorSwatch(s.color), s.name))));
}

function colorSwatch(color) {
  const s = el('span', { class: 'swatch' });
  s.style.background = color;
  return s;
}

// ---------- pages ----------

const pages = { overview, run: runPage, compare, case: casePage, backlog, issues };

// Readiness signal for people and tests: every render gets a new generation, published on <html data-generation>
// synchronously before anything is awaited; its view carries the same generation, the hash it renders and
// data-loading, which turns "false" only when that render's DOM is complete and it is still the latest one. A render
// overtaken by a newer one (a second hashchange while the first awaits the API) leaves its detached view alone.
let generation = 0;

async function render() {
  const gen = ++generation;
  document.documentElement.dataset.generation = String(gen);
  const { page, params } = parseHash();
  showTokenState(apiToken() ? 'set' : 'none');  // a 401 / 403 of this render asks for a token again
  const app = document.getElementById('app');
  for (const a of document.querySelectorAll('#nav a')) a.classList.toggle('active', a.dataset.page === page);
  const fn = pages[page] || overview;
  const view = el('div', { class: `page page-${page}`, 'data-loading': 'true', 'data-generation': String(gen) });
  view.dataset.hash = location.hash;
  clear(app);
  app.appendChild(view);
  try {
    await fn(view, params);
  } catch (e) {
    view.appendChild(errorBox(e));
  }
  if (gen !== generation) return;
  view.dataset.loading = 'false';
  document.title = `perftriage · ${page}`;
}

async function runsBrief(platform = '') {
  return api(`/dashboard/runs?limit=1000${platform ? '&platform=' + encodeURIComponent(platform) : ''}`);
}

// Overview: each platform's latest run.
async function overview(view) {
  view.appendChild(el('h1', { text: 'Overview' }));
  const data = await api('/dashboard/overview?runs=30');
  view.appendChild(el('p', { class: 'muted',
    text: 'Latest run of each platform. Geomean speedup over the performance rows that ran: HUD = unclipped; ' +
      'runner.py = every speedup below 1 counted as 1. Pass rate: accuracy rows passing. Changes are against the ' +
      'previous run of the platform; the line is the HUD geomean of the last 30 runs (red dashes: 1.0, when in range).' }));
  if (!data.platforms.length) {
    view.appendChild(notice('No runs yet. Upload results (POST /api/v1/uploads) or start with --demo.'));
    return;
  }
  const cards = el('div', { class: 'cards' });
  for (const p of data.platforms) {
    const s = p.summary, c = p.change || {};
    const metric = (label, value, change) => [el('span', { class: 'label', text: label }),
      el('span', { class: 'value', text: value }), change];
    cards.appendChild(el('section', { class: 'card', 'data-platform': p.platform },
      el('h2', {}, el('span', { text: p.platform }),
        el('a', { class: 'run-link', href: link('run', { run: p.latest.key }), text: p.latest.key })),
      el('div', { class: 'muted' }, `torch ${p.latest.torch_version} · ${day(p.latest.created_at)}`,
        p.previous ? ` · vs ${p.previous.key}` : ' · first run'),
      el('div', { class: 'kv' },
        metric('geomean speedup (HUD, unclipped)', fmt(s.geomean_speedup_hud), delta(c.geomean_speedup_hud)),
        metric('geomean speedup (runner.py, clipped at 1)', fmt(s.geomean_speedup_runner), delta(c.geomean_speedup_runner)),
        metric(`pass rate (${s.pass_rate_basis})`, pct(s.pass_rate), delta(c.pass_rate, { points: true })),
        metric('slow (0 < speedup < 1)', s.slow, delta(c.slow, { percent: false, invert: true })),
        metric('failed', s.failed, delta(c.failed, { percent: false, invert: true })),
        metric('accuracy failed', s.accuracy_failed, delta(c.accuracy_failed, { percent: false, invert: true }))),
      sparkline(p.history),
      el('div', { class: 'links' },
        el('a', { href: link('run', { run: p.latest.key, flag: 'slow' }), text: 'slow cases' }),
        el('a', { href: link('backlog', { platform: p.platform }), text: 'backlog' }),
        p.previous ? el('a', { href: link('compare', { base: p.previous.key, target: p.latest.key }), text: 'compare with previous' }) : null)));
  }
  view.appendChild(cards);
}

// Run: matrix, slow cases, failed and missing models.
async function runPage(view, params) {
  const runs = await runsBrief();
  let key = params.get('run');
  if (!key && runs.runs.length) key = runs.runs[0].key;
  const suite = params.get('suite') || '', dtype = params.get('dtype') || '', mode = params.get('mode') || '';
  view.appendChild(el('h1', {}, 'Run ', el('span', { class: 'mono', text: key || '' })));
  if (!key) { view.appendChild(notice('No runs yet.')); return; }
  const enc = encodeURIComponent(key);
  const [run, matrix, slow, failed] = await Promise.all([
    api(`/runs/${enc}`), api(`/dashboard/matrix?run=${enc}`), api(`/slow?run=${enc}`),
    api(`/results?run=${enc}&flag=failed&limit=500`)]);
  const keep = (r) => (!suite || r.suite === suite) && (!dtype || r.dtype === dtype) && (!mode || r.mode === mode);

  view.appendChild(el('div', { class: 'filters' },
    select('run', 'run', runs.runs.map((r) => ({ value: r.key, label: `${r.key} (${r.platform}, ${day(r.created_at)})` })), key,
      (v) => update({ run: v })),
    select('suite', 'suite', ['', ...matrix.suites], suite, (v) => update({ suite: v })),
    select('dtype', 'dtype', ['', ...matrix.dtypes], dtype, (v) => update({ dtype: v })),
    select('mode', 'mode', ['', ...matrix.modes], mode, (v) => update({ mode: v })),
    el('span', { class: 'links' },
      el('a', { href: `${API}/slow?run=${enc}&format=csv`, text: 'slow CSV' }),
      el('a', { href: `${API}/slow?run=${enc}&format=json`, text: 'slow JSON' }),
      el('a', { href: `${API}/slow?run=${enc}&format=md`, text: 'slow markdown' }),
      el('a', { href: `${API}/results?run=${enc}${suite ? '&suite=' + encodeURIComponent(suite) : ''}${dtype ? '&dtype=' + encodeURIComponent(dtype) : ''}${mode ? '&mode=' + encodeURIComponent(mode) : ''}`, text: 'rows JSON' }),
      el('a', { href: `${API}/runs/${enc}/report.md`, text: 'report.md' }))));

  const s = matrix.summary;
  view.appendChild(el('p', { class: 'muted' },
    `${run.platform} · torch ${run.torch_version || '?'} · ${day(run.created_at)} · ${run.files ? run.files.length : 0} files · `,
    `geomean speedup HUD ${fmt(s.geomean_speedup_hud)} / runner.py ${fmt(s.geomean_speedup_runner)} · pass rate ${pct(s.pass_rate)} · `,
    `${s.slow} slow · ${s.failed} failed · ${s.accuracy_failed} accuracy failed`,
    run.previous_run ? [' · previous: ', el('a', { href: link('run', { run: run.previous_run }), text: run.previous_run }), ' ',
      el('a', { href: link('compare', { base: run.previous_run, target: key }), text: '(compare)' })] : ''));

  view.appendChild(el('h2', { text: 'Geomean speedup by suite × dtype × mode (HUD, unclipped; red below 1)' }));
  view.appendChild(matrixChart(matrix, { suite, dtype, mode }));

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
      td(el('a', { class: 'case-link', href: link('case', { platform: run.platform, suite: r.suite, model: r.model, dtype: r.dtype, mode: r.mode, run: key }), text: r.model })),
      el('td', { class: 'num', text: r.batch_size }), el('td', { class: 'num speed', text: fmt(r.speedup, 6) }),
      td((r.findings || []).map((f) => findingPill(f))))), { empty: 'no slow case', className: 'slow-table' }));

  const failedRows = failed.results.filter(keep);
  const missing = (run.missing || []).filter(keep);
  view.appendChild(el('div', { class: 'row' },
    el('section', {}, el('h2', { text: `Failed (${failedRows.length})` }),
      table(['suite', 'dtype', 'mode', 'kind', 'model', 'accuracy', { label: 'speedup', num: true }],
        failedRows.map((r) => el('tr', {}, td(r.suite), td(r.dtype), td(r.mode), td(r.kind),
          td(el('a', { href: link('case', { platform: run.platform, suite: r.suite, model: r.model, dtype: r.dtype, mode: r.mode, run: key }), text: r.model })),
          td(r.accuracy || ''), num(r.speedup, 3))), { empty: 'no failed model', className: 'failed-table' })),
    el('section', {}, el('h2', { text: `Missing (${missing.length})` }),
      el('p', { class: 'muted', text: 'in the previous run (or the reference) but without a row here' }),
      table(['suite', 'dtype', 'mode', 'kind', 'model'],
        missing.map((m) => el('tr', {}, td(m.suite), td(m.dtype), td(m.mode), td(m.kind), td(m.model))),
        { empty: 'no missing model', className: 'missing-table' }))));
}

function findingPill(f) {
  const verdict = String(f.verdict ?? '');
  const neutral = /^(unknown|n\/a|inconclusive|)$/i.test(verdict);
  const bad = !neutral && !/^(no|none|fused|ok)$/i.test(verdict);
  return el('span', { class: `pill ${neutral ? '' : bad ? 'bad' : 'good'}`, title: f.evidence || '' }, `${f.classifier}: ${verdict}`);
}

async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

function matrixChart(matrix, selected) {
  const rows = [];
  for (const suite of matrix.suites) for (const mode of matrix.modes) rows.push({ suite, mode });
  const cols = matrix.dtypes;
  const cw = 112, ch = 34, left = 200, top = 24;
  const width = left + cols.length * cw + 10, height = top + rows.length * ch + 8;
  const g = svg('svg', { width, height, viewBox: `0 0 ${width} ${height}`, class: 'matrix', role: 'img',
    'aria-label': 'geomean speedup matrix' });
  cols.forEach((d, j) => g.appendChild(svg('text', { x: left + j * cw + cw / 2, y: 16, 'text-anchor': 'middle', text: d })));
  const byKey = new Map(matrix.cells.map((c) => [`${c.suite}|${c.dtype}|${c.mode}`, c]));
  rows.forEach((r, i) => {
    g.appendChild(svg('text', { x: left - 8, y: top + i * ch + ch / 2 + 4, 'text-anchor': 'end', text: `${r.suite} · ${r.mode}` }));
    cols.forEach((d, j) => {
      const c = byKey.get(`${r.suite}|${d}|${r.mode}`);
      const v = c ? c.geomean_speedup_hud : null;
      const sel = selected.suite === r.suite && selected.dtype === d && selected.mode === r.mode;
      const cell = svg('g', { class: 'cell-g', 'data-suite': r.suite, 'data-dtype': d, 'data-mode': r.mode, 'data-value': v ?? '',
        onclick: () => update(sel ? { suite: '', dtype: '', mode: '' } : { suite: r.suite, dtype: d, mode: r.mode }) },
      svg('rect', { class: `cell${sel ? ' selected' : ''}`, x: left + j * cw, y: top + i * ch, width: cw, height: ch, fill: speedColor(v) }),
      svg('text', { x: left + j * cw + cw / 2, y: top + i * ch + ch / 2 + 4, 'text-anchor': 'middle',
        text: c ? `${fmt(v)}${c.slow ? ` · ${c.slow} slow` : ''}` : '—' }),
      svg('title', { text: c ? `${r.suite} ${d} ${r.mode}: geomean HUD ${fmt(v)}, runner.py ${fmt(c.geomean_speedup_runner)}, ${c.measured} measured, ${c.slow} slow, ${c.failed} failed, ${c.accuracy_failed} accuracy failed` : 'no rows' }));
      g.appendChild(cell);
    });
  });
  return el('div', {}, g, el('div', { class: 'legend' },
    el('span', {}, colorSwatch(speedColor(0.65)), '< 1 (slower than eager)'),
    el('span', {}, colorSwatch(speedColor(1.2)), '≥ 1'),
    el('span', {}, colorSwatch(speedColor(2.5)), '≥ 2.5'),
    el('span', { text: 'click a cell to filter the tables' })));
}

// Compare: base vs target.
async function compare(view, params) {
  view.appendChild(el('h1', { text: 'Compare' }));
  const runs = await runsBrief();
  const target = params.get('target') || (runs.runs[0] && runs.runs[0].key) || '';
  const base = params.get('base') || 'previous';
  const verdict = params.get('verdict') || 'changed';
  const suite = params.get('suite') || '';
  const baseInput = el('select', { name: 'base', 'aria-label': 'base' },
    el('option', { value: 'previous', selected: base === 'previous' }, 'previous run of the target\'s platform'),
    el('optgroup', { label: 'tags' }, runs.tags.map((t) => el('option', { value: t, selected: base === t }, `tag: ${t}`))),
    el('optgroup', { label: 'runs' }, runs.runs.map((r) => el('option', { value: r.key, selected: base === r.key }, `${r.key} (${day(r.created_at)})`))));
  const targetInput = el('select', { name: 'target', 'aria-label': 'target' },
    runs.runs.map((r) => el('option', { value: r.key, selected: target === r.key }, `${r.key} (${day(r.created_at)})`)));
  view.appendChild(el('form', { class: 'filters', onsubmit: (e) => {
    e.preventDefault();
    update({ base: baseInput.value, target: targetInput.value });
  } },
  el('label', {}, 'base (run or tag)', baseInput), el('label', {}, 'target', targetInput),
  el('button', { type: 'submit', id: 'run-compare' }, 'Compare')));
  if (!target) { view.appendChild(notice('No runs yet.')); return; }

  const res = await optional(`/compare?base=${encodeURIComponent(base)}&target=${encodeURIComponent(target)}`, 'Comparison');
  if (res.missing) { view.appendChild(notice(res.missing)); return; }
  if (res.error) { view.appendChild(errorBox(res.error)); return; }
  const data = res.data;
  const ag = data.aggregates;
  view.appendChild(el('p', {}, 'Base ', el('a', { class: 'mono', href: link('run', { run: data.base }), text: data.base }),
    ' → target ', el('a', { class: 'mono', href: link('run', { run: data.target }), text: data.target }),
    el('span', { class: 'muted', text: ` · ratio = base latency / target latency per path (< 1: target slower); regression below ${data.thresholds.regression}, red below ${data.thresholds.red}, improvement above ${data.thresholds.improvement}` })));

  const groupRow = (name, g, attrs = {}) => el('tr', attrs, td(name), el('td', { class: 'num', text: g.compared }),
    num(g.base.geomean_speedup.unclipped_hud), num(g.target.geomean_speedup.unclipped_hud),
    num(g.base.geomean_speedup.clipped_at_1_runner), num(g.target.geomean_speedup.clipped_at_1_runner),
    num(g.geomean_inductor_ratio, 3, g.geomean_inductor_ratio < data.thresholds.regression ? 'bad' : ''),
    num(g.geomean_eager_ratio, 3, g.geomean_eager_ratio < data.thresholds.regression ? 'bad' : ''),
    el('td', { class: 'num', text: g.verdicts.regression }), el('td', { class: 'num', text: g.verdicts.improvement }),
    el('td', { class: 'num', text: g.verdicts.new_failed }));
  const groupHeaders = ['group', { label: 'compared', num: true }, { label: 'base HUD', num: true }, { label: 'target HUD', num: true },
    { label: 'base runner.py', num: true }, { label: 'target runner.py', num: true }, { label: 'inductor ratio', num: true },
    { label: 'eager ratio', num: true }, { label: 'regressions', num: true }, { label: 'improvements', num: true }, { label: 'new failed', num: true }];
  const groups = [groupRow('overall', ag.overall)];
  for (const [s, g] of Object.entries(ag.by_suite)) groups.push(groupRow(s, g));
  view.appendChild(el('h2', { text: 'Groups' }));
  view.appendChild(table(groupHeaders, groups, { className: 'groups-table' }));
  view.appendChild(el('details', {}, el('summary', { text: 'by suite × dtype × mode (groups sharing an axis)' }),
    table(groupHeaders, ag.by_suite_dtype_mode.map((g) => groupRow(`${g.suite} ${g.dtype} ${g.mode}`, g)))));

  const suites = uniq(data.cases.map((c) => c.suite));
  view.appendChild(el('div', { class: 'filters' },
    select('verdict', 'verdict', [{ value: 'changed', label: 'changed (not unchanged)' }, { value: 'regression', label: 'regressions' },
      { value: 'improvement', label: 'improvements' }, { value: 'all', label: 'all' }], verdict, (v) => update({ verdict: v })),
    select('suite', 'suite', ['', ...suites], suite, (v) => update({ suite: v })),
    el('span', { class: 'links' },
      el('a', { href: `${API}/compare?base=${encodeURIComponent(base)}&target=${encodeURIComponent(target)}&format=csv`, text: 'CSV' }),
      el('a', { href: `${API}/compare?base=${encodeURIComponent(base)}&target=${encodeURIComponent(target)}&format=md`, text: 'markdown' }))));
  const platform = (runs.runs.find((r) => r.key === data.target) || {}).platform || '';
  const shown = data.cases.filter((c) => (!suite || c.suite === suite) &&
    (verdict === 'all' || (verdict === 'changed' ? c.verdict !== 'unchanged' : c.verdict === verdict || (verdict === 'regression' && c.verdict === 'red'))));
  const sevRank = (c) => (c.verdict === 'red' || c.severity === 'red' ? 0 : c.verdict === 'regression' ? 1 : 2);
  shown.sort((a, b) => sevRank(a) - sevRank(b) || (a.speedup_ratio ?? 9) - (b.speedup_ratio ?? 9));
  view.appendChild(el('div', {},
    el('section', {}, el('h2', { text: `Cases (${shown.length} of ${data.cases.length})` }),
      el('div', { class: 'scroll' }, table(['suite', 'dtype', 'mode', 'model', { label: 'base speedup', num: true }, { label: 'target speedup', num: true },
        { label: 'inductor ratio', num: true }, { label: 'eager ratio', num: true }, 'moved', 'verdict', 'status'],
      shown.slice(0, 1000).map((c) => el('tr', { class: /regression|red/.test(c.verdict) ? 'bad' : '' },
        td(c.suite), td(c.dtype), td(c.mode),
        td(el('a', { href: link('case', { platform, suite: c.suite, model: c.model, dtype: c.dtype, mode: c.mode, run: data.target }), text: c.model })),
        num(c.base_speedup), num(c.target_speedup, 3, 'speed'),
        num(c.inductor_ratio, 3, c.inductor_ratio < data.thresholds.regression ? 'bad' : ''), num(c.eager_ratio, 3, c.eager_ratio < data.thresholds.regression ? 'bad' : ''),
        td((c.moved || []).join(', ')), td(el('span', { class: `pill ${/regression|red/.test(c.verdict) ? 'bad' : c.verdict === 'improvement' ? 'good' : ''}`, text: c.severity ? `${c.verdict} (${c.severity})` : c.verdict })),
        td(c.status_change || ''))), { empty: 'no case with this verdict', className: 'compare-table' }))),
    el('section', {}, el('h2', { text: 'Speedup: base vs target' }), scatter(data.cases, platform, data.target))));
}

function scatter(cases, platform, target) {
  const pts = cases.filter((c) => c.base_speedup > 0 && c.target_speedup > 0);
  const size = 420, pad = 44;
  const g = svg('svg', { width: size, height: size, viewBox: `0 0 ${size} ${size}`, class: 'scatter', role: 'img',
    'aria-label': 'base speedup vs target speedup per case' });
  if (!pts.length) return g;
  const hi = Math.max(1.2, ...pts.map((c) => Math.max(c.base_speedup, c.target_speedup))) * 1.05;
  const lo = Math.min(0.8, ...pts.map((c) => Math.min(c.base_speedup, c.target_speedup))) * 0.95;
  const x = (v) => pad + ((v - lo) / (hi - lo)) * (size - pad - 10);
  const y = (v) => size - pad - ((v - lo) / (hi - lo)) * (size - pad - 10);
  for (let k = 0; k <= 4; k++) {
    const v = lo + ((hi - lo) * k) / 4;
    g.appendChild(svg('line', { class: 'grid', x1: x(v), x2: x(v), y1: y(lo), y2: y(hi) }));
    g.appendChild(svg('line', { class: 'grid', x1: x(lo), x2: x(hi), y1: y(v), y2: y(v) }));
    g.appendChild(svg('text', { x: x(v), y: size - pad + 14, 'text-anchor': 'middle', text: fmt(v, 2) }));
    g.appendChild(svg('text', { x: pad - 6, y: y(v) + 4, 'text-anchor': 'end', text: fmt(v, 2) }));
  }
  g.appendChild(svg('line', { class: 'axis', x1: x(lo), y1: y(lo), x2: x(hi), y2: y(hi) }));
  g.appendChild(svg('line', { class: 'ref', x1: x(1), x2: x(1), y1: y(lo), y2: y(hi) }));
  g.appendChild(svg('line', { class: 'ref', x1: x(lo), x2: x(hi), y1: y(1), y2: y(1) }));
  g.appendChild(svg('text', { x: size / 2, y: size - 8, 'text-anchor': 'middle', text: 'base speedup' }));
  g.appendChild(svg('text', { x: 12, y: size / 2, transform: `rotate(-90 12 ${size / 2})`, 'text-anchor': 'middle', text: 'target speedup' }));
  for (const c of pts) {
    const color = /regression|red/.test(c.verdict) ? '#c62828' : c.verdict === 'improvement' ? '#2e7d32' : '#90a4ae';
    g.appendChild(svg('circle', { cx: x(c.base_speedup), cy: y(c.target_speedup), r: /unchanged/.test(c.verdict) ? 2.5 : 4, fill: color,
      'fill-opacity': 0.8, onclick: () => navigate('case', { platform, suite: c.suite, model: c.model, dtype: c.dtype, mode: c.mode, run: target }) },
    svg('title', { text: `${c.suite} ${c.dtype} ${c.mode} ${c.model}: ${fmt(c.base_speedup)} → ${fmt(c.target_speedup)} (${c.verdict})` })));
  }
  return el('figure', {}, g, el('figcaption', { class: 'legend' },
    el('span', {}, colorSwatch('#c62828'), 'regression'), el('span', {}, colorSwatch('#2e7d32'), 'improvement'),
    el('span', {}, colorSwatch('#90a4ae'), 'unchanged'), el('span', { text: 'below the diagonal: target slower' })));
}

// Case: one model's history, findings, artifacts, issues.
async function casePage(view, params) {
  const platform = params.get('platform') || '', suite = params.get('suite') || '', model = params.get('model') || '';
  const dtype = params.get('dtype') || '', mode = params.get('mode') || '';
  view.appendChild(el('h1', {}, 'Case ', el('span', { class: 'mono case-model', text: model || '(pick one)' })));
  const platforms = (await runsBrief()).platforms;
  const modelInput = el('input', { name: 'model', value: model, 'aria-label': 'model', size: 36 });
  const suiteInput = el('input', { name: 'suite', value: suite, 'aria-label': 'suite', size: 14 });
  const dtypeInput = el('input', { name: 'dtype', value: dtype, 'aria-label': 'dtype', size: 10 });
  const modeInput = el('input', { name: 'mode', value: mode, 'aria-label': 'mode', size: 10 });
  const platformInput = el('select', { name: 'platform', 'aria-label': 'platform' },
    platforms.map((p) => el('option', { value: p, selected: p === platform }, p)));
  view.appendChild(el('form', { class: 'filters', onsubmit: (e) => {
    e.preventDefault();
    navigate('case', { platform: platformInput.value, suite: suiteInput.value, model: modelInput.value, dtype: dtypeInput.value, mode: modeInput.value });
  } },
  el('label', {}, 'platform', platformInput), el('label', {}, 'suite', suiteInput), el('label', {}, 'model', modelInput),
  el('label', {}, 'dtype', dtypeInput), el('label', {}, 'mode', modeInput), el('button', { type: 'submit' }, 'Show')));
  if (!platform || !suite || !model) {
    view.appendChild(notice('Open a case from a Run, Compare or Backlog table, or fill platform, suite and model.'));
    return;
  }
  const q = new URLSearchParams({ platform });
  if (dtype) q.set('dtype', dtype);
  if (mode) q.set('mode', mode);
  const hist = await optional(`/cases/${encodeURIComponent(suite)}/${encodeURIComponent(model)}/history?${q}`, 'Case history');
  let series = [];
  if (hist.missing) view.appendChild(notice(hist.missing));
  else if (hist.error) view.appendChild(errorBox(hist.error));
  else series = hist.data.series;

  view.appendChild(el('h2', { text: `History on ${platform}` }));
  for (const s of series) {
    const labels = s.points.map((p) => p.run.replace(/^[a-z0-9]+-/, '').replace(/^nightly-\d{4}/, 'n-'));
    view.appendChild(el('h3', {}, `${s.dtype} ${s.mode}${s.config ? ' [' + s.config + ']' : ''} · ${s.points.length} runs`,
      s.change_points.length ? el('span', { class: 'pill bad' }, `${s.change_points.length} change point(s)`) : null));
    view.appendChild(el('div', { class: 'row' },
      lineChart(labels, [{ name: 'speedup', color: '#1f4e79', values: s.points.map((p) => (p.failed ? null : p.speedup)) }],
        { refLine: 1, yLabel: 'speedup' }),
      lineChart(labels, [
        { name: 'eager ms', color: '#ef6c00', values: s.points.map((p) => p.eager_ms) },
        { name: 'compiled ms', color: '#6a1b9a', values: s.points.map((p) => p.compiled_ms) }], { yLabel: 'latency (ms)' })));
    if (s.change_points.length) {
      view.appendChild(table(['run', { label: 'before', num: true }, { label: 'after', num: true }, { label: 'change', num: true }, 'worse'],
        s.change_points.map((c) => el('tr', { class: c.worse ? 'bad' : '' }, td(c.run), num(c.before), num(c.after),
          el('td', { class: 'num', text: pct(c.relative_change) }), td(c.worse ? 'yes' : 'no')))));
    }
    view.appendChild(el('details', {}, el('summary', { text: 'points' }),
      table(['run', 'torch', { label: 'speedup', num: true }, { label: 'eager ms', num: true }, { label: 'compiled ms', num: true }, 'accuracy'],
        s.points.map((p) => el('tr', { class: p.speedup > 0 && p.speedup < 1 ? 'bad' : '' },
          td(el('a', { href: link('case', { platform, suite, model, dtype: s.dtype, mode: s.mode, run: p.run }), text: p.run })),
          td(p.torch_version), el('td', { class: 'num speed', text: p.failed ? 'failed' : (p.speedup_text || fmt(p.speedup)) }),
          num(p.eager_ms), num(p.compiled_ms), td(p.accuracy || ''))))));
  }

  // Findings and artifacts of one run (the one in the link, else the newest point of the first series).
  const newest = series.length ? series[0].points[series[0].points.length - 1] : null;
  const run = params.get('run') || (newest && newest.run);
  const caseDtype = dtype || (series[0] && series[0].dtype), caseMode = mode || (series[0] && series[0].mode);
  if (run && caseDtype && caseMode) {
    view.appendChild(el('h2', {}, 'Findings and artifacts in ', el('a', { class: 'mono', href: link('run', { run }), text: run })));
    try {
      const detail = await api(`/runs/${encodeURIComponent(run)}/cases/${encodeURIComponent(suite)}/${encodeURIComponent(caseDtype)}/${encodeURIComponent(caseMode)}/${encodeURIComponent(model)}`);
      const ex = detail.explanation || {};
      view.appendChild(el('p', { class: 'explanation' }, el('span', { class: `pill ${ex.verdict === 'explained' ? 'bad' : ''}`, text: ex.verdict || 'no explanation' }),
        ' ', ex.text || ''));
      const findings = [];
      for (const a of detail.artifacts || []) for (const f of a.findings || []) findings.push({ a, f });
      for (const r of detail.rows || []) for (const f of r.findings || []) findings.push({ a: { name: `${r.kind} row`, id: null }, f });
      view.appendChild(table(['source', 'classifier', 'verdict', 'evidence'],
        findings.map(({ a, f }) => el('tr', {}, td(a.name), td(f.classifier), td(findingPill(f)), el('td', { class: 'evidence', text: f.evidence || '' }))),
        { empty: 'no finding', className: 'findings-table' }));
      view.appendChild(table(['artifact', 'role', 'kind', { label: 'size', num: true }, 'summary', 'download'],
        (detail.artifacts || []).map((a) => el('tr', {}, td(el('span', { class: 'artifact-name', text: a.name })), td(a.role), td(a.kind),
          el('td', { class: 'num', text: a.size }), td(typeof a.summary === 'string' ? a.summary : JSON.stringify(a.summary ?? '')),
          td(el('a', { href: `${API}/artifacts/${a.id}/raw`, text: 'raw' })))), { empty: 'no artifact attached', className: 'artifacts-table' }));
    } catch (e) {
      view.appendChild(e.status === 404 ? notice(`No ${caseDtype} ${caseMode} row of this model in ${run}.`) : errorBox(e));
    }
  }

  const issuesRes = await optional('/issues', 'Labeled issues');
  view.appendChild(el('h2', { text: 'Linked issues' }));
  if (issuesRes.missing) view.appendChild(notice(issuesRes.missing));
  else if (issuesRes.error) view.appendChild(errorBox(issuesRes.error));
  else {
    const linked = issuesRes.data.issues.filter((i) => (i.result && (i.result.cases || []).some((c) => c.model === model)) ||
      String(i.title).includes(model));
    view.appendChild(table(['issue', 'title', 'labels'], linked.map((i) => el('tr', {},
      td(el('a', { href: `https://github.com/${i.repo}/issues/${i.number}`, text: `${i.repo}#${i.number}` })), td(i.title),
      td((i.labels || []).map((l) => el('span', { class: 'pill', text: l }))))), { empty: 'no labeled issue mentions this model' }));
  }
}

// Backlog: open slower-than-eager cases per platform.
async function backlog(view, params) {
  view.appendChild(el('h1', { text: 'Backlog' }));
  const runs = await runsBrief();
  const platform = params.get('platform') || runs.platforms[0] || '';
  const status = params.get('status') || 'open';
  const suite = params.get('suite') || '';
  view.appendChild(el('div', { class: 'filters' },
    select('platform', 'platform', runs.platforms, platform, (v) => update({ platform: v })),
    select('status', 'status', [{ value: 'open', label: 'open' }, { value: 'fixed', label: 'fixed' }, { value: 'failing', label: 'failing' }, { value: 'all', label: 'all' }],
      status, (v) => update({ status: v })),
    select('suite', 'suite', ['', 'huggingface', 'timm_models', 'torchbench'], suite, (v) => update({ suite: v }))));
  if (!platform) { view.appendChild(notice('No runs yet.')); return; }
  const res = await optional(`/backlog?platform=${encodeURIComponent(platform)}`, 'The backlog');
  if (res.missing) { view.appendChild(notice(res.missing)); return; }
  if (res.error) { view.appendChild(errorBox(res.error)); return; }
  const d = res.data;
  view.appendChild(el('p', {}, el('span', { class: 'pill bad', text: `${d.open} open` }), el('span', { class: 'pill good', text: `${d.fixed} fixed` }),
    el('span', { class: 'pill warn', text: `${d.failing} failing` }), el('span', { class: 'muted', text: ` over ${d.runs} runs of ${platform}; slow = 0 < speedup < ${d.threshold}` })));
  const rows = d.cases.filter((c) => (status === 'all' || c.status === status) && (!suite || c.suite === suite));
  view.appendChild(table(['suite', 'dtype', 'mode', 'model', 'status', 'first seen', 'last seen', 'fixed in', { label: 'latest speedup', num: true },
    { label: 'worst', num: true }, { label: 'runs slow', num: true }],
  rows.map((c) => el('tr', { class: c.status === 'open' ? 'bad' : '' }, td(c.suite), td(c.dtype), td(c.mode),
    td(el('a', { href: link('case', { platform, suite: c.suite, model: c.model, dtype: c.dtype, mode: c.mode, run: c.latest_run }), text: c.model })),
    td(el('span', { class: `pill ${c.status === 'open' ? 'bad' : c.status === 'fixed' ? 'good' : 'warn'}`, text: c.status })),
    td(el('a', { href: link('run', { run: c.first_seen }), text: c.first_seen })), td(el('a', { href: link('run', { run: c.last_seen }), text: c.last_seen })),
    td(c.fixed_in ? el('a', { href: link('run', { run: c.fixed_in }), text: c.fixed_in }) : ''),
    el('td', { class: 'num speed', text: c.latest_speedup || '' }), num(c.worst_speedup), el('td', { class: 'num', text: c.runs_slow }))),
  { empty: `no ${status === 'all' ? '' : status + ' '}case`, className: 'backlog-table' }));
}

// Issues: labeled issues and the bot's outbox.
async function issues(view, params) {
  view.appendChild(el('h1', { text: 'Issues' }));
  const state = params.get('state') || '';
  const [iss, out] = await Promise.all([optional('/issues', 'Labeled issues'),
    optional(`/outbox${state ? '?state=' + encodeURIComponent(state) : ''}`, 'The bot outbox')]);
  view.appendChild(el('h2', { text: 'Labeled issues' }));
  if (iss.missing) view.appendChild(notice(iss.missing));
  else if (iss.error) view.appendChild(errorBox(iss.error));
  else {
    view.appendChild(table(['issue', 'title', 'axes (value: reason)', 'labels', 'updated'],
      iss.data.issues.map((i) => el('tr', { class: 'issue-row' },
        td(el('a', { href: `https://github.com/${i.repo}/issues/${i.number}`, text: `#${i.number}` })),
        td(el('span', { class: 'issue-title', text: i.title })),
        td(el('ul', {}, ((i.axes && i.axes.length ? i.axes : (i.result && i.result.axes) || [])).map((a) =>
          el('li', {}, el('b', { text: `${a.axis}: ${a.value}` }), el('span', { class: 'muted', text: ` — ${a.reason}` }))))),
        td((i.labels || []).map((l) => el('span', { class: 'pill', text: l }))), td(day(i.updated_at)))),
      { empty: 'no labeled issue yet', className: 'issues-table' }));
  }
  view.appendChild(el('h2', { text: 'Bot outbox' }));
  if (out.missing) { view.appendChild(notice(out.missing)); return; }
  if (out.error) { view.appendChild(errorBox(out.error)); return; }
  const o = out.data;
  view.appendChild(el('div', { class: 'filters' },
    select('state', 'state', [{ value: '', label: 'all' }, ...['pending', 'sent', 'failed', 'dry_run'].map((s) => ({ value: s, label: `${s} (${o.counts[s] ?? 0})` }))],
      state, (v) => update({ state: v })),
    el('span', { class: 'muted', text: o.dry_run ? 'dry run: no GitHub token, actions are recorded and not sent' : 'live: actions are sent to GitHub' })));
  view.appendChild(table(['id', 'issue', 'kind', 'state', { label: 'attempts', num: true }, 'last error', 'created', 'payload'],
    o.actions.map((a) => el('tr', { class: a.state === 'failed' ? 'bad' : '' }, el('td', { class: 'num', text: a.id }),
      td(a.issue_number ? `${a.repo}#${a.issue_number}` : a.repo), td(a.kind),
      td(el('span', { class: `pill ${a.state === 'failed' ? 'bad' : a.state === 'sent' ? 'good' : a.state === 'pending' ? 'warn' : ''}`, text: a.state })),
      el('td', { class: 'num', text: a.attempts }), td(a.last_error || ''), td(day(a.created_at)),
      td(el('details', {}, el('summary', { text: 'payload' }), el('pre', { class: 'md', text: JSON.stringify(a.payload, null, 2) }))))),
    { empty: 'no action', className: 'outbox-table' }));
}

window.addEventListener('hashchange', render);
setupTokenForm();
render();
