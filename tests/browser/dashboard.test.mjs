// Dashboard browser test: the real server (serve --demo on an ephemeral port, fresh database) and Debian's Chromium
// driven by playwright-core. Loads every page, applies filters, follows deep links, runs a comparison, opens cases,
// checks that markup in model names and issue titles renders as text, that nothing leaves 127.0.0.1, and that no
// console error or page error happened. Saves a screenshot of every page to $PERFTRIAGE_SCREENSHOTS.
// Checks (check(): each records its failure and the run goes on): the dashboard's ES modules are served as
// JavaScript, the API's answers reach the browser in zstd, charts fit their boxes and have round ticks, an issue's axis label is not prefixed twice, a comparison
// says why a speedup went up when eager got slower, and the footer links the API index.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

const binary = process.env.PERFTRIAGE_BINARY;
assert.ok(binary, 'PERFTRIAGE_BINARY must name the perftriage binary');
const shots = process.env.PERFTRIAGE_SCREENSHOTS || path.resolve('build/browser-screenshots');
mkdirSync(shots, { recursive: true });
const work = mkdtempSync(path.join(tmpdir(), 'perftriage-browser-'));
const MARKUP_MODEL = '<img src=x onerror=alert(1)>';
// The dashboard under test: this checkout's web/ (run.sh runs from the repository root), whatever web/ directory the
// binary would find itself (an installed share/perftriage/web, or the tree it was built from).
const webDir = path.resolve(process.env.PERFTRIAGE_WEB_DIR || 'web');

function startServer() {
  const child = spawn(binary, ['serve', '--listen', '127.0.0.1:0', '--demo', '--db', path.join(work, 'demo.sqlite'),
    '--web-dir', webDir],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in 240 s\n${out}\n${err}`)), 240000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited ${code}\n${out}\n${err}`)); });
  });
  return { child, ready, log: () => out + err };
}

const server = startServer();
let context;
const failures = [];
let step = '';

// Records a failed check and goes on, so one run names every check that fails.
async function check(name, fn) {
  try {
    await fn();
  } catch (e) {
    failures.push(`[${step}] ${name}: ${e.message}`);
  }
}

// Axis ticks are nice numbers: evenly spaced by 1, 2 or 5 × 10^k, each a multiple of the step.
function assertRoundTicks(texts, what) {
  const vs = [...new Set(texts.map(Number))].sort((a, b) => a - b);
  assert.ok(vs.length >= 3, `${what}: at least 3 ticks: ${texts.join(' ')}`);
  const step = vs[1] - vs[0];
  const mantissa = step / 10 ** Math.floor(Math.log10(step) + 1e-9);
  assert.ok([1, 2, 5].some((m) => Math.abs(mantissa - m) < 1e-6), `${what}: step ${step} is not 1, 2 or 5 × 10^k: ${texts.join(' ')}`);
  vs.forEach((v, i) => {
    assert.ok(Math.abs(v / step - Math.round(v / step)) < 1e-6, `${what}: ${v} is not a multiple of ${step}: ${texts.join(' ')}`);
    if (i) assert.ok(Math.abs(v - vs[i - 1] - step) < step * 1e-6, `${what}: uneven ticks: ${texts.join(' ')}`);
  });
}

// The numeric labels of each chart in main, grouped by text-anchor (y axis: end; x axis: middle); matrix cells are
// values, not ticks.
const chartTicks = async (p) => p.$$eval('main svg', (svgs) => svgs.map((s, i) => {
  const byAnchor = {};
  for (const t of s.querySelectorAll('text')) {
    const text = t.textContent.trim();
    if (!/^-?\d+(\.\d+)?$/.test(text) || t.closest('g.cell-g')) continue;
    (byAnchor[t.getAttribute('text-anchor') || 'start'] ||= []).push(text);
  }
  return { name: `svg ${i} (${s.getAttribute('aria-label')}; class ${s.getAttribute('class')})`, byAnchor };
}));

