// The patient page: sign-in, doctor → day → time → booking, the waiting
// room, the result. "My appointments" lives in mine.js. Times are shown in
// the clinic's zone, whatever the device's zone.
'use strict';

window.Termin = (function () {
  const TEXTS = window.TerminTexts;
  const api = window.TerminApi;
  const ZONE = 'Europe/Berlin';
  const DAYS = 14;
  const ALTERNATIVES = 3;
  // ALT_TRIES bounds how often one day's free times are asked for again
  // after a busy server's Retry-After before the page says it cannot look.
  const ALT_TRIES = 4;
  // ALT_TEXTS says where the search for alternatives stands; 'shown' lists them.
  const ALT_TEXTS = { loading: 'altsLoading', none: 'altsNone', failed: 'altsFailed', shown: '' };
  const $ = function (id) { return document.getElementById(id); };
  const state = {
    lang: window.TerminLang.initial(),
    doctors: [], listed: null, doctor: null, date: '', slots: null, slotsError: '',
    moving: null, run: 0, slotsReq: 0, wait: null, result: null, view: '', provider: false
  };

  // --- texts and times -----------------------------------------------------

  function t(key, vars) {
    let s = TEXTS[state.lang][key];
    if (s === undefined) s = TEXTS.de[key] || key;
    Object.keys(vars || {}).forEach(function (k) { s = s.split('{' + k + '}').join(String(vars[k])); });
    return s;
  }

  function problemText(r) {
    if (r.status === 0) return t('network');
    return TEXTS[state.lang].problems[r.code] || t('unknownProblem', { status: r.status });
  }

  function fmt(date, opts, zone) {
    return new Intl.DateTimeFormat(window.TerminLang.locale(state.lang), Object.assign({ timeZone: zone || ZONE }, opts)).format(date);
  }
  function timeOf(iso) { return fmt(new Date(iso), { hour: '2-digit', minute: '2-digit' }); }
  function dateOf(iso) { return fmt(new Date(iso), { weekday: 'long', day: 'numeric', month: 'long' }); }
  function whenOf(iso) { return t('dateTime', { date: dateOf(iso), time: timeOf(iso) }); }

  // clinicDay is the date (YYYY-MM-DD) of an instant in the clinic's zone.
  function clinicDay(date) {
    const p = {};
    new Intl.DateTimeFormat('en-GB', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit' })
      .formatToParts(date).forEach(function (x) { p[x.type] = x.value; });
    return p.year + '-' + p.month + '-' + p.day;
  }

  function doctorName(id, fallback) {
    const d = state.doctors.find(function (x) { return x.id === id; });
    return (d && d.name) || fallback || t('doctorUnnamed', { id: id });
  }

  function whatText(p) {
    if (p.choices && p.choices.length > 1 && !p.decided) return window.TerminChoose.what(p);
    return t('whatSlot', { doctor: doctorName(p.doctorId, p.doctorName), date: dateOf(p.startAt), time: timeOf(p.startAt) });
  }

  // --- small DOM helpers -----------------------------------------------------

  function el(tag, attrs, children) {
    const e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === 'text') e.textContent = attrs[k];
      else if (k === 'onclick') e.addEventListener('click', attrs[k]);
      else e.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) e.appendChild(c); });
    return e;
  }

  function hint(id, text) {
    $(id).textContent = text || '';
    $(id).hidden = !text;
  }

  // notice shows a message above the view and has it said, once: a
  // message shown again while it stands (a repeated "queued") is not.
  function notice(text, problem) {
    const n = $('notice');
    const again = !n.hidden && n.textContent === text;
    n.textContent = text || '';
    n.className = problem ? 'notice problem' : 'notice';
    n.hidden = !text;
    if (text && !again) announce(text, problem);
  }

  // announce has a screen reader say text: politely (role=status), or at
  // once for a failure (role=alert). The two regions are always in the
  // page and empty between messages, as screen readers need to notice a
  // change; a message said again is said anew.
  function announce(text, urgent) {
    const on = $(urgent ? 'live-alert' : 'live-status'), off = $(urgent ? 'live-status' : 'live-alert');
    off.textContent = '';
    on.textContent = '';
    on.appendChild(document.createTextNode(text));
  }

  function show(view, keepFocus) {
    ['signin', 'book', 'confirm', 'wait', 'result', 'mine', 'profile'].forEach(function (v) { $('v-' + v).hidden = v !== view; });
    state.view = view;
    $('nav-book').setAttribute('aria-current', view === 'book' ? 'page' : 'false');
    $('nav-mine').setAttribute('aria-current', view === 'mine' ? 'page' : 'false');
    $('nav-profile').setAttribute('aria-current', view === 'profile' ? 'page' : 'false');
    if (view !== 'wait') document.title = t('brand');
    if (!keepFocus) $('v-' + view).querySelector('h1').focus();
  }

  function sleep(ms) { return new Promise(function (r) { setTimeout(r, ms); }); }

  // --- language --------------------------------------------------------------

  function applyTexts() {
    document.documentElement.lang = state.lang;
    document.querySelectorAll('[data-t]').forEach(function (e) { e.textContent = t(e.getAttribute('data-t')); });
    document.querySelectorAll('[data-t-aria]').forEach(function (e) { e.setAttribute('aria-label', t(e.getAttribute('data-t-aria'))); });
    window.TerminLang.mark(state.lang);
    const id = api.patient();
    $('who').textContent = id ? t('signedInAs', { id: id }) : '';
    if (state.view !== 'wait') document.title = t('brand');
  }

  function switchLanguage(lang) {
    if (!window.TerminLang.known(lang)) return;
    state.lang = lang;
    window.TerminLang.remember(lang);
    applyTexts();
    renderBooking();
    renderWait();
    renderResult();
    window.TerminMine.render();
    window.TerminProfile.render();
  }

  // --- sign-in ---------------------------------------------------------------

  function start() {
    window.TerminLang.mount(switchLanguage);
    $('nav-book').addEventListener('click', function () { openBooking(null); });
    $('nav-mine').addEventListener('click', function () { window.TerminMine.open(); });
    $('nav-profile').addEventListener('click', function () { window.TerminProfile.open(); });
    $('result-mine').addEventListener('click', function () { window.TerminMine.open(); });
    $('result-again').addEventListener('click', function () { openBooking(null); });
    $('confirm-book').addEventListener('click', confirmChosen);
    $('confirm-back').addEventListener('click', confirmBack);
    $('signout').addEventListener('click', function () { signedOut(''); api.signOut(); });
    $('signin-form').addEventListener('submit', function (ev) { ev.preventDefault(); trySignIn($('signin-token').value); });
    $('signin-provider').addEventListener('click', function () { window.TerminSignIn.signIn(); });
    $('doctor-form').addEventListener('submit', function (ev) {
      ev.preventDefault();
      const id = Number($('doctor-id').value);
      if (id > 0) chooseDoctor({ id: id, name: '' });
    });
    applyTexts();
    window.TerminSignIn.onRenewed(function (tok) { if (!tok) expired(); });
    window.TerminSignIn.start('/', 'termin.token').then(function (s) {
      state.provider = s.provider;
      if (!s.token) return signedOut(s.error);
      identified();
    });
  }

  // identified shows the booking once the signed-in patient's id is known.
  async function identified() {
    const r = await api.identify();
    if (api.patient()) return signedIn();
    if (r.status === 401) return expired();
    signedOut(r.status === 0 ? 'network' : 'signinFailed');
  }

  function trySignIn(token) {
    const res = api.signIn(token);
    if (res === 'ok') return identified();
    signedOut(res === 'expired' ? 'signinExpired' : 'signinBad');
  }

  function signedOut(why) {
    state.run++;
    $('nav').hidden = true;
    $('signout').hidden = true;
    applyTexts();
    hint('signin-why', t(why || (state.provider ? 'signinProvider' : 'signinText')));
    $('signin-form').hidden = !!state.provider;
    $('signin-provider').hidden = !state.provider;
    notice('');
    show('signin');
  }

  function signedIn() {
    $('nav').hidden = false;
    $('signout').hidden = false;
    $('signin-token').value = '';
    applyTexts();
    loadDoctors();
    const p = api.pending();
    if (p) {
      state.doctor = { id: p.doctorId, name: p.doctorName };
      state.date = p.date;
      follow(p, true);
      return;
    }
    openBooking(null);
  }

  // expired answers a 401: the token is dropped, the pending request kept.
  function expired() {
    window.TerminSignIn.drop();
    signedOut('signinExpired');
  }

  // --- doctor, day, time -----------------------------------------------------

  // openBooking shows the booking steps; while a request waits for its
  // decision, the waiting room is shown instead, so that no second intent
  // (and key) can start beside it.
  function openBooking(moving) {
    if (state.wait) return show('wait');
    state.moving = moving;
    if (moving) {
      state.doctor = { id: moving.doctorId, name: moving.doctorName };
      state.date = clinicDay(new Date(moving.startAt));
    }
    if (state.doctor) loadSlots(); // the times as they are now, one's own marked
    notice('');
    renderBooking();
    show('book');
  }

  // loadDoctors starts with the search: every doctor, then as the patient
  // narrows it (search.js).
  function loadDoctors() {
    window.TerminSearch.loadSpecialties();
    window.TerminSearch.load(false);
  }

  function chooseDoctor(d) {
    state.doctor = d;
    state.date = state.date || clinicDay(new Date());
    renderBooking();
    loadSlots();
    $('day-title').focus();
  }

  // chooseDay lists the day's times and moves the focus to them, the next
  // step: the day's button it was on is drawn anew.
  function chooseDay(iso) {
    state.date = iso;
    renderBooking();
    loadSlots();
    $('slot-title').focus();
  }

  async function loadSlots() {
    const req = ++state.slotsReq;
    state.slots = null;
    state.slotsError = '';
    renderSlots();
    const doctor = state.doctor.id, date = state.date;
    const both = await Promise.all([api.call('GET', '/api/doctors/' + doctor + '/slots?date=' + date), api.call('GET', '/api/appointments')]);
    const r = both[0];
    if (req !== state.slotsReq) return;
    if (r.status === 401) return expired();
    state.slots = withMine(r.ok && r.body && Array.isArray(r.body.slots) ? r.body.slots : [], both[1], doctor, date);
    state.slotsError = r.ok ? '' : problemText(r);
    renderSlots();
  }

  // withMine marks the times of the day the patient already holds with
  // the doctor as theirs, adding those a full slot leaves out of the list:
  // they are the patient's, not free. A list the server cannot give leaves
  // the free times as they are.
  function withMine(slots, own, doctor, date) {
    const mine = own.ok && own.body && Array.isArray(own.body.appointments) ? own.body.appointments.filter(function (a) {
      return (a.status === 'BOOKED' || a.status === 'HELD') && a.doctorId === doctor && clinicDay(new Date(a.startAt)) === date;
    }) : [];
    const out = slots.map(function (s) {
      const a = mine.find(function (x) { return x.slotId === s.id; });
      return a ? Object.assign({}, s, { mine: a.status }) : s;
    });
    mine.forEach(function (a) {
      if (!out.some(function (s) { return s.id === a.slotId; })) out.push({ id: a.slotId, startAt: a.startAt, endAt: a.endAt, mine: a.status });
    });
    return out.sort(function (x, y) { return new Date(x.startAt) - new Date(y.startAt); });
  }

  function renderBooking() {
    const mv = state.moving;
    hint('resched-note', mv ? t('reschedFor', { when: whenOf(mv.startAt) }) : '');
    renderDoctors();
    $('step-day').hidden = !state.doctor;
    $('step-slot').hidden = !state.doctor;
    if (state.doctor) renderDays();
    renderSlots();
  }

  function renderDoctors() {
    const ul = $('doctors');
    ul.replaceChildren();
    const d = state.doctor;
    $('doctor-form').hidden = !!d || state.listed !== false;
    if (d) {
      $('search-form').hidden = true;
      hint('search-state', '');
      ul.appendChild(el('li', { class: 'chosen' }, [
        el('span', { class: 'stack' }, [
          el('span', { class: 'name', text: doctorName(d.id, d.name) }),
          d.specialty ? el('span', { class: 'sub', text: window.TerminSearch.specialtyName(d.specialty) }) : null
        ]),
        state.moving ? null : el('button', { type: 'button', class: 'link', text: t('change'), onclick: function () {
          state.doctor = null; state.slots = null; renderBooking(); $('doctor-title').focus();
        } })
      ]));
      return;
    }
    $('search-form').hidden = false;
    if (state.listed === null) ul.appendChild(el('li', { class: 'hint', text: t('doctorsLoading') }));
    window.TerminSearch.render(ul);
  }

  function renderDays() {
    const ul = $('days');
    ul.replaceChildren();
    const parts = clinicDay(new Date()).split('-').map(Number);
    for (let i = 0; i < DAYS; i++) {
      const noon = new Date(Date.UTC(parts[0], parts[1] - 1, parts[2] + i, 12));
      const iso = noon.toISOString().slice(0, 10);
      const top = i === 0 ? t('today') : i === 1 ? t('tomorrow') : fmt(noon, { weekday: 'short' }, 'UTC');
      // The name is the text shown, then the full date for a screen
      // reader (WCAG 2.5.3: a spoken command names what is seen).
      const b = el('button', { type: 'button', class: 'day', 'data-date': iso, 'aria-pressed': String(iso === state.date),
        onclick: function () { chooseDay(iso); } }, [
        el('span', { class: 'dow', text: top }),
        el('span', { class: 'dom', text: fmt(noon, { day: 'numeric', month: 'numeric' }, 'UTC') }),
        el('span', { class: 'sr-only', text: ', ' + fmt(noon, { weekday: 'long', day: 'numeric', month: 'long' }, 'UTC') })
      ]);
      ul.appendChild(el('li', {}, [b]));
    }
  }

  function renderSlots() {
    const ul = $('slots');
    ul.replaceChildren();
    if (!state.doctor) return;
    if (state.slots === null) {
      window.TerminChoose.render([], state.doctor, true);
      return hint('slots-state', t('slotsLoading'));
    }
    hint('slots-state', state.slotsError || (state.slots.length ? '' : t('slotsNone')));
    state.slots.forEach(function (s) { ul.appendChild(el('li', {}, [slotButton(s, state.doctor)])); });
    window.TerminChoose.render(state.slots, state.doctor, !!state.moving);
  }

  // slotButton is one bookable time; a slot not open yet says when it opens.
  function slotButton(s, doctor) {
    if (s.mine) {
      const own = t(s.mine === 'HELD' ? 'slotHeldByYou' : 'slotYours');
      return el('span', { class: 'slot mine', 'data-slot': s.id, 'data-mine': s.mine }, [
        el('span', { class: 'time', text: timeOf(s.startAt) }),
        el('span', { class: 'sub', text: own })
      ]);
    }
    const notes = [];
    if (s.opensAt && new Date(s.opensAt) > new Date()) {
      const same = clinicDay(new Date(s.opensAt)) === clinicDay(new Date());
      notes.push(same ? t('slotOpens', { time: timeOf(s.opensAt) }) : t('slotOpensOn', { date: fmt(new Date(s.opensAt), { day: 'numeric', month: 'numeric' }), time: timeOf(s.opensAt) }));
    }
    if (s.capacity > 1) notes.push(t('slotPlaces', { n: s.available }));
    // Named by what it shows, the time and its notes, in the list of times.
    return el('button', { type: 'button', class: 'slot', 'data-slot': s.id, onclick: function (ev) { pick(s, doctor, ev.currentTarget); } }, [
      el('span', { class: 'time', text: timeOf(s.startAt) }),
      notes.length ? el('span', { class: 'sub', text: notes.join(' · ') }) : null
    ]);
  }

  // --- booking and the waiting room -------------------------------------------

  // pick shows the chosen time (or the several times of "any of these",
  // many), the doctor and the address before anything is sent: only
  // "Termin verbindlich buchen" sends the booking.
  function pick(s, doctor, many) {
    many = Array.isArray(many) ? many : null; // a time's button passes itself
    state.chosen = { s: s, doctor: doctor, back: state.view, many: many };
    const d = state.doctors.find(function (x) { return x.id === doctor.id; }) || doctor;
    $('confirm-when').replaceChildren.apply($('confirm-when'), many ? window.TerminChoose.times(many) : [whenOf(s.startAt)]);
    const spec = d.specialty ? window.TerminSearch.specialtyName(d.specialty) : '';
    $('confirm-doctor').textContent = doctorName(doctor.id, doctor.name) + (spec ? ' (' + spec + ')' : '');
    $('confirm-address').textContent = d.address || '';
    $('confirm-address').hidden = $('confirm-address-label').hidden = !d.address;
    hint('confirm-note', state.moving ? t('reschedFor', { when: whenOf(state.moving.startAt) }) : many ? t('anyofHow') : '');
    show('confirm');
  }

  // confirmChosen sends the chosen booking; back returns to the choice.
  function confirmChosen() {
    const c = state.chosen;
    if (!c) return;
    state.chosen = null;
    show(c.back === 'result' ? 'result' : 'book', true);
    send(c.s, c.doctor, c.many ? $('anyof-next') : document.querySelector('button.slot[data-slot="' + c.s.id + '"]'), c.many);
    // The focus goes where the chosen time is shown being sent, not to
    // the page's top: the waiting room or the outcome takes it from there.
    $(c.back === 'result' ? 'alts-title' : $('step-slot').hidden ? 'doctor-title' : 'slot-title').focus();
    announce(t('sending'));
  }

  function confirmBack() {
    const c = state.chosen;
    state.chosen = null;
    show(c && c.back === 'result' ? 'result' : 'book');
  }

  // send turns a confirmed time (or times) into the one pending request of
  // this intent: confirming the same choice again repeats it with the same key.
  function send(s, doctor, button, many) {
    const mv = state.moving;
    const p = api.intend({
      kind: mv ? 'move' : 'book', slotId: s.id, apptId: mv ? mv.id : 0, from: mv ? mv.startAt : '',
      doctorId: doctor.id, doctorName: doctorName(doctor.id, doctor.name),
      startAt: s.startAt, endAt: s.endAt, opensAt: s.opensAt || '', date: clinicDay(new Date(s.startAt)),
      slotIds: many ? many.map(function (x) { return x.id; }) : null,
      choices: many ? many.map(function (x) { return { id: x.id, startAt: x.startAt, endAt: x.endAt }; }) : null
    });
    document.querySelectorAll('button.slot, #anyof button, #anyof input').forEach(function (b) { b.disabled = true; });
    if (many && button) button.textContent = t('sending');
    else if (button && button.querySelector('.time')) button.querySelector('.time').textContent = t('sending');
    follow(p, false);
  }

  // follow sends the pending request and repeats it, with the same key,
  // after each Retry-After until it is decided.
  async function follow(p, resumed) {
    const run = ++state.run;
    state.wait = { p: p, first: 0, pos: 0, eta: 0, note: '', next: 0 };
    if (resumed) enterWait();
    for (;;) {
      state.wait.asking = true;
      renderWait();
      const r = await api.send(p);
      if (run !== state.run) return;
      if (r.status === 401) return expired();
      if (!retryable(r)) return finish(p, r);
      waitAnswer(r);
      await pause(r.retryAfter, run);
      if (run !== state.run) return;
    }
  }

  // retryable answers leave the request undecided: it is sent again with
  // the same key. 202 is queued, 429 a patient over the limit (the same key
  // counts once it is let in), 408/5xx and no answer a request that may not
  // have arrived.
  function retryable(r) {
    return r.status === 202 || r.status === 0 || r.status === 408 || r.status === 429 || r.status >= 502;
  }

  // waitAnswer shows an undecided answer: a position and estimated wait
  // from a 202, else why the page asks again, keeping the last position.
  function waitAnswer(r) {
    const w = state.wait;
    w.asking = false;
    w.note = r.status === 202 ? '' : r.status === 0 ? 'waitOffline' : r.status === 429 ? 'waitLimited' : 'waitBusy';
    if (r.status === 202) w.eta = r.retryAfter;
    if (r.status === 202 && r.body && r.body.position > 0) {
      w.pos = r.body.position;
      w.first = Math.max(w.first, w.pos);
    }
    enterWait();
    // A screen reader hears the place in line when it changes, not the
    // countdown's every second.
    if (w.pos && w.pos !== w.said) {
      w.said = w.pos;
      announce(t('liveWaitPos', { n: w.pos, eta: etaText(w.eta) }));
    }
  }

  function enterWait() {
    renderWait();
    if (state.view !== 'wait') show('wait');
  }

  // pause waits secs before the next repeat on one timer: a tab in the
  // background has chains of short timers slowed to one a minute, which a
  // wait made of one-second steps would be. The countdown shown is drawn
  // beside it and may lag there; the repeat does not.
  async function pause(secs, run) {
    const until = Date.now() + secs * 1000;
    const draw = function () {
      if (run !== state.run || !state.wait) return;
      state.wait.next = Math.max(1, Math.ceil((until - Date.now()) / 1000));
      renderWait();
    };
    draw();
    const tick = setInterval(draw, 1000);
    await sleep(secs * 1000);
    clearInterval(tick);
  }

  function etaText(secs) {
    if (!secs || secs <= 2) return t('waitFew');
    return secs < 90 ? t('waitSeconds', { n: secs }) : t('waitMinutes', { n: Math.round(secs / 60) });
  }

  function renderWait() {
    const w = state.wait;
    if (!w) return;
    $('wait-what').textContent = whatText(w.p);
    $('wait-pos').textContent = w.pos ? String(w.pos) : '–';
    $('wait-eta').textContent = w.eta ? etaText(w.eta) : '–';
    const pct = w.first ? Math.round(100 * (w.first - w.pos) / w.first) : 0;
    $('wait-progress').setAttribute('aria-valuenow', String(pct));
    $('wait-progress').firstElementChild.style.width = Math.max(pct, 8) + '%';
    const opening = w.p.opensAt && new Date(w.p.opensAt) > new Date() ? t('waitOpening', { time: timeOf(w.p.opensAt) }) : '';
    const note = w.note ? t(w.note, { n: w.next || w.eta }) : opening;
    const next = w.asking ? t('waitAsking') : w.note ? '' : t('waitNext', { n: w.next });
    $('wait-state').textContent = [note, next].filter(Boolean).join(' ');
    if (state.view === 'wait') document.title = (w.pos ? '(' + w.pos + ') ' : '') + t('waitTitle');
  }

  function finish(p, r) {
    api.settle(p);
    if (p.choices && p.choices.length > 1) p = Object.assign(window.TerminChoose.decided(p, r.body), { decided: r.status === 200 || r.status === 201 });
    state.wait = null;
    state.moving = null;
    const ok = r.status === 200 || r.status === 201;
    if (ok) {
      const a = r.body || {};
      api.remember({ id: a.id, slotId: a.slotId, doctorId: a.doctorId || p.doctorId, doctorName: p.doctorName,
        startAt: a.startAt || p.startAt, endAt: a.endAt || p.endAt, status: a.status || 'BOOKED' });
      if (p.kind === 'move' && a.id !== p.apptId) api.forget(p.apptId);
    }
    state.result = { ok: ok, p: p, r: r, alts: [], alternatives: r.code === 'SLOT_FULL' ? 'loading' : '' };
    renderResult();
    show('result');
    announce($('result-title').textContent + '. ' + $('result-what').textContent + '. ' + $('result-text').textContent, !ok);
    if (r.code === 'SLOT_FULL') loadAlternatives(state.result);
  }

  function renderResult() {
    const res = state.result;
    if (!res) return;
    const move = res.p.kind === 'move';
    $('result-card').className = res.ok ? 'card result ok' : 'card result failed';
    $('result-title').textContent = res.ok ? t(move ? 'resultMoved' : 'resultBooked') : t('resultFailed');
    $('result-what').textContent = whatText(res.p);
    let text = res.ok ? t(move ? 'resultMovedText' : 'resultBookedText') : problemText(res.r);
    if (!res.ok && move && (res.r.code === 'NOT_FOUND' || res.r.code === 'METHOD_NOT_ALLOWED')) text = t('reschedUnavailable');
    if (!res.ok && res.r.code === 'SLOT_CLOSED' && res.p.opensAt && new Date(res.p.opensAt) > new Date()) {
      text += ' ' + t('slotOpens', { time: timeOf(res.p.opensAt) }) + '.';
    }
    const anyof = res.p.choices && res.p.choices.length > 1 ? window.TerminChoose.outcome(res.p, res.ok, res.r.code) : '';
    if (anyof) text = res.ok ? anyof + ' ' + text : anyof;
    $('result-text').textContent = text;
    $('result-text').setAttribute('data-code', res.ok ? '' : res.r.code);
    $('alts-box').hidden = !res.alternatives;
    $('alts-box').setAttribute('data-state', res.alternatives);
    hint('alts-state', ALT_TEXTS[res.alternatives] ? t(ALT_TEXTS[res.alternatives]) : '');
    const ul = $('alts');
    ul.replaceChildren();
    res.alts.forEach(function (s) {
      ul.appendChild(el('li', {}, [slotButton(s, { id: res.p.doctorId, name: res.p.doctorName })]));
    });
  }

  // loadAlternatives offers the next free times of the same doctor, from
  // the full slot's day on, a week at most. A day the server cannot list
  // now ends the search: with nothing found the page says it could not
  // look, never that nothing is free.
  async function loadAlternatives(res) {
    const found = [];
    let failed = false;
    const parts = res.p.date.split('-').map(Number);
    for (let i = 0; i < 7 && found.length < ALTERNATIVES && !failed; i++) {
      const day = new Date(Date.UTC(parts[0], parts[1] - 1, parts[2] + i, 12)).toISOString().slice(0, 10);
      const slots = await daySlots(res.p.doctorId, day, res);
      if (state.result !== res) return;
      failed = !slots;
      (slots || []).forEach(function (s) {
        if ((res.p.slotIds || [res.p.slotId]).indexOf(s.id) < 0 && new Date(s.startAt) > new Date() && found.length < ALTERNATIVES) found.push(s);
      });
    }
    if (res.p.kind === 'move') state.moving = { id: res.p.apptId, startAt: res.p.from, doctorId: res.p.doctorId, doctorName: res.p.doctorName };
    res.alts = found;
    res.alternatives = found.length ? 'shown' : failed ? 'failed' : 'none';
    renderResult();
  }

  // daySlots is one day's free times of a doctor, asked for again after a
  // busy server's Retry-After (429, 503, no answer), or null.
  async function daySlots(doctorId, day, res) {
    for (let i = 1; ; i++) {
      const r = await api.call('GET', '/api/doctors/' + doctorId + '/slots?date=' + day);
      if (r.ok && r.body && Array.isArray(r.body.slots)) return r.body.slots;
      if (!retryable(r) || i >= ALT_TRIES || state.result !== res) return null;
      await sleep(r.retryAfter * 1000);
    }
  }

  document.addEventListener('DOMContentLoaded', start);

  return {
    t: t, $: $, el: el, hint: hint, notice: notice, announce: announce, show: show, sleep: sleep, state: state,
    whenOf: whenOf, timeOf: timeOf, dateOf: dateOf, doctorName: doctorName, problemText: problemText,
    expired: expired, openBooking: openBooking, pick: pick, chooseDoctor: chooseDoctor, renderBooking: renderBooking
  };
})();
