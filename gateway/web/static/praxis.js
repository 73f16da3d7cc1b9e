// The practice's reception desk: doctors, staff and admins see their
// practice's doctors side by side for a day (block, attendance, booking for
// a caller) or a week's counts. German, English and Turkish
// (praxis-texts.js); times in the practice's zone whatever the device's. It
// talks to the same API as any client, signs in as the patient page does
// (signin.js) and keeps its token in the tab.
'use strict';

(function () {
  const TOKEN = 'termin.praxis.token';
  const PENDING = 'termin.praxis.pending';
  const PRACTICE = 'termin.praxis.practice';
  const L = window.TerminPraxisLocale;
  const t = L.t, addDays = L.addDays, today = L.today;
  const fmt = { t: t, time: L.time, date: L.date };
  const view = window.TerminPraxisView;
  const $ = function (id) { return document.getElementById(id); };
  const signin = window.TerminSignIn;
  const people = window.TerminPraxisDoctors;
  const claims = people.claims, roleOf = people.roleOf, usable = people.usable;
  const state = { role: '', me: {}, practice: 0, practices: [], all: [], doctors: [],
    view: 'day', scope: 'all', days: {}, week: {}, notice: null };

  // notify shows a notice made anew in each language the page switches to.
  function notify(make, problem) {
    state.notice = make ? { make: make, problem: problem } : null;
    const n = $('notice');
    n.hidden = !make;
    if (!make) return;
    n.textContent = make();
    n.className = problem ? 'notice problem' : 'notice';
  }

  // apply puts the texts of the current language into the page.
  function apply() {
    document.documentElement.lang = L.lang();
    document.title = t('title');
    document.querySelectorAll('[data-t]').forEach(function (e) { e.textContent = t(e.dataset.t); });
    document.querySelectorAll('[data-t-aria]').forEach(function (e) { e.setAttribute('aria-label', t(e.dataset.tAria)); });
    document.querySelectorAll('#p-langs button').forEach(function (b) { b.setAttribute('aria-pressed', String(b.dataset.lang === L.lang())); });
    if (state.why) $('p-signin-why').textContent = t(state.why);
    if (state.notice) notify(state.notice.make, state.notice.problem);
    if (state.role) showWho();
    render();
  }

  function setLang(l) {
    L.set(l);
    apply();
  }

  // api sends one request and answers {status, body, retryAfter}; a lost
  // connection is status 0.
  async function api(method, path, body, key) {
    const headers = { Authorization: 'Bearer ' + signin.token() };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (key) headers['Idempotency-Key'] = key;
    let res;
    try {
      res = await fetch(path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (e) {
      return { status: 0, body: null, retryAfter: 1 };
    }
    let data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    if (res.status === 401) signOut('tokenRefused');
    return { status: res.status, body: data, retryAfter: Number(res.headers.get('Retry-After')) || 1 };
  }

  function problem(r) {
    const code = r.body && r.body.code;
    notify(function () {
      if (r.status === 0) return t('offline');
      return code && L.has(code) ? t(code) : t('failed', { status: r.status });
    }, true);
  }

  // signOut shows the sign-in again, the token dropped: the provider's
  // button, or the field for a pasted token.
  function signOut(why) {
    signin.drop();
    state.role = '';
    state.why = why || '';
    ['p-desk', 'p-signout', 'p-who'].forEach(function (id) { $(id).hidden = true; });
    $('p-signin').hidden = false;
    $('p-signin-form').hidden = signin.provider();
    $('p-signin-provider').hidden = !signin.provider();
    $('p-signin-why').textContent = t(state.why || 'signinWhy');
  }

  function signIn(tok) {
    tok = (tok || '').trim();
    if (!usable(tok)) {
      signOut('signinWrongRole');
      return;
    }
    signin.paste(tok);
    signedIn();
  }

  function showWho() {
    const c = state.me;
    const role = t({ admin: 'roleAdmin', staff: 'roleStaff', doctor: 'roleDoctor' }[state.role]);
    const name = c.name || c.preferred_username || c.sub || '';
    const p = state.practices.find(function (x) { return x.id === state.practice; });
    const practice = state.practice ? (p && p.name) || t('practiceN', { id: state.practice }) : '';
    $('p-who').textContent = practice ? t('whoAt', { name: name, role: role, practice: practice }) : t('who', { name: name, role: role });
    $('p-who').hidden = false;
  }

  async function signedIn() {
    state.me = claims(signin.token()) || {};
    state.role = roleOf(state.me);
    state.why = '';
    $('p-signin').hidden = true;
    $('p-desk').hidden = false;
    $('p-signout').hidden = false;
    if (!$('p-date').value) $('p-date').value = today();
    showWho();
    await people.load(state, api, problem);
    practiceChosen();
  }

  // practiceChosen takes the doctors of the chosen practice as the columns.
  function practiceChosen() {
    state.doctors = state.all.filter(function (d) { return state.role === 'doctor' || d.practice === state.practice; });
    $('p-practice-field').hidden = state.role !== 'admin';
    showWho();
    fillScope();
    if (state.role === 'admin' && !state.practice) notify(function () { return t('pickPractice'); });
    else if (!state.doctors.length) notify(function () { return t('noDoctors'); });
    load();
  }

  function fillScope() {
    const sel = $('p-scope');
    sel.textContent = '';
    const all = new Option(t('scopeAll'), 'all');
    sel.appendChild(all);
    columns().forEach(function (d) { sel.appendChild(new Option(d.name, String(d.id))).translate = !d.named; });
    if (state.doctors.length === 1) state.scope = String(state.doctors[0].id);
    if (!state.doctors.some(function (d) { return String(d.id) === state.scope; })) state.scope = 'all';
    sel.value = state.scope;
    all.textContent = t('scopeAll');
  }

  function weekDates() {
    const day = $('p-date').value || today();
    const dow = (new Date(day + 'T12:00:00Z').getUTCDay() + 6) % 7; // Monday 0
    const from = addDays(day, -dow);
    return [0, 1, 2, 3, 4, 5, 6].map(function (i) { return addDays(from, i); });
  }

  // columns are the doctors shown, each named in the page's language when
  // it has no name on record.
  function columns() {
    return state.doctors.map(function (d) { return { id: d.id, name: d.name || t('doctorN', { id: d.id }), named: !!d.name }; });
  }

  function weekDoctors() {
    return columns().filter(function (d) { return state.scope === 'all' || String(d.id) === state.scope; });
  }

  // load fetches what the current view shows and draws it.
  async function load() {
    const date = $('p-date').value;
    if (!date || !state.doctors.length) { render(); return; }
    const asks = [];
    if (state.view === 'day') {
      state.days = {};
      state.doctors.forEach(function (d) { asks.push({ key: d.id, doctor: d.id, date: date, into: state.days }); });
    } else {
      state.week = {};
      weekDoctors().forEach(function (d) {
        weekDates().forEach(function (day) { asks.push({ key: d.id + '/' + day, doctor: d.id, date: day, into: state.week, reason: 'week overview' }); });
      });
    }
    const answers = await Promise.all(asks.map(function (a) {
      return api('GET', '/api/doctors/' + a.doctor + '/appointments?date=' + a.date + (a.reason ? '&reason=' + encodeURIComponent(a.reason) : ''));
    }));
    let failed = null;
    answers.forEach(function (r, i) {
      if (r.status === 200) asks[i].into[asks[i].key] = r.body;
      else failed = failed || r;
    });
    render();
    if (failed) problem(failed);
  }

  // render draws the current view from what was fetched, keeping the focus
  // on the same button when it is drawn again.
  function render() {
    const a = document.activeElement;
    const keep = a && a.closest && a.closest('.grid') && a.dataset.action ? a.dataset : null;
    const day = state.view === 'day';
    $('p-grid-wrap').hidden = !day;
    $('p-week-wrap').hidden = day;
    $('p-prev').textContent = t(day ? 'prevDay' : 'prevWeek');
    $('p-next').textContent = t(day ? 'nextDay' : 'nextWeek');
    $('p-view-day').setAttribute('aria-pressed', String(day));
    $('p-view-week').setAttribute('aria-pressed', String(!day));
    $('p-scope-field').hidden = day || state.doctors.length < 2;
    $('p-caller-title').hidden = $('p-caller').hidden = !day;
    if ($('p-scope').options.length) $('p-scope').options[0].textContent = t('scopeAll');
    people.fillPractices(state, t);
    if (!$('p-date').value || !state.doctors.length) {
      $('p-grid').textContent = $('p-week').textContent = $('p-summary').textContent = '';
      return;
    }
    if (day) {
      const c = view.day($('p-grid'), columns(), state.days, $('p-date').value, fmt);
      $('p-summary').textContent = t('summary', c);
      window.TerminPraxisCaller.fill();
    } else {
      const c = view.week($('p-week'), weekDoctors(), weekDates(), state.week, fmt);
      $('p-summary').textContent = t('summary', c);
    }
    if (keep) refocus(keep);
  }

  function refocus(d) {
    const sel = ['action', 'slot', 'appointment', 'doctor', 'date'].filter(function (k) { return d[k]; })
      .map(function (k) { return '[data-' + k + '="' + d[k] + '"]'; }).join('');
    const other = { block: 'unblock', unblock: 'block', 'block-day': 'unblock-day', 'unblock-day': 'block-day' }[d.action];
    const b = document.querySelector('.grid button' + sel) ||
      (other && document.querySelector('.grid button' + sel.replace('"' + d.action + '"', '"' + other + '"')));
    if (b) b.focus();
  }

  function act(b) {
    const d = b.dataset;
    if (d.action === 'block' || d.action === 'unblock') block(d.action, d.doctor, { slotId: Number(d.slot) });
    if (d.action === 'block-day' || d.action === 'unblock-day') block(d.action.replace('-day', ''), d.doctor, { date: $('p-date').value });
    if (d.action === 'attended') attendance(d.appointment, 'ATTENDED');
    if (d.action === 'noshow') attendance(d.appointment, 'NO_SHOW');
    if (d.action === 'book') window.TerminPraxisCaller.pick(d.doctor, d.slot);
    if (d.action === 'open-day') go(function () { $('p-date').value = d.date; state.view = 'day'; });
  }

  async function block(op, doctor, target) {
    const r = await api('POST', '/api/doctors/' + encodeURIComponent(doctor) + '/' + op, target);
    if (r.status !== 200) { problem(r); return; }
    const b = r.body;
    notify(op === 'block'
      ? function () { return t('blockedDone', { slots: b.slots.length, cancelled: b.cancelled.length }) + (b.pending.length ? ' ' + t('blockedLater', { n: b.pending.length }) : ''); }
      : function () { return t('unblockedDone', { slots: b.slots.length, offers: b.offers }); });
    await load();
  }

  async function attendance(id, mark) {
    const r = await api('POST', '/api/appointments/' + id + '/attendance', { attendance: mark });
    if (r.status !== 200) { problem(r); return; }
    notify(function () { return t(mark === 'NO_SHOW' ? 'markedNoShow' : 'markedAttended'); });
    await load();
  }

  // go shows another day, week or view; the notice of what was done before
  // goes.
  function go(change) {
    notify(null);
    change();
    load();
  }

  function step(n) {
    $('p-date').value = addDays($('p-date').value || today(), state.view === 'day' ? n : 7 * n);
  }

  function wire() {
    $('p-langs').addEventListener('click', function (e) { const b = e.target.closest('button'); if (b) setLang(b.dataset.lang); });
    $('p-signin-form').addEventListener('submit', function (e) { e.preventDefault(); signIn($('p-token').value); });
    $('p-signin-provider').addEventListener('click', function () { signin.signIn(); });
    $('p-signout').addEventListener('click', function () { signin.signOut(); signOut(''); });
    signin.onRenewed(function (tok) { if (!tok) signOut('signinExpired'); });
    $('p-pick').addEventListener('submit', function (e) { e.preventDefault(); load(); });
    $('p-date').addEventListener('change', function () { go(function () {}); });
    $('p-prev').addEventListener('click', function () { go(function () { step(-1); }); });
    $('p-next').addEventListener('click', function () { go(function () { step(1); }); });
    $('p-today').addEventListener('click', function () { go(function () { $('p-date').value = today(); }); });
    $('p-view-day').addEventListener('click', function () { go(function () { state.view = 'day'; }); });
    $('p-view-week').addEventListener('click', function () { go(function () { state.view = 'week'; }); });
    $('p-scope').addEventListener('change', function () { go(function () { state.scope = $('p-scope').value; }); });
    $('p-practice').addEventListener('change', function () {
      state.practice = Number($('p-practice').value) || 0;
      sessionStorage.setItem(PRACTICE, String(state.practice));
      notify(null);
      practiceChosen();
    });
    ['p-grid', 'p-week'].forEach(function (id) {
      $(id).addEventListener('click', function (e) { const b = e.target.closest('button'); if (b) act(b); });
      view.arrows($(id));
    });
    window.TerminPraxisCaller.wire(state, api, { t: t, fmt: fmt, columns: columns, notify: notify, problem: problem, load: load, pending: PENDING });
  }

  async function start() {
    wire();
    apply();
    const s = await signin.start('/praxis', TOKEN);
    if (!s.token || (!s.provider && !usable(s.token))) {
      signOut(s.error ? 'signinFailed' : '');
      return;
    }
    if (!roleOf(claims(s.token))) {
      signOut('signinWrongRole'); // a patient signed in at the provider
      return;
    }
    state.practice = Number(sessionStorage.getItem(PRACTICE)) || 0;
    await signedIn();
    window.TerminPraxisCaller.resume();
  }

  start();
}());
