// DOM and formatting helpers shared by every module of the dashboard.
// Safety rule: data never goes through innerHTML; every node is built with createElement / textContent (el, svg).

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
export function svg(tag, attrs = {}, ...children) {
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

export function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

// ---------- formatting ----------

export const fmt = (v, d = 3) => (v === null || v === undefined || Number.isNaN(v) ? '—' : Number(v).toFixed(d));
export const pct = (v, d = 1) => (v === null || v === undefined ? '—' : (100 * v).toFixed(d) + '%');
export const day = (iso) => (iso ? String(iso).slice(0, 10) : '');
export const uniq = (xs) => [...new Set(xs)].sort();

export function delta(v, { percent = true, invert = false, digits = 1, points = false } = {}) {
  if (v === null || v === undefined) return el('span', { class: 'delta flat', text: '' });
  const good = invert ? v < 0 : v > 0;
  const flat = Math.abs(v) < (points ? 0.0005 : percent ? 0.0005 : 0.5);
  const cls = flat ? 'flat' : good ? 'up' : 'down';
  const arrow = flat ? '±' : v > 0 ? '▲' : '▼';
  const text = points ? `${(100 * Math.abs(v)).toFixed(digits)} pt`
    : percent ? `${(100 * Math.abs(v)).toFixed(digits)}%` : String(Math.abs(v));
  return el('span', { class: `delta ${cls}`, title: 'change against the previous run', text: `${arrow} ${text}` });
}

// ---------- building blocks ----------

export function notice(text) { return el('div', { class: 'notice', text }); }

export function table(headers, rows, { empty = 'none', className = '' } = {}) {
  const head = el('tr', {}, headers.map((h) => el('th', { class: h.num ? 'num' : '', title: h.title, text: h.label ?? h })));
  const body = rows.length
    ? rows
    : [el('tr', {}, el('td', { colspan: headers.length, class: 'muted', text: empty }))];
  return el('table', { class: className }, el('thead', {}, head), el('tbody', {}, body));
}

export function td(value, cls = '') { return el('td', { class: cls }, value); }
export const num = (v, d = 3, extra = '') => el('td', { class: `num ${extra}` }, fmt(v, d));

export function select(name, label, options, value, onChange) {
  const s = el('select', { name, 'aria-label': label, onchange: (e) => onChange(e.target.value) },
    options.map((o) => {
      const opt = typeof o === 'string' ? { value: o, label: o || 'all' } : o;
      return el('option', { value: opt.value, selected: opt.value === value }, opt.label);
    }));
  return el('label', {}, label, s);
}

export function colorSwatch(color) {
  const s = el('span', { class: 'swatch' });
  s.style.background = color;
  return s;
}

// A classifier's finding as a pill: red when it found something, green when it ruled it out, grey when it could not tell.
export function findingPill(f) {
  const verdict = String(f.verdict ?? '');
  const neutral = /^(unknown|n\/a|inconclusive|)$/i.test(verdict);
  const bad = !neutral && !/^(no|none|fused|ok)$/i.test(verdict);
  return el('span', { class: `pill ${neutral ? '' : bad ? 'bad' : 'good'}`, title: f.evidence || '' }, `${f.classifier}: ${verdict}`);
}
