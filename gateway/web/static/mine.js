// "My appointments": the upcoming ones, each with cancel and reschedule.
// A server without GET /api/appointments falls back to the appointments
// this browser booked, read one by one.
'use strict';

window.TerminMine = (function () {
  const api = window.TerminApi;
  const T = window.Termin;
  const CANCEL_TRIES = 30;
  // HOLD_WARN_S are the seconds before a hold's end at which a screen
  // reader is told it ends, so that it can be confirmed in time (WCAG
  // 2.2.1: warned before a time limit runs out).
  const HOLD_WARN_S = [60, 30];
  let holdTimer = 0;
  const warned = {}; // "appointment id:seconds" already said
  let list = null;
  let local = false;
  let error = '';
  let asking = 0; // the appointment whose cancel is being confirmed

  function open() {
    T.notice('');
    T.show('mine');
    load();
  }

  async function load() {
    list = null;
    error = '';
    render();
    const r = await api.call('GET', '/api/appointments');
    if (r.status === 401) return T.expired();
    let all = [];
    local = false;
    if (r.ok && r.body && Array.isArray(r.body.appointments)) {
      all = r.body.appointments;
    } else if (r.status === 404 || r.status === 405) {
      local = true;
      all = await remembered();
    } else {
      error = T.problemText(r);
    }
    const now = new Date();
    list = all.filter(function (a) {
      return (a.status === 'BOOKED' || a.status === 'HELD') && a.startAt && new Date(a.endAt || a.startAt) > now;
    }).sort(function (a, b) { return new Date(a.startAt) - new Date(b.startAt); });
    render();
    watchHolds();
  }

  // watchHolds checks the listed holds each second while there are any,
  // on whichever view the patient is.
  function watchHolds() {
    clearInterval(holdTimer);
    if (!(list || []).some(function (a) { return a.status === 'HELD' && a.expiresAt; })) return;
    holdTimer = setInterval(checkHolds, 1000);
    checkHolds();
  }

  // checkHolds says once how soon a hold ends when the next of
  // HOLD_WARN_S is reached (a list opened later says it at once), and
  // that it has ended, then lists the appointments anew.
  function checkHolds() {
    (list || []).forEach(function (a) {
      if (a.status !== 'HELD' || !a.expiresAt) return;
      const left = Math.ceil((new Date(a.expiresAt) - Date.now()) / 1000);
      const step = left <= 0 ? 0 : HOLD_WARN_S.filter(function (s) { return left <= s; }).pop();
      if (step === undefined || warned[a.id + ':' + step]) return;
      HOLD_WARN_S.concat([0]).forEach(function (s) { if (s >= step) warned[a.id + ':' + s] = true; });
      if (step > 0) return T.announce(T.t('holdEndsSoon', { when: T.whenOf(a.startAt), n: left }), step <= 30);
      T.announce(T.t('holdEnded', { when: T.whenOf(a.startAt) }), true);
      load();
    });
  }

  async function remembered() {
    const out = [];
    for (const m of api.remembered()) {
      const r = await api.call('GET', '/api/appointments/' + m.id);
      if (r.ok && r.body) {
        out.push(Object.assign({}, m, r.body, { startAt: r.body.startAt || m.startAt, endAt: r.body.endAt || m.endAt, doctorId: r.body.doctorId || m.doctorId }));
      } else if (r.code === 'APPOINTMENT_NOT_FOUND') {
        api.forget(m.id);
      }
    }
    return out;
  }

  function render() {
    const ul = T.$('mine');
    if (!ul) return;
    ul.replaceChildren();
    if (list === null && !error) return T.hint('mine-state', T.t('mineLoading'));
    const none = list && list.length === 0 ? T.t('mineNone') : '';
    T.hint('mine-state', error || [none, local && !none ? T.t('mineLocal') : ''].filter(Boolean).join(' '));
    (list || []).forEach(function (a) { ul.appendChild(item(a)); });
  }

  function item(a) {
    const status = a.status === 'HELD' && a.expiresAt ? T.t('statusHELD', { time: T.timeOf(a.expiresAt) }) : T.t('status' + a.status);
    const li = T.el('li', { class: 'appt', 'data-appointment': a.id }, [
      T.el('p', { class: 'when', text: T.whenOf(a.startAt) }),
      T.el('p', { class: 'who', text: T.doctorName(a.doctorId, a.doctorName) }),
      T.el('p', { class: 'status ' + a.status.toLowerCase(), text: status })
    ]);
    li.appendChild(asking === a.id ? confirmBox(a) : T.el('div', { class: 'actions' }, [
      a.status === 'HELD' ? T.el('button', { type: 'button', class: 'primary confirm-hold', text: T.t('confirmHold'), onclick: function () { confirmHold(a); } }) : null,
      T.el('button', { type: 'button', class: 'move', text: T.t('reschedule'), onclick: function () { reschedule(a); } }),
      T.el('button', { type: 'button', class: 'cancel', text: T.t('cancel'), onclick: function () { ask(a); } })
    ]));
    return li;
  }

  function confirmBox(a) {
    return T.el('div', { class: 'confirm', role: 'group', 'aria-labelledby': 'ask-' + a.id }, [
      T.el('p', { id: 'ask-' + a.id, text: T.t('cancelAsk', { when: T.whenOf(a.startAt) }) }),
      T.el('div', { class: 'actions' }, [
        T.el('button', { type: 'button', class: 'danger cancel-yes', text: T.t('cancelYes'), onclick: function () { cancel(a); } }),
        T.el('button', { type: 'button', class: 'cancel-no', text: T.t('cancelNo'), onclick: function () { ask(null); } })
      ])
    ]);
  }

  // ask shows or hides the confirmation and puts the focus on its safe choice.
  function ask(a) {
    const back = asking;
    asking = a ? a.id : 0;
    render();
    const sel = a ? '[data-appointment="' + a.id + '"] .cancel-no' : '[data-appointment="' + back + '"] .cancel';
    const b = document.querySelector(sel);
    if (b) b.focus();
  }

  // cancel deletes the appointment, repeating while the answer is "queued"
  // or "busy": a repeated DELETE frees the place at most once.
  async function cancel(a) {
    asking = 0;
    document.querySelectorAll('.appt button').forEach(function (b) { b.disabled = true; });
    let r = null;
    for (let i = 0; i < CANCEL_TRIES; i++) {
      r = await api.call('DELETE', '/api/appointments/' + a.id);
      if (r.status === 401) return T.expired();
      if (r.status === 204) {
        api.forget(a.id);
        await load();
        T.notice(T.t('cancelled', { when: T.whenOf(a.startAt) }));
        T.$('mine-title').focus();
        return;
      }
      if (r.status !== 202 && r.status !== 0 && r.status !== 503) break;
      T.notice(T.t('cancelQueued'));
      await T.sleep(r.retryAfter * 1000);
    }
    T.notice(T.problemText(r), true);
    await load();
  }

  // confirmHold turns a place held for the patient (an offer from the
  // waiting list) into a booking.
  async function confirmHold(a) {
    document.querySelectorAll('.appt button').forEach(function (b) { b.disabled = true; });
    const r = await api.call('POST', '/api/appointments/' + a.id + '/confirm');
    if (r.status === 401) return T.expired();
    T.notice(r.ok ? T.t('confirmed', { when: T.whenOf(a.startAt) }) : T.problemText(r), !r.ok);
    await load();
  }

  function reschedule(a) {
    T.openBooking({ id: a.id, startAt: a.startAt, doctorId: a.doctorId, doctorName: T.doctorName(a.doctorId, a.doctorName) });
  }

  return { open: open, render: render };
})();
