// perftriage dashboard: one page app over the JSON API. No framework, no build step, no network beyond this server.
// Native ES modules: dom.js (DOM and formatting helpers), hash.js (URL state), api.js (fetch, token, errors),
// charts.js (SVG charts) and one page-*.js per page. This module is the router: it renders the page the hash names.
// Safety rule: data never goes through innerHTML; every node is built with createElement / textContent (dom.js).
// State rule: every filter and selection lives in the hash (#/page?key=value...), so a link reproduces the view.
import { apiToken, errorBox, setApiToken, showTokenState } from './api.js';
import { clear, el } from './dom.js';
import { parseHash } from './hash.js';
import { backlogPage } from './page-backlog.js';
import { casePage } from './page-case.js';
import { comparePage } from './page-compare.js';
import { issuesPage } from './page-issues.js';
import { overviewPage } from './page-overview.js';
import { runPage } from './page-run.js';
import { trendsPage } from './page-trends.js';

const pages = { overview: overviewPage, trends: trendsPage, run: runPage, compare: comparePage, case: casePage, backlog: backlogPage,
  issues: issuesPage };

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
  const fn = pages[page] || overviewPage;
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

// The header's token form: a pasted token replaces the one in use and the view renders again with it.
function setupTokenForm() {
  const form = document.getElementById('token-form');
  if (!form) return;
  const use = (token) => { setApiToken(token); render(); };
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const input = document.getElementById('token-input');
    const token = input.value.trim();
    input.value = '';
    if (token) use(token);
  });
  document.getElementById('token-forget').addEventListener('click', () => use(''));
  showTokenState(apiToken() ? 'set' : 'none');
}

window.addEventListener('hashchange', render);
setupTokenForm();
render();