// Each chart in main lies inside its parent element and inside the page, and each of its labels inside the chart.
const chartOverflows = async (p) => p.$$eval('main svg', (svgs) => {
  const out = [];
  const inside = (a, b) => a.left >= b.left - 1 && a.right <= b.right + 1 && a.top >= b.top - 1 && a.bottom <= b.bottom + 1;
  const page = document.documentElement.clientWidth;
  svgs.forEach((s, i) => {
    const name = `svg ${i} (${s.getAttribute('aria-label') || s.getAttribute('class')})`;
    const box = s.getBoundingClientRect(), parent = s.parentElement.getBoundingClientRect();
    if (box.left < parent.left - 1 || box.right > parent.right + 1) {
      out.push(`${name}: ${Math.round(box.left)}..${Math.round(box.right)} overflows its ${s.parentElement.tagName} ${Math.round(parent.left)}..${Math.round(parent.right)}`);
    }
    if (box.right > page + 1) out.push(`${name}: right edge ${Math.round(box.right)} beyond the page width ${page}`);
    for (const t of s.querySelectorAll('text')) {
      if (!inside(t.getBoundingClientRect(), box)) out.push(`${name}: label "${t.textContent}" outside the chart`);
    }
  });
  return out;
});

async function main() {
  const started = Date.now();
  const base = await server.ready;
  console.log(`server ${base} ready in ${Date.now() - started} ms (demo data loaded)`);

  context = await chromium.launchPersistentContext(path.join(work, 'profile'), {
    executablePath: process.env.PERFTRIAGE_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1400, height: 1000 },
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  // Offline: anything not served by our server is refused and reported.
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(base + '/') || url === base) return route.continue();
    failures.push(`[${step}] request left the server: ${url}`);
    return route.abort();
  });

  const page = context.pages()[0] || (await context.newPage());
  const scripts = new Map();  // path of every script the pages loaded -> its Content-Type
  const codings = new Map();  // Content-Encoding of the API's 200 answers -> how many
  const watch = (p) => {
    // The token step provokes one 401 on purpose (Chromium logs it as a console error too).
    const expected = (text) => step === 'token prompt' && /\b401\b/.test(text);
    p.on('console', (m) => { if (m.type() === 'error' && !expected(m.text())) failures.push(`[${step}] console error: ${m.text()}`); });
    p.on('pageerror', (e) => failures.push(`[${step}] page error: ${e.message}`));
    p.on('dialog', async (d) => { failures.push(`[${step}] dialog opened (script ran): ${d.message()}`); await d.dismiss(); });
    p.on('response', (r) => { if (r.status() >= 400 && !expected(`${r.status()}`)) failures.push(`[${step}] HTTP ${r.status()} ${r.url()}`); });
    p.on('response', (r) => {
      const { pathname } = new URL(r.url());
      if (pathname.endsWith('.js')) scripts.set(pathname, r.headers()['content-type'] || '');
      if (pathname.startsWith('/api/v1/') && r.status() === 200) {
        const coding = r.headers()['content-encoding'] || 'identity';
        codings.set(coding, (codings.get(coding) || 0) + 1);
      }
    });
  };
  watch(page);

  // The page is ready when the latest render (html[data-generation]) has finished (data-loading="false") the hash the
  // address shows now. Checking the hash closes the gap between setting location.hash and the hashchange event, in
  // which the previous render's finished view is still on screen; `after` (a generation read before an action)
  // additionally requires a render the action caused.
  const generationNow = async (p = page) => p.evaluate(() => Number(document.documentElement.dataset.generation || 0));
  const loaded = async (p = page, after = 0) => {
    await p.waitForFunction((after) => {
      const view = document.querySelector('main .page');
      const latest = Number(document.documentElement.dataset.generation || 0);
      return view !== null && latest > after && Number(view.dataset.generation) === latest &&
        view.dataset.hash === location.hash && view.dataset.loading === 'false';
    }, after, { timeout: 60000 });
  };
  // Runs an action (a click, a selection) and waits for the render it causes.
  const act = async (action, p = page) => {
    const before = await generationNow(p);
    await action();
    await loaded(p, before);
  };
  const go = async (hash, p = page) => {
    // A fresh document each time: goto of a URL that differs only in its hash would be a same-document navigation.
    await p.goto('about:blank');
    await p.goto(`${base}/${hash}`);
    await loaded(p);
  };
  const shot = async (name, p = page) => p.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
  const hashParams = (p = page) => new URLSearchParams(new URL(p.url()).hash.split('?')[1] || '');
  const rows = (selector, p = page) => p.$$eval(`${selector} tbody tr`, (trs) => trs.filter((tr) => !tr.querySelector('td[colspan]')).length);

  // --- Overview ---
  step = 'overview';
  await go('');
  const cards = await page.$$eval('.card[data-platform]', (cs) => cs.map((c) => c.dataset.platform));
  assert.deepEqual(cards.sort(), ['A100', 'BMG', 'PVC']);
  const bmg = page.locator('.card[data-platform="BMG"]');
  assert.match(await bmg.innerText(), /geomean speedup \(HUD, unclipped\)/);
  assert.match(await bmg.innerText(), /geomean speedup \(runner\.py, clipped at 1\)/);
  assert.match(await bmg.innerText(), /pass rate/);
  assert.equal(await bmg.locator('svg circle').count(), 30, 'BMG sparkline shows its last 30 runs');
  await shot('overview');
  await check('the dashboard is ES modules, served as JavaScript', async () => {
    assert.equal(await page.locator('script[type="module"][src="/web/app.js"]').count(), 1, 'index.html loads app.js as a module');
    for (const m of ['/web/app.js', '/web/api.js', '/web/charts.js']) assert.ok(scripts.has(m), `${m} loaded: ${[...scripts.keys()]}`);
    for (const [m, type] of scripts) assert.match(type, /^text\/javascript\b/, `${m} is served as ${type}`);
  });
  await check('the browser gets the API in zstd (it asks for gzip, br and zstd; zstd wins the tie)', async () => {
    assert.ok((codings.get('zstd') || 0) > 0, `API answers by Content-Encoding: ${JSON.stringify([...codings])}`);
    assert.ok(!codings.has('gzip'), `no gzip when zstd is taken: ${JSON.stringify([...codings])}`);
  });
  await check('the footer links the API index', async () => {
    const href = await page.locator('footer.foot a').getAttribute('href');
    assert.equal(href, '/api/v1', 'the link says /api/v1 and goes there');
    const res = await fetch(`${base}${href}`);
    assert.equal(res.status, 200, `GET ${href} (the API index)`);
    assert.match(res.headers.get('content-type') || '', /^application\/json/, `GET ${href} answers JSON`);
  });

  // --- Run: deep link to the seed run, its 11 slow cases, a filter, the markdown copy ---
  step = 'run';
  await go('#/run?run=bmg-release-2.12');
  assert.equal(await rows('.slow-table'), 11, 'the seed run has its 11 slow cases');
  assert.ok(await page.locator('svg.matrix rect.cell').count() >= 18, 'the matrix has suite x dtype x mode cells');
  // Cells are red exactly when their geomean is below 1 (none is in the seed run: its slow cases are a minority).
  const redCells = async () => page.$$eval('svg.matrix g.cell-g', (gs) => gs.map((g) => {
    const [r, gg] = g.querySelector('rect').getAttribute('fill').match(/\d+/g).map(Number);
    return { value: Number(g.dataset.value), red: r > gg + 40, text: g.querySelector('text').textContent };
  }));
  for (const c of await redCells()) assert.equal(c.red, c.value < 1, `cell colour follows its value: ${JSON.stringify(c)}`);
  await act(() => page.selectOption('select[name="dtype"]', 'amp_bf16'));
  assert.ok(page.url().includes('dtype=amp_bf16'));
  assert.equal(await rows('.slow-table'), 1, 'dtype filter leaves the amp_bf16 case');
  assert.equal(hashParams().get('run'), 'bmg-release-2.12');
  await page.click('#copy-md');
  await page.waitForFunction(() => document.querySelector('.copy-status').textContent.length > 0);
  const md = await (await fetch(`${base}/api/v1/slow?run=bmg-release-2.12&format=md`)).text();
  assert.equal(await page.locator('pre.md').textContent(), md, 'the copied text is the API markdown table');
  assert.match(md, /ElectraForQuestionAnswering/);
  assert.equal(await page.locator('.copy-status').textContent(), 'copied the markdown table');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), md, 'the clipboard holds the table');
  await go('#/run?run=bmg-release-2.12');
  await shot('run');

  await go('#/run?run=pvc-release-2.12');
  const pvcCells = await redCells();
  for (const c of pvcCells) assert.equal(c.red, c.value < 1, `cell colour follows its value: ${JSON.stringify(c)}`);
  assert.equal(pvcCells.filter((c) => c.red).length, 1, 'PVC 2.12 timm amp_bf16 training is below 1');
  await act(() => page.locator('svg.matrix g.cell-g[data-suite="timm_models"][data-dtype="amp_bf16"][data-mode="training"]').click());
  assert.ok(page.url().includes('mode=training'));
  assert.equal(await page.locator('svg.matrix rect.cell.selected').count(), 1, 'the clicked cell is selected');
  assert.equal(await rows('.slow-table'), 16, 'clicking the cell filters the slow table to its 16 models');
  await shot('run-pvc-matrix-filter');

  // A deep link with filters reproduces the view in a fresh tab.
  step = 'run deep link';
  const tab = await context.newPage();
  watch(tab);
  await go('#/run?run=bmg-release-2.12&suite=torchbench&mode=inference', tab);
  assert.equal(await tab.locator('select[name="suite"]').inputValue(), 'torchbench');
  assert.equal(await tab.locator('select[name="mode"]').inputValue(), 'inference');
  const tbModels = await tab.$$eval('.slow-table tbody a.case-link', (as) => as.map((a) => a.textContent).sort());
  assert.deepEqual(tbModels, ['lennard_jones', 'maml', 'soft_actor_critic']);
  assert.equal(await tab.locator('svg.matrix rect.cell.selected').count(), 0, 'no dtype picked: no single cell selected');
  await tab.close();

  // Missing and failed models of a nightly.
  step = 'run missing';
  await go('#/run?run=bmg-nightly-20260813');
  assert.ok(await rows('.missing-table') >= 1, 'dcgan is missing in the 2026-08-13 nightly');
  assert.match(await page.locator('.missing-table').innerText(), /dcgan/);

  // --- Compare: pick base and target, run it ---
  // --- Trends: HUD's four metrics per suite, two platforms on one date axis, every point the API's value ---
  step = 'trends';
  await go('#/trends?platforms=BMG,PVC&dtype=bfloat16&mode=inference&runs=30');
  await shot('trends');
  await check('trends: four charts per suite with the API values, axes from zero up for what cannot be negative', async () => {
    const api = Object.fromEntries(await Promise.all(['BMG', 'PVC'].map(async (p) =>
      [p, await (await fetch(`${base}/api/v1/trends?platform=${p}&runs=30`)).json()])));
    const group = (p, suite) => api[p].groups.find((g) => g.suite === suite && g.dtype === 'bfloat16' && g.mode === 'inference');
    const suites = [...new Set(Object.values(api).flatMap((t) => t.groups)
      .filter((g) => g.dtype === 'bfloat16' && g.mode === 'inference').map((g) => g.suite))].sort();
    assert.ok(suites.length >= 2, `suites: ${suites}`);
    assert.deepEqual(await page.$$eval('section.trend-suite', (ss) => ss.map((x) => x.dataset.suite)), suites);
    assert.equal(await page.locator('section.trend-suite figure.chart').count(), suites.length * 4, 'four metrics per suite');
    for (const suite of suites) {  // a metric no run measured says so instead of drawing an empty frame
      const measured = ['BMG', 'PVC'].some((p) => (group(p, suite) || { points: [] }).points.some((x) => x.geomean_compression_ratio !== null));
      const empty = await page.locator(`section.trend-suite[data-suite="${suite}"] figure.empty[data-metric="geomean_compression_ratio"]`).count();
      assert.equal(empty, measured ? 0 : 1, `${suite}: compression ratio ${measured ? 'drawn' : 'marked not measured'}`);
    }
    const points = await page.$$eval('section.trend-suite figure.chart', (figs) => figs.flatMap((f) =>
      [...f.querySelectorAll('circle.point')].map((c) => ({ suite: f.dataset.suite, metric: f.dataset.metric,
        value: Number(c.dataset.value), title: c.querySelector('title').textContent }))));
    const platforms = new Set();
    for (const pt of points) {
      const m = /^(\S+) (\S+) \((\S+)\): /.exec(pt.title);
      assert.ok(m, `a point says its platform, day and run: ${pt.title}`);
      const [, platform, , run] = m;
      platforms.add(platform);
      const want = group(platform, pt.suite).points.find((x) => x.run === run)[pt.metric] * (pt.metric === 'pass_rate' ? 100 : 1);
      assert.ok(Math.abs(pt.value - want) < 1e-9, `${platform} ${pt.suite} ${run} ${pt.metric}: ${pt.value} vs the API's ${want}`);
    }
    assert.deepEqual([...platforms].sort(), ['BMG', 'PVC'], 'both platforms are drawn');
    const apiPoints = suites.flatMap((suite) => ['BMG', 'PVC'].flatMap((p) => (group(p, suite) || { points: [] }).points
      .flatMap((x) => ['pass_rate', 'geomean_speedup', 'mean_compilation_s', 'geomean_compression_ratio'].filter((k) => x[k] !== null))));
    assert.equal(points.length, apiPoints.length, 'one point per measured value');
    for (const c of (await chartTicks(page)).filter((x) => /time|rate/.test(x.name))) {
      assert.ok((c.byAnchor.end || []).every((t) => Number(t) >= 0), `${c.name}: no tick below zero: ${c.byAnchor.end}`);
      if (/pass rate/.test(c.name)) assert.ok((c.byAnchor.end || []).every((t) => Number(t) <= 100), `${c.name}: no tick above 100 %`);
    }
  });
  await check('trends: a point opens its run', async () => {
    const first = page.locator('section.trend-suite circle.point.link').first();
    const run = /\((\S+)\): /.exec(await first.locator('title').textContent())[1];
    await act(() => first.dispatchEvent('click'));  // a 2.5-unit circle: the event, not a pointer aimed at it
    assert.ok(new URL(page.url()).hash.startsWith('#/run'), page.url());
    assert.equal(hashParams().get('run'), run);
  });

  step = 'compare';
  await go('#/compare');
  await page.selectOption('select[name="base"]', 'bmg-nightly-20260806');
  await page.selectOption('select[name="target"]', 'bmg-nightly-20260807');
  await act(() => page.click('#run-compare'));
  assert.equal(hashParams().get('target'), 'bmg-nightly-20260807');
  assert.equal(hashParams().get('base'), 'bmg-nightly-20260806');
  const regression = page.locator('.compare-table tbody tr', { hasText: 'BertForMaskedLM' });
  assert.equal(await regression.count(), 1, 'the BertForMaskedLM regression is listed');
  const cells = await regression.locator('td').allTextContents();
  assert.ok(Number(cells[6]) < 0.8, `inductor ratio of the regression is below 0.8: ${cells[6]}`);
  assert.match(cells[8], /compiled got slower/, 'the compiled path moved');
  assert.ok(await page.locator('svg.scatter circle').count() > 50, 'the scatter has a point per case');
  await shot('compare');
  await check('the scatter has round ticks', async () => {
    const ticks = (await chartTicks(page)).filter((c) => /class [^)]*\bscatter\b/.test(c.name));
    assert.equal(ticks.length, 1, 'one scatter');
    assertRoundTicks(ticks[0].byAnchor.end || [], `${ticks[0].name} y axis`);
    assertRoundTicks(ticks[0].byAnchor.middle || [], `${ticks[0].name} x axis`);
  });

  // --- Case: open it from the comparison ---
  step = 'case';
  await act(() => regression.locator('a').click());
  assert.ok(new URL(page.url()).hash.startsWith('#/case'));
  assert.equal(hashParams().get('model'), 'BertForMaskedLM');
  assert.equal(await page.locator('.case-model').textContent(), 'BertForMaskedLM');
  assert.ok(await page.locator('figure.chart svg path').count() >= 3, 'speedup, eager and compiled lines');
  assert.match(await page.locator('.findings-table').innerText(), /math_fallback/, 'the attention math fallback finding');
  assert.equal(await page.locator('.explanation').innerText(), 'explained attention: math_fallback');
  assert.match(await page.locator('.artifacts-table').innerText(), /bert_mlm_after\.json/);
  assert.match(await page.locator('.verdict').innerText(), /BertForMaskedLM on BMG is (not )?slower than eager in its newest run/,
    'the case explained end to end');
  await shot('case');
  await check('the case charts have round ticks', async () => {
    const charts = await chartTicks(page);
    assert.ok(charts.length >= 2, 'speedup and latency charts');
    for (const c of charts) assertRoundTicks(c.byAnchor.end || [], `${c.name} y axis`);
  });
  await check('the case shows its compile time over the runs, the API\'s values', async () => {
    const params = hashParams();
    const hist = await (await fetch(`${base}/api/v1/cases/${params.get('suite')}/${params.get('model')}/history?platform=${params.get('platform')}` +
      `&dtype=${params.get('dtype')}&mode=${params.get('mode')}`)).json();
    assert.equal(hist.series.length, 1, 'one dtype x mode series');
    const want = hist.series[0].points.filter((p) => !p.failed && p.compilation_s !== null).map((p) => p.compilation_s);
    assert.ok(want.length > 0, 'the demo measures compile time');
    const drawn = await page.$$eval('figure.chart svg[aria-label="compile time (s)"]', (svgs) =>
      svgs.length ? [...svgs[0].querySelectorAll('circle.point')].map((c) => Number(c.dataset.value)) : []);
    assert.deepEqual(drawn, want);
  });
  await check('the latency axis never goes below zero', async () => {
    const latency = (await chartTicks(page)).filter((c) => /latency/.test(c.name));
    assert.ok(latency.length >= 1, 'a latency chart');
    for (const c of latency) assert.ok((c.byAnchor.end || []).every((t) => Number(t) >= 0), `${c.name}: ${c.byAnchor.end}`);
  });
  for (const width of [1400, 900]) {
    await check(`the case charts fit their boxes at ${width} px`, async () => {
      await page.setViewportSize({ width, height: 1000 });
      assert.deepEqual(await chartOverflows(page), []);
    });
  }
  await page.setViewportSize({ width: 1400, height: 1000 });

  // --- Compare: a speedup that went up because eager got slower says so; colours follow the server's verdicts ---
  step = 'compare eager slowed';
  const pair = 'base=bmg-release-2.12&target=bmg-release-2.13';
  await go(`#/compare?${pair}&verdict=all`);
  await shot('compare-eager-slowed');
  await check('a speedup up because eager slowed is explained', async () => {
    const data = await (await fetch(`${base}/api/v1/compare?${pair}`)).json();
    const key = (c) => [c.suite, c.dtype, c.mode, c.model].join('|');
    const ms = (v) => v.toFixed(1);
    const slowedEager = data.cases.filter((c) => c.base_speedup > 0 && c.target_speedup > c.base_speedup &&
      c.eager_ratio < data.thresholds.regression);
    assert.deepEqual(slowedEager.map((c) => c.model).sort(), ['lennard_jones', 'maml'], 'the demo has two such cases');
    const shown = new Map(await page.$$eval('.compare-table tbody tr', (trs) => trs.map((tr) => {
      const cells = [...tr.querySelectorAll('td')].map((td) => td.textContent);
      const note = tr.querySelector('.speedup-note');
      return [cells.slice(0, 4).join('|'), { cls: tr.className, note: note && note.textContent, pill: tr.querySelector('.pill')?.className }];
    })));
    for (const c of slowedEager) {
      const row = shown.get(key(c));
      assert.ok(row, `${key(c)} is listed`);
      assert.equal(row.note, `speedup up because eager slowed: eager ${ms(c.base_eager_ms)}→${ms(c.target_eager_ms)} ms, ` +
        `inductor ${ms(c.base_compiled_ms)}→${ms(c.target_compiled_ms)} ms`, `${key(c)} says why its speedup went up`);
      // eager getting slower is a worse change: the server calls the case a regression, and the page agrees
      assert.equal(c.verdict, 'regression', `${key(c)}: the server's verdict`);
      assert.ok(c.changes.some((x) => x.change === 'eager_slower' && x.worse), `${key(c)}: eager_slower is a worse change`);
      assert.match(row.pill, /\bbad\b/, `${key(c)}'s pill is the regression's`);
    }
    for (const c of data.cases) {
      const row = shown.get(key(c));
      assert.ok(row, `${key(c)} is listed`);
      const want = c.verdict === 'regression' ? 'bad' : c.verdict === 'improvement' ? 'good' : null;
      if (want) assert.match(row.pill, new RegExp(`\\b${want}\\b`), `${key(c)}: ${c.verdict} is coloured ${want}`);
      else assert.doesNotMatch(row.pill, /\b(bad|good)\b/, `${key(c)}: ${c.verdict} is neither red nor green`);
      if (!slowedEager.includes(c)) assert.equal(row.note, null, `${key(c)}: no eager note`);
      // A case that became slower than eager is never called an improvement.
      if (c.changes.some((x) => x.change === 'newly_slower_than_eager')) assert.equal(c.verdict, 'regression', key(c));
    }
  });

  // --- Case: the open tracker issue that lists the case (the seed issue names its 11 cases) ---
  step = 'case linked issues';
  await go('#/case?platform=BMG&suite=huggingface&model=ElectraForQuestionAnswering&dtype=bfloat16&mode=inference');
  await check('the Electra case lists the seed issue #3761, as the API does', async () => {
    const answer = await (await fetch(`${base}/api/v1/explain/BMG/huggingface/bfloat16/inference/ElectraForQuestionAnswering`)).json();
    assert.ok(answer.issues.some((i) => i.number === 3761), `the API links #3761: ${JSON.stringify(answer.issues)}`);
    const shown = await page.$$eval('tr.linked-issue', (trs) => trs.map((tr) => ({ ref: tr.querySelector('a').textContent, href: tr.querySelector('a').getAttribute('href') })));
    assert.deepEqual(shown, answer.issues.map((i) => ({ ref: i.ref, href: i.url })));
    assert.ok(shown.some((i) => i.ref === 'intel/torch-xpu-ops#3761'), 'a .linked-issue row for #3761');
  });

  // --- Backlog: open and fixed ---
  step = 'backlog';
  await go('#/backlog?platform=BMG');
  assert.ok(await rows('.backlog-table') >= 5, 'BMG has open slower-than-eager cases');
  await act(() => page.selectOption('select[name="status"]', 'fixed'));
  assert.equal(hashParams().get('status'), 'fixed');
  const fixed = await page.locator('.backlog-table').innerText();
  assert.match(fixed, /lennard_jones/);
  assert.match(fixed, /maml/);
  await go('#/backlog?platform=BMG&status=all');
  await shot('backlog');
  await check('each backlog row lists the open issues the API names for its case', async () => {
    const d = await (await fetch(`${base}/api/v1/backlog?platform=BMG`)).json();
    const key = (c) => [c.suite, c.dtype, c.mode, c.model].join('|');
    const want = new Map(d.cases.map((c) => [key(c), { text: c.issues.map((i) => `#${i.number}`).join(' '), hrefs: c.issues.map((i) => i.url) }]));
    const headers = await page.$$eval('.backlog-table thead th', (ths) => ths.map((th) => th.textContent));
    assert.equal(headers.at(-1), 'issues');
    const shown = await page.$$eval('.backlog-table tbody tr, .known-table tbody tr', (trs) => trs.map((tr) => {
      const cells = [...tr.querySelectorAll('td')];
      const issues = tr.querySelector('td.case-issues');
      return { key: cells.slice(0, 4).map((td) => td.textContent).join('|'), text: issues.textContent,
        hrefs: [...issues.querySelectorAll('a')].map((a) => a.getAttribute('href')) };
    }));
    assert.equal(shown.length, d.cases.length, 'status=all lists every case of the API');
    for (const row of shown) assert.deepEqual({ text: row.text, hrefs: row.hrefs }, want.get(row.key), row.key);
  });
  await check('the compile-time and memory regressions of the two newest runs are the API\'s', async () => {
    const latest = (await (await fetch(`${base}/api/v1/backlog?platform=BMG`)).json()).latest_regressions;
    assert.ok(latest, 'BMG has two runs with results');
    for (const [cls, list, field] of [['compile-regressions', latest.compile_time, 'target_compilation_s'], ['memory-regressions', latest.memory, 'target_compression_ratio']]) {
      const heading = await page.locator(`h2:has(+ table.${cls})`).textContent();
      assert.ok(heading.endsWith(`${latest.base_run} → ${latest.target_run}`), heading);
      const models = await page.$$eval(`table.${cls} tbody tr`, (trs) => trs.filter((tr) => !tr.querySelector('td[colspan]'))
        .map((tr) => [tr.children[3].textContent, Number(tr.children[5].textContent)]));
      assert.deepEqual(models, list.map((c) => [c.model, Number(c[field].toFixed(3))]));
    }
  });
  await go('#/backlog?platform=BMG');

  // --- Token: the bot's outbox needs a token with scope bot; the page asks for one and uses the one pasted ---
  step = 'token prompt';
  await go('#/issues');
  assert.equal(await page.locator('#token-form').getAttribute('data-state'), 'needed');
  assert.match(await page.locator('.page-issues .error').innerText(), /scope 'bot'/);
  const created = spawnSync(binary, ['token', 'create', '--db', path.join(work, 'demo.sqlite'), '--name', 'dashboard',
    '--scope', 'bot', '--json'], { encoding: 'utf8' });
  assert.equal(created.status, 0, created.stderr);
  const botToken = JSON.parse(created.stdout).token;

  // --- Issues: labeled issues and the outbox ---
  step = 'issues';
  await act(async () => {
    await page.fill('#token-input', botToken);
    await page.press('#token-input', 'Enter');
  });
  assert.equal(await page.evaluate(() => sessionStorage.getItem('perftriage.token')), botToken);
  assert.equal(await page.evaluate(() => document.cookie), '', 'the token is never a cookie');
  assert.equal(await page.locator('#token-input').inputValue(), '', 'the field does not keep the token');
  assert.equal(await rows('.issues-table'), 4);
  await check('what maintainers kept: one row per label the API counts, with its numbers', async () => {
    const fb = await (await fetch(`${base}/api/v1/issues/labels`)).json();
    assert.ok(fb.labels.some((l) => l.removed > 0) && fb.labels.some((l) => l.added > 0), `the demo removes and adds one: ${JSON.stringify(fb.labels)}`);
    const shown = await page.$$eval('.feedback-table tr.feedback-row', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    assert.deepEqual(shown.map((r) => [r[1], ...r.slice(3, 8).map(Number)]),
      fb.labels.map((l) => [l.label, l.applied, l.kept, l.removed, l.added, l.suggested_then_added]));
    const headings = await page.$$eval('.page-issues h2', (hs) => hs.map((h) => h.textContent));
    assert.ok(headings.indexOf('What maintainers kept') < headings.indexOf('Labeled issues'), `above the list: ${headings}`);
  });
  const titles = await page.$$eval('.issue-title', (ts) => ts.map((t) => t.textContent));
  assert.ok(titles.includes('Crash in <script>alert(1)</script> on BMG with torch.compile'), 'markup title is text');
  assert.equal(await page.locator('main script').count(), 0);
  assert.ok(await page.locator('.issues-table li').count() >= 4, 'axes with reasons');
  await check('an axis label carries its axis prefix once', async () => {
    const labels = await page.$$eval('.issues-table li b', (bs) => bs.map((b) => b.textContent));
    assert.deepEqual(labels.filter((l) => /^([^:]+): \1:/i.test(l)), [], 'no label repeats its axis');
    assert.ok(labels.includes('module: inductor'), `module: inductor is listed: ${labels}`);
    assert.ok(labels.includes('type: Bug'), `a value without the prefix gets it: ${labels}`);
  });
  const states = await page.$$eval('.outbox-table tbody .pill', (ps) => [...new Set(ps.map((p) => p.textContent))].sort());
  // The demo never talks to GitHub: every action it wrote is dry_run.
  assert.deepEqual(states, ['dry_run']);
  await shot('issues');
  await act(() => page.selectOption('select[name="state"]', 'pending'));
  assert.equal(hashParams().get('state'), 'pending');
  assert.equal(await rows('.outbox-table'), 0);
  await act(() => page.selectOption('select[name="state"]', 'dry_run'));
  assert.equal(hashParams().get('state'), 'dry_run');
  assert.equal(await rows('.outbox-table'), 8);

  // --- Escaping: the model named <img src=x onerror=alert(1)> ---
  step = 'markup model';
  await go('#/run?run=pvc-nightly-20260813&suite=torchbench&mode=inference');
  const names = await page.$$eval('.slow-table a.case-link', (as) => as.map((a) => a.textContent));
  assert.ok(names.includes(MARKUP_MODEL), `the markup model is listed as text: ${names}`);
  assert.equal(await page.locator('main img').count(), 0, 'no <img> element was created');
  await act(() => page.locator('.slow-table a.case-link', { hasText: MARKUP_MODEL }).click());
  assert.ok(new URL(page.url()).hash.startsWith('#/case'));
  assert.equal(await page.locator('.case-model').textContent(), MARKUP_MODEL);
  assert.equal(await page.locator('.artifact-name').first().textContent(), '<b>markup</b>.json');
  assert.equal(await page.locator('main img, main b:not(li b)').count(), 0, 'no markup element from data');
  await shot('case-markup');
}

let code = 0;
try {
  await main();
  if (failures.length) {
    code = 1;
    console.error('FAILED:\n' + failures.join('\n'));
  } else {
    console.log('browser test passed: overview, run, compare, case, backlog, issues; no console errors');
    console.log(`screenshots: ${shots}`);
  }
} catch (e) {
  code = 1;
  console.error(`FAILED at step "${step}": ${e.stack || e}`);
  if (failures.length) console.error(failures.join('\n'));
} finally {
  if (context) await context.close().catch(() => {});
  server.child.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
}
process.exit(code);
