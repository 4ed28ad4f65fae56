// URL state: every filter and selection lives in the hash (#/page?key=value...), so a link reproduces the view.

export function parseHash() {
  const h = location.hash.replace(/^#\/?/, '');
  const [page, query] = h.split('?');
  return { page: page || 'overview', params: new URLSearchParams(query || '') };
}

export function link(page, params = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, v);
  const s = q.toString();
  return `#/${page}${s ? '?' + s : ''}`;
}

export function navigate(page, params) { location.hash = link(page, params); }

// Replace some parameters of the current view ('' / null / undefined removes one).
export function update(changes) {
  const { page, params } = parseHash();
  const next = Object.fromEntries(params.entries());
  for (const [k, v] of Object.entries(changes)) {
    if (v === '' || v === null || v === undefined) delete next[k]; else next[k] = v;
  }
  navigate(page, next);
}
