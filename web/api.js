// The JSON API: fetch helpers, the API token (sessionStorage, sent as `Authorization: Bearer`), status and errors.
import { el } from './dom.js';

export const API = '/api/v1';

export class ApiError extends Error {
  constructor(status, message, code) { super(message); this.status = status; this.code = code; }
}

// The API token, pasted once into the header's form: kept in sessionStorage (this tab only, gone when it closes) and
// sent as `Authorization: Bearer` on every request, never as a cookie, so a request another site makes carries nothing.
const TOKEN_KEY = 'perftriage.token';

export function apiToken() {
  try { return sessionStorage.getItem(TOKEN_KEY) || ''; } catch { return ''; }
}

// The header form's state: none | set | needed (a 401 asked for a token) | scope (a 403: the token lacks the scope).
export function showTokenState(state) {
  const form = document.getElementById('token-form');
  if (!form) return;
  form.dataset.state = state;
  document.getElementById('token-forget').hidden = !apiToken();
  document.getElementById('token-input').placeholder = apiToken() ? 'token in use (paste to replace)' : 'paste a token';
}

export function setApiToken(token) {
  try {
    if (token) sessionStorage.setItem(TOKEN_KEY, token); else sessionStorage.removeItem(TOKEN_KEY);
  } catch { /* storage disabled: the token lasts until the page reloads */ }
  showTokenState(token ? 'set' : 'none');
}

export function setStatus(text) { const s = document.getElementById('status'); if (s) s.textContent = text; }

async function errorOf(res) {
  let message = `${res.status} ${res.statusText}`;
  let code = '';
  try {
    const body = await res.json();
    if (body && body.error) { message = body.error.message || message; code = body.error.code || ''; }
  } catch { /* not JSON */ }
  return new ApiError(res.status, message, code);
}

// GET API + path: the parsed JSON (or the text with { text: true }); throws ApiError for any status >= 400.
export async function api(path, { text = false } = {}) {
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
  if (!res.ok) throw await errorOf(res);
  return text ? res.text() : res.json();
}

// PUT API + path with a JSON body (a triage decision): the parsed answer; throws ApiError for any status >= 400.
export async function putJson(path, body) {
  const headers = { Accept: 'application/json', 'Content-Type': 'application/json' };
  const token = apiToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(API + path, { method: 'PUT', headers, credentials: 'omit', body: JSON.stringify(body) });
  setStatus(`${path.split('?')[0]} ${res.status}`);
  if (res.status === 401 || res.status === 403) showTokenState(res.status === 401 ? 'needed' : 'scope');
  if (!res.ok) throw await errorOf(res);
  return res.json();
}

// The runs and platforms for the pickers.
export async function runsBrief(platform = '') {
  return api(`/dashboard/runs?limit=1000${platform ? '&platform=' + encodeURIComponent(platform) : ''}`);
}

// What maintainers did to the bot's labels, per repository and label ('' = every repository).
export async function labelFeedback(repo = '') {
  return api(`/issues/labels${repo ? '?repo=' + encodeURIComponent(repo) : ''}`);
}

export function errorBox(e) { return el('div', { class: 'error', role: 'alert', text: e.message || String(e) }); }
