// Overview: each platform's latest run, its changes against the previous run and a sparkline of the last 30.
import { api } from './api.js';
import { sparkline } from './charts.js';
import { day, delta, el, fmt, notice, pct } from './dom.js';
import { link } from './hash.js';

const metric = (label, value, change) => [el('span', { class: 'label', text: label }),
  el('span', { class: 'value', text: value }), change];

function platformCard(p) {
  const s = p.summary, c = p.change || {};
  return el('section', { class: 'card', 'data-platform': p.platform },
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
      p.previous ? el('a', { href: link('compare', { base: p.previous.key, target: p.latest.key }), text: 'compare with previous' }) : null));
}

export async function overviewPage(view) {
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
  view.appendChild(el('div', { class: 'cards' }, data.platforms.map(platformCard)));
}
