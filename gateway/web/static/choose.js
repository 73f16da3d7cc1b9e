// "Any of these times": under a day's times the patient ticks several, or
// takes every free time of the morning or the afternoon at once, and one
// click books the earliest of them that is free when the request's turn
// comes (the API's "slotIds", sent in order of time). A patient who would
// otherwise try one time after another gets them all in one place in line,
// as quickly as an account that retries at once.
'use strict';

window.TerminChoose = (function () {
  // MAX is the API's bound on a booking's alternatives.
  const MAX = 20;
  // NOON (clinic time) parts the morning from the afternoon.
  const NOON = 12;
  const c = { slots: [], doctor: null, picked: {} };

  function T() { return window.Termin; }
  function $(id) { return document.getElementById(id); }

  // hourOf is the hour of an instant on the practice's clock (Europe/Berlin).
  function hourOf(iso) {
    return Number(new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', hourCycle: 'h23' }).format(new Date(iso)));
  }

  // choosable are the day's times that can be asked for: not the patient's
  // own, not started; in order of time, as the list shows them.
  function choosable() {
    return c.slots.filter(function (s) { return !s.mine && new Date(s.startAt) > new Date(); });
  }

  function chosen() {
    return choosable().filter(function (s) { return c.picked[s.id]; });
  }

  // render draws the choice under a day's times: the quick picks, a box
  // per free time and the button that goes on to the confirm step. It is
  // hidden while a booking is moved (a move names one slot) and for fewer
  // than two times.
  function render(slots, doctor, moving) {
    if (!doctor || !c.doctor || doctor.id !== c.doctor.id) c.picked = {};
    c.slots = slots || [];
    c.doctor = doctor;
    const free = choosable();
    const kept = {};
    free.forEach(function (s) { if (c.picked[s.id]) kept[s.id] = true; });
    c.picked = kept;
    $('anyof').hidden = !!moving || !doctor || free.length < 2;
    const ul = $('anyof-times');
    ul.replaceChildren();
    free.forEach(function (s) { ul.appendChild(box(s)); });
    ['morning', 'afternoon'].forEach(function (part) {
      $('anyof-' + part).hidden = !ofPart(part).length;
      $('anyof-' + part).disabled = false; // a booking sent rested them
    });
    $('anyof-next').textContent = T().t('anyofNext');
    update();
  }

  function box(s) {
    const input = T().el('input', { type: 'checkbox', 'data-anyof': s.id });
    input.checked = !!c.picked[s.id];
    input.addEventListener('change', function () {
      if (input.checked) c.picked[s.id] = true;
      else delete c.picked[s.id];
      update();
    });
    return T().el('li', {}, [T().el('label', { class: 'check anyof-time' }, [
      input, T().el('span', { text: T().timeOf(s.startAt) })
    ])]);
  }

  function ofPart(part) {
    return choosable().filter(function (s) { return (hourOf(s.startAt) < NOON) === (part === 'morning'); });
  }

  // quick replaces the choice with every free time of the part of the day,
  // the first MAX of them.
  function quick(part) {
    c.picked = {};
    ofPart(part).slice(0, MAX).forEach(function (s) { c.picked[s.id] = true; });
    document.querySelectorAll('#anyof-times input').forEach(function (i) { i.checked = !!c.picked[i.getAttribute('data-anyof')]; });
    update();
  }

  // update shows how many times are chosen; at MAX the other boxes rest.
  function update() {
    const n = chosen().length;
    document.querySelectorAll('#anyof-times input').forEach(function (i) { i.disabled = !i.checked && n >= MAX; });
    const key = n === 0 ? 'anyofNone' : n === 1 ? 'anyofCountOne' : n >= MAX ? 'anyofCountMax' : 'anyofCount';
    $('anyof-count').textContent = T().t(key, { n: n, max: MAX });
    $('anyof-next').disabled = n === 0;
  }

  // next goes on to the confirm step with the chosen times; one time is an
  // ordinary booking of it.
  function next() {
    const list = chosen();
    if (!list.length) return;
    T().pick(list[0], c.doctor, list.length > 1 ? list : null);
  }

  // times is the choice as the confirm step lists it: the day, then each
  // time on the practice's clock.
  function times(list) {
    const ul = T().el('ul', { class: 'anyof-list', id: 'confirm-times' }, list.map(function (s) {
      return T().el('li', { 'data-slot': s.id, text: T().t('timeAlone', { time: T().timeOf(s.startAt) }) });
    }));
    return [T().el('span', { text: T().t('anyofOneOf', { date: T().dateOf(list[0].startAt) }) }), ul];
  }

  // what names a request of several times before its decision.
  function what(p) {
    const list = p.choices.map(function (s) { return T().timeOf(s.startAt); }).join(', ');
    return T().t('anyofWhat', { doctor: T().doctorName(p.doctorId, p.doctorName), date: T().dateOf(p.startAt), times: list });
  }

  // decided is the request as it was decided: the booked one of its times.
  function decided(p, a) {
    const s = (p.choices || []).find(function (x) { return x.id === (a && a.slotId); });
    return s ? Object.assign({}, p, { slotId: s.id, startAt: s.startAt, endAt: s.endAt }) : p;
  }

  // outcome is the result's sentence for a request of several times.
  function outcome(p, ok, code) {
    if (ok) return T().t('anyofBooked', { n: p.choices.length, time: T().timeOf(p.startAt) });
    return code === 'SLOT_FULL' ? T().t('anyofNoneFree', { n: p.choices.length }) : '';
  }

  function start() {
    $('anyof-morning').addEventListener('click', function () { quick('morning'); });
    $('anyof-afternoon').addEventListener('click', function () { quick('afternoon'); });
    $('anyof-next').addEventListener('click', next);
  }

  document.addEventListener('DOMContentLoaded', start);

  return { render: render, times: times, what: what, decided: decided, outcome: outcome, update: update, MAX: MAX };
})();
