// The page's side of the API: who is signed in (the token comes from
// signin.js), the one pending booking with its Idempotency-Key, and fetch
// with problem+json and Retry-After read.
'use strict';

window.TerminApi = (function () {
  const PENDING = 'termin.pending';
  const MINE = 'termin.mine.';
  const TIMEOUT_MS = 20000;
  const signin = window.TerminSignIn;
  let patientId = 0;

  // claims decodes the token's payload; the server checks the signature.
  function claims(tok) {
    try {
      const part = tok.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
      return JSON.parse(decodeURIComponent(escape(atob(part))));
    } catch (e) {
      return null;
    }
  }

  // signIn keeps a pasted token of a patient whose expiry lies ahead (a
  // gateway without a sign-in provider); it answers 'ok', 'expired' or 'bad'.
  function signIn(tok) {
    tok = (tok || '').trim();
    const c = claims(tok);
    if (!c || c.role !== 'patient' || !/^[1-9][0-9]{0,17}$/.test(String(c.sub))) return 'bad';
    if (typeof c.exp === 'number' && c.exp * 1000 < Date.now()) return 'expired';
    signin.paste(tok);
    return 'ok';
  }

  // identify finds the signed-in patient's id: a pasted token names it, a
  // provider's patient is asked for (GET /api/patients/me). It answers the
  // API's answer ({status: 200} for a pasted token); patient() is 0 unless
  // it found one.
  async function identify() {
    patientId = 0;
    const tok = signin.token();
    if (!tok) return { status: 401 };
    if (!signin.provider()) {
      const c = claims(tok);
      if (c && !(typeof c.exp === 'number' && c.exp * 1000 < Date.now())) patientId = Number(c.sub) || 0;
      return { status: patientId ? 200 : 401 };
    }
    const r = await call('GET', '/api/patients/me');
    if (r.ok && r.body && r.body.id > 0) patientId = r.body.id;
    return r;
  }

  // signOut drops the pending request and the token; with a provider the
  // browser then goes there to end its session.
  function signOut() {
    patientId = 0;
    sessionStorage.removeItem(PENDING);
    return signin.signOut();
  }

  // patient is the signed-in patient's id, or 0.
  function patient() {
    return signin.token() ? patientId : 0;
  }

  // newKey makes an Idempotency-Key: 22 random URL-safe characters. It uses
  // getRandomValues, which unlike randomUUID works on plain http too.
  function newKey() {
    const b = new Uint8Array(16);
    crypto.getRandomValues(b);
    let s = '';
    b.forEach(function (x) { s += String.fromCharCode(x); });
    return 'web-' + btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  // The pending request is the booking (or move) the patient intends: its
  // key stays the same across repeats and reloads until it is decided.
  function pending() {
    try {
      const p = JSON.parse(sessionStorage.getItem(PENDING) || 'null');
      return p && p.patient === patient() && /^[A-Za-z0-9_-]{1,64}$/.test(p.key) ? p : null;
    } catch (e) {
      return null;
    }
  }

  function intend(what) {
    const p = pending();
    if (p && p.kind === what.kind && p.slotId === what.slotId && p.apptId === what.apptId &&
      String(p.slotIds || '') === String(what.slotIds || '')) return p;
    const fresh = Object.assign({}, what, { key: newKey(), patient: patient(), since: Date.now() });
    sessionStorage.setItem(PENDING, JSON.stringify(fresh));
    return fresh;
  }

  function settle(p) {
    const now = pending();
    if (now && now.key === p.key) sessionStorage.removeItem(PENDING);
  }

  // call sends one request. The answer is {status, ok, body, code,
  // retryAfter}; status 0 means the server was not reached.
  async function call(method, path, opts) {
    opts = opts || {};
    const headers = { Accept: 'application/json' };
    const token = signin.token();
    if (token) headers.Authorization = 'Bearer ' + token;
    if (opts.key) headers['Idempotency-Key'] = opts.key;
    if (opts.body) headers['Content-Type'] = 'application/json';
    const abort = new AbortController();
    const timer = setTimeout(function () { abort.abort(); }, TIMEOUT_MS);
    try {
      const res = await fetch(path, {
        method: method, headers: headers, cache: 'no-store', credentials: 'omit', signal: abort.signal,
        body: opts.body ? JSON.stringify(opts.body) : undefined
      });
      const text = await res.text();
      let body = null;
      try { body = text ? JSON.parse(text) : null; } catch (e) { body = null; }
      return {
        status: res.status, ok: res.ok, body: body,
        code: body && typeof body.code === 'string' ? body.code : '',
        retryAfter: retryAfter(res.headers.get('Retry-After'), body)
      };
    } catch (e) {
      return { status: 0, ok: false, body: null, code: '', retryAfter: 3 };
    } finally {
      clearTimeout(timer);
    }
  }

  // retryAfter reads the header (seconds), else the body's field, bounded
  // so that a strange value neither hammers nor stalls.
  function retryAfter(header, body) {
    let n = parseInt(header, 10);
    if (!(n > 0) && body && body.retryAfterSeconds > 0) n = body.retryAfterSeconds;
    return Math.min(Math.max(n || 1, 1), 60);
  }

  // send submits the pending request, always with its one key.
  function send(p) {
    if (p.kind === 'move') {
      return call('POST', '/api/appointments/' + p.apptId + '/reschedule', { key: p.key, body: { slotId: p.slotId } });
    }
    const many = p.slotIds && p.slotIds.length > 1;
    return call('POST', '/api/appointments', { key: p.key, body: many ? { slotIds: p.slotIds, patientId: p.patient } : { slotId: p.slotId, patientId: p.patient } });
  }

  // remember keeps what the page knows of an appointment it booked, for a
  // server without the list of one's appointments.
  function remember(a) {
    const list = remembered().filter(function (x) { return x.id !== a.id; });
    list.push(a);
    localStorage.setItem(MINE + patient(), JSON.stringify(list.slice(-50)));
  }

  function remembered() {
    try {
      const list = JSON.parse(localStorage.getItem(MINE + patient()) || '[]');
      return Array.isArray(list) ? list : [];
    } catch (e) {
      return [];
    }
  }

  function forget(id) {
    localStorage.setItem(MINE + patient(), JSON.stringify(remembered().filter(function (x) { return x.id !== id; })));
  }

  return {
    signIn: signIn, identify: identify, signOut: signOut, patient: patient, pending: pending, intend: intend, settle: settle,
    call: call, send: send, remember: remember, remembered: remembered, forget: forget
  };
})();
