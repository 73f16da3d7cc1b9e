// Booking for a caller on the practice page: a doctor, one of the day's free
// times and the patient's number. The booking's Idempotency-Key is kept in
// the tab until the booking is decided, so that a repeat (a 202, a reload)
// is the same booking, never a second one.
'use strict';

window.TerminPraxisCaller = (function () {
  const $ = function (id) { return document.getElementById(id); };
  let state = null, api = null, h = null;

  function doctorName(id) {
    const d = h.columns().find(function (x) { return String(x.id) === String(id); });
    return d ? d.name : h.t('doctorN', { id: id });
  }

  // fill lists the doctors and the chosen doctor's free times still ahead.
  function fill() {
    const doc = $('p-caller-doctor'), slot = $('p-caller-slot');
    const chosen = doc.value, time = slot.value;
    doc.textContent = '';
    h.columns().forEach(function (d) { doc.appendChild(new Option(d.name, String(d.id))).translate = !d.named; });
    if (chosen) doc.value = chosen;
    slot.textContent = '';
    const day = state.days[doc.value];
    ((day && day.slots) || []).forEach(function (s) {
      if (s.blocked || s.booked >= s.capacity || new Date(s.startAt) <= new Date()) return;
      slot.appendChild(new Option(h.t('freeOption', { time: h.fmt.time(s.startAt), free: s.capacity - s.booked }), String(s.id)));
    });
    if (!slot.options.length) slot.appendChild(new Option(h.t('noFreeTime'), ''));
    if (time && Array.from(slot.options).some(function (o) { return o.value === time; })) slot.value = time;
  }

  // pick takes a cell's free time into the form and moves on to the number.
  function pick(doctor, slot) {
    $('p-caller-doctor').value = String(doctor);
    fill();
    $('p-caller-slot').value = String(slot);
    $('p-caller-patient').focus();
  }

  async function book(pending) {
    sessionStorage.setItem(h.pending, JSON.stringify(pending));
    for (;;) {
      const r = await api('POST', '/api/doctors/' + pending.doctor + '/appointments', pending.body, pending.key);
      if (r.status === 202) {
        h.notify(function () { return h.t('queued', { position: r.body && r.body.position }); });
        await new Promise(function (ok) { setTimeout(ok, r.retryAfter * 1000); });
        continue;
      }
      sessionStorage.removeItem(h.pending);
      if (r.status !== 200 && r.status !== 201) {
        h.problem(r);
        return;
      }
      h.notify(function () {
        return h.t('booked', { time: pending.startAt ? h.fmt.time(pending.startAt) : '', doctor: doctorName(pending.doctor), patient: h.t('patientN', { id: r.body.patientId }) });
      });
      $('p-caller-patient').value = '';
      await h.load();
      return;
    }
  }

  function newKey() {
    const b = new Uint8Array(16);
    crypto.getRandomValues(b);
    return 'praxis-' + Array.from(b, function (x) { return x.toString(16).padStart(2, '0'); }).join('');
  }

  function submit(e) {
    e.preventDefault();
    const doctor = $('p-caller-doctor').value, slotId = Number($('p-caller-slot').value);
    const s = ((state.days[doctor] || {}).slots || []).find(function (x) { return x.id === slotId; });
    book({ doctor: doctor, key: newKey(), startAt: s ? s.startAt : '',
      body: { slotId: slotId, patientId: Number($('p-caller-patient').value) } });
  }

  function wire(s, a, helpers) {
    state = s;
    api = a;
    h = helpers;
    $('p-caller-doctor').addEventListener('change', fill);
    $('p-caller').addEventListener('submit', submit);
  }

  // resume finishes a booking a reload interrupted.
  function resume() {
    const waiting = sessionStorage.getItem(h.pending);
    if (waiting) book(JSON.parse(waiting));
  }

  return { wire: wire, fill: fill, pick: pick, resume: resume };
}());
