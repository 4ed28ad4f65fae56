// Dashboard browser test: the real server (serve --demo on an ephemeral port, fresh database) and Debian's Chromium
// driven by playwright-core. Loads every page, applies filters, follows deep links, runs a comparison, opens cases,
// checks that markup in model names and issue titles renders as text, that nothing leaves 127.0.0.1, and that no
// console error or page error happened. Saves a screenshot of every page to $PERFTRIAGE_SCREENSHOTS.
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

function startServer() {
  const child = spawn(binary, ['serve', '--listen', '127.0.0.1:0', '--demo', '--db', path.join(work, 'demo.sqlite')],
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
  const watch = (p) => {
    // The token step provokes one 401 on purpose (Chromium logs it as a console error too).
    const expected = (text) => step === 'token prompt' && /\b401\b/.test(text);
    p.on('console', (m) => { if (m.type() === 'error' && !expected(m.text())) failures.push(`[${step}] console error: ${m.text()}`); });
    p.on('pageerror', (e) => failures.push(`[${step}] page error: ${e.message}`));
    p.on('dialog', async (d) => { failures.push(`[${step}] dialog opened (script ran): ${d.message()}`); await d.dismiss(); });
    p.on('response', (r) => { if (r.status() >= 400 && !expected(`${r.status()}`)) failures.push(`[${step}] HTTP ${r.status()} ${r.url()}`); });
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
  await shot('case');

  // --- Backlog: open and fixed ---
  step = 'backlog';
  await go('#/backlog?platform=BMG');
  assert.ok(await rows('.backlog-table') >= 5, 'BMG has open slower-than-eager cases');
  await act(() => page.selectOption('select[name="status"]', 'fixed'));
  assert.equal(hashParams().get('status'), 'fixed');
  const fixed = await page.locator('.backlog-table').innerText();
  assert.match(fixed, /lennard_jones/);
  assert.match(fixed, /maml/);
  await go('#/backlog?platform=BMG');
  await shot('backlog');

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
  const titles = await page.$$eval('.issue-title', (ts) => ts.map((t) => t.textContent));
  assert.ok(titles.includes('Crash in <script>alert(1)</script> on BMG with torch.compile'), 'markup title is text');
  assert.equal(await page.locator('main script').count(), 0);
  assert.ok(await page.locator('.issues-table li').count() >= 4, 'axes with reasons');
  const states = await page.$$eval('.outbox-table tbody .pill', (ps) => [...new Set(ps.map((p) => p.textContent))].sort());
  // The demo never talks to GitHub (issue 11): every action it wrote is dry_run.
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
