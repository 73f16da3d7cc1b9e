// The practice's day: a doctor's, staff's or admin's view of one doctor's
// day, with blocking, booking for a caller and attendance. German only; it
// talks to the same API as any client, signs in as the patient page does
// (signin.js) and keeps its token in the tab.
'use strict';

(function () {
  const TOKEN = 'termin.praxis.token';
  const PENDING = 'termin.praxis.pending';
  const ZONE = 'Europe/Berlin';
  const $ = function (id) { return document.getElementById(id); };
  const signin = window.TerminSignIn;
  let day = null;

  const TEXTS = {
    FORBIDDEN: 'Dieser Zugang darf diese Ärztin oder diesen Arzt nicht verwalten.',
    UNAUTHORIZED: 'Der Zugangsschlüssel ist ungültig oder abgelaufen. Bitte melden Sie sich neu an.',
    SLOT_FULL: 'Diese Uhrzeit ist schon voll belegt.',
    SLOT_CLOSED: 'Diese Uhrzeit ist gesperrt, vorbei oder noch nicht buchbar.',
    ALREADY_BOOKED: 'Diese Person hat zu dieser Uhrzeit schon einen Termin.',
    OVERLAPPING_APPOINTMENT: 'Diese Person hat zur selben Zeit schon einen anderen Termin.',
    TOO_MANY_APPOINTMENTS: 'Diese Person hat schon so viele kommende Termine, wie die Praxis erlaubt (in der Grundeinstellung zwei bei einer Ärztin oder einem Arzt). Erst nach einem dieser Termine oder einer Absage geht ein weiterer.',
    APPOINTMENT_NOT_STARTED: 'Der Termin hat noch nicht begonnen; ob jemand erschienen ist, lässt sich erst danach eintragen.',
    RATE_LIMITED: 'Zu viele Buchungsversuche für diese Person; bitte gleich noch einmal.',
    UNAVAILABLE: 'Der Dienst ist gerade nicht erreichbar; bitte gleich noch einmal.'
  };

  function claims(tok) {
    try {
      return JSON.parse(atob(tok.split('.')[1].replace(/-/g, '+').replace(/_/g, '/')));
    } catch (e) {
      return null;
    }
  }

  function usable(tok) {
    const c = claims(tok);
    return !!c && ['doctor', 'staff', 'admin'].indexOf(c.role) >= 0 &&
      !(typeof c.exp === 'number' && c.exp * 1000 < Date.now());
  }

  function notify(text, problem) {
    const n = $('notice');
    n.textContent = text;
    n.className = problem ? 'notice problem' : 'notice';
    n.hidden = false;
  }

  // api sends one request and answers {status, body, retryAfter}.
  async function api(method, path, body, key) {
    const headers = { Authorization: 'Bearer ' + signin.token() };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (key) headers['Idempotency-Key'] = key;
    const res = await fetch(path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body) });
    let data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    if (res.status === 401) signOut('Der Zugangsschlüssel wurde abgelehnt.');
    return { status: res.status, body: data, retryAfter: Number(res.headers.get('Retry-After')) || 1 };
  }

  function problemText(r) {
    const code = r.body && r.body.code;
    return TEXTS[code] || ((r.body && r.body.detail) || 'Die Anfrage ist fehlgeschlagen.') + (code ? ' (' + code + ')' : '');
  }

  function time(iso) {
    return new Intl.DateTimeFormat('de-DE', { timeZone: ZONE, hour: '2-digit', minute: '2-digit' }).format(new Date(iso));
  }

  function today() {
    return new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(new Date());
  }

  // signOut shows the sign-in again, the token dropped: the provider's
  // button, or the field for a pasted token.
  function signOut(why) {
    signin.drop();
    $('p-day').hidden = true;
    $('p-signout').hidden = true;
    $('p-signin').hidden = false;
    $('p-signin-form').hidden = signin.provider();
    $('p-signin-provider').hidden = !signin.provider();
    if (why) $('p-signin-why').textContent = why;
  }

  // signIn keeps a pasted token of a doctor, staff or an admin.
  function signIn(tok) {
    tok = (tok || '').trim();
    if (!usable(tok)) {
      signOut('Dieser Zugangsschlüssel gehört keiner Praxis, keiner Ärztin und keinem Arzt, oder er ist abgelaufen.');
      return;
    }
    signin.paste(tok);
    signedIn();
  }

  // signedIn shows the day; a doctor's own number is filled in.
  function signedIn() {
    $('p-signin').hidden = true;
    $('p-day').hidden = false;
    $('p-signout').hidden = false;
    const c = claims(signin.token()) || {};
    if (c.doctorId && !$('p-doctor').value) $('p-doctor').value = String(c.doctorId);
    if (!$('p-date').value) $('p-date').value = today();
  }

  async function load() {
    const doctor = $('p-doctor').value, date = $('p-date').value;
    if (!doctor || !date) return;
    const r = await api('GET', '/api/doctors/' + encodeURIComponent(doctor) + '/appointments?date=' + encodeURIComponent(date));
    if (r.status !== 200) {
      day = null;
      render();
      notify(problemText(r), true);
      return;
    }
    day = r.body;
    render();
  }

  function button(text, action, data) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = text;
    b.dataset.action = action;
    Object.keys(data).forEach(function (k) { b.dataset[k] = data[k]; });
    return b;
  }

  function patientItem(a) {
    const li = document.createElement('li');
    li.className = 'appt';
    li.dataset.appointment = a.id;
    const who = a.patientName || ('Patient Nr. ' + a.patientId);
    const minutes = Math.round((new Date(a.endAt) - new Date(a.startAt)) / 60000);
    const mark = a.attendance === 'ATTENDED' ? ' – erschienen' : a.attendance === 'NO_SHOW' ? ' – nicht erschienen' : '';
    const span = document.createElement('span');
    span.className = 'who';
    span.textContent = who + ' (' + minutes + ' Min.' + (a.status === 'HELD' ? ', vorgemerkt' : '') +
      (a.insurance ? ', ' + a.insurance : '') + ')' + mark;
    li.appendChild(span);
    li.appendChild(button('Erschienen', 'attended', { appointment: a.id }));
    li.appendChild(button('Nicht erschienen', 'noshow', { appointment: a.id }));
    return li;
  }

  function slotRow(s) {
    const tr = document.createElement('tr');
    tr.dataset.slot = s.id;
    if (s.blocked) tr.className = 'blocked';
    const cells = [time(s.startAt), s.blocked ? 'gesperrt' : s.booked + ' von ' + s.capacity];
    cells.forEach(function (t) { const td = document.createElement('td'); td.textContent = t; tr.appendChild(td); });
    const list = document.createElement('ul');
    day.appointments.filter(function (a) { return a.slotId === s.id; }).forEach(function (a) { list.appendChild(patientItem(a)); });
    const who = document.createElement('td');
    who.appendChild(list);
    tr.appendChild(who);
    const act = document.createElement('td');
    act.appendChild(s.blocked ? button('Freigeben', 'unblock', { slot: s.id }) : button('Sperren', 'block', { slot: s.id }));
    tr.appendChild(act);
    return tr;
  }

  function render() {
    const body = $('p-slots').querySelector('tbody');
    body.textContent = '';
    const select = $('p-caller-slot');
    select.textContent = '';
    if (!day) { $('p-summary').textContent = ''; return; }
    let free = 0, blocked = 0;
    day.slots.forEach(function (s) {
      body.appendChild(slotRow(s));
      if (s.blocked) { blocked++; return; }
      free += s.capacity - s.booked;
      if (s.booked < s.capacity && new Date(s.startAt) > new Date()) {
        const o = document.createElement('option');
        o.value = s.id;
        o.textContent = time(s.startAt) + ' (' + (s.capacity - s.booked) + ' frei)';
        select.appendChild(o);
      }
    });
    $('p-summary').textContent = day.appointments.length + ' Termine, ' + free + ' Plätze frei, ' + blocked + ' gesperrt';
  }

  async function block(op, target) {
    const r = await api('POST', '/api/doctors/' + encodeURIComponent($('p-doctor').value) + '/' + op, target);
    if (r.status !== 200) { notify(problemText(r), true); return; }
    if (op === 'block') {
      const told = r.body.cancelled.length, later = r.body.pending.length;
      notify(r.body.slots.length + ' Uhrzeit(en) gesperrt. ' + told + ' Termin(e) abgesagt; die Patientinnen und Patienten werden benachrichtigt.' +
        (later ? ' ' + later + ' Absage(n) folgen in Kürze.' : ''));
    } else {
      notify(r.body.slots.length + ' Uhrzeit(en) freigegeben. ' + r.body.offers + ' Platz/Plätze der Warteliste angeboten.');
    }
    await load();
  }

  async function attendance(id, mark) {
    const r = await api('POST', '/api/appointments/' + id + '/attendance', { attendance: mark });
    if (r.status !== 200) { notify(problemText(r), true); return; }
    notify(mark === 'NO_SHOW' ? 'Als nicht erschienen eingetragen.' : 'Als erschienen eingetragen.');
    await load();
  }

  function newKey() {
    const b = new Uint8Array(16);
    crypto.getRandomValues(b);
    return 'praxis-' + Array.from(b, function (x) { return x.toString(16).padStart(2, '0'); }).join('');
  }

  // bookForCaller keeps the booking's key until it is decided, so that a
  // repeat (a 202, a reload) is the same booking, never a second one.
  async function bookForCaller(pending) {
    sessionStorage.setItem(PENDING, JSON.stringify(pending));
    for (;;) {
      const r = await api('POST', '/api/doctors/' + pending.doctor + '/appointments', pending.body, pending.key);
      if (r.status === 202) {
        notify('Die Buchung wartet in der Schlange (Position ' + (r.body && r.body.position) + ').');
        await new Promise(function (ok) { setTimeout(ok, r.retryAfter * 1000); });
        continue;
      }
      sessionStorage.removeItem(PENDING);
      if (r.status === 200 || r.status === 201) {
        notify('Gebucht: ' + time(r.body.startAt || day.slots.find(function (s) { return s.id === r.body.slotId; }).startAt) +
          ' für Patient Nr. ' + r.body.patientId + '.');
        $('p-caller-patient').value = '';
        await load();
      } else {
        notify(problemText(r), true);
      }
      return;
    }
  }

  function wire() {
    $('p-signin-form').addEventListener('submit', function (e) {
      e.preventDefault();
      signIn($('p-token').value);
      load();
    });
    $('p-signin-provider').addEventListener('click', function () { signin.signIn(); });
    $('p-signout').addEventListener('click', function () { signin.signOut(); signOut(''); });
    signin.onRenewed(function (tok) { if (!tok) signOut('Die Anmeldung ist abgelaufen. Bitte melden Sie sich neu an.'); });
    $('p-pick').addEventListener('submit', function (e) { e.preventDefault(); load(); });
    $('p-block-day').addEventListener('click', function () { block('block', { date: $('p-date').value }); });
    $('p-unblock-day').addEventListener('click', function () { block('unblock', { date: $('p-date').value }); });
    $('p-slots').addEventListener('click', function (e) {
      const b = e.target.closest('button');
      if (!b) return;
      if (b.dataset.action === 'block' || b.dataset.action === 'unblock') block(b.dataset.action, { slotId: Number(b.dataset.slot) });
      if (b.dataset.action === 'attended') attendance(b.dataset.appointment, 'ATTENDED');
      if (b.dataset.action === 'noshow') attendance(b.dataset.appointment, 'NO_SHOW');
    });
    $('p-caller').addEventListener('submit', function (e) {
      e.preventDefault();
      bookForCaller({ doctor: $('p-doctor').value, key: newKey(),
        body: { slotId: Number($('p-caller-slot').value), patientId: Number($('p-caller-patient').value) } });
    });
  }

  async function start() {
    wire();
    const s = await signin.start('/praxis', TOKEN);
    if (!s.token || (!s.provider && !usable(s.token))) {
      signOut(s.error ? 'Die Anmeldung hat nicht geklappt. Bitte versuchen Sie es noch einmal.' : '');
      return;
    }
    signedIn();
    const waiting = sessionStorage.getItem(PENDING);
    if (waiting) bookForCaller(JSON.parse(waiting));
  }

  start();
}());
