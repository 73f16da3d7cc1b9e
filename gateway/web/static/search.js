// The search the booking starts with: specialty and place, the doctors
// found with their practice's address and next free times. A click on a
// time goes straight to the confirm step; a click on a doctor goes on to
// the day and time steps.
'use strict';

window.TerminSearch = (function () {
  const T = window.Termin;
  const api = window.TerminApi;
  const LIMIT = 20;
  const s = { specialties: [], query: '', cursor: '', req: 0, failed: '' };

  function specialtyName(code) {
    const sp = s.specialties.find(function (x) { return x.code === code; });
    return sp ? sp[T.state.lang] || sp.de : code;
  }

  function addressOf(doc) {
    const p = doc.practice || {};
    if (!p.city) return doc.address || '';
    return [p.name, p.street, (p.postcode + ' ' + p.city).trim()].filter(Boolean).join(', ');
  }

  // queryOf reads the form: a place of digits is a postcode, else a city.
  function queryOf() {
    const q = new URLSearchParams({ limit: String(LIMIT) });
    const spec = T.$('search-specialty').value, place = T.$('search-place').value.trim();
    if (spec) q.set('specialty', spec);
    if (/^[0-9][0-9 ]*$/.test(place)) q.set('postcode', place.replace(/ /g, ''));
    else if (place) q.set('city', place);
    return q.toString();
  }

  // load asks for the first page of the form's search, or the next page.
  async function load(more) {
    const req = ++s.req;
    if (!more) s.query = queryOf();
    const url = '/api/doctors?' + s.query + (more && s.cursor ? '&cursor=' + encodeURIComponent(s.cursor) : '');
    const r = await api.call('GET', url);
    if (req !== s.req) return;
    if (r.status === 401) return T.expired();
    const list = r.ok && r.body && Array.isArray(r.body.doctors) ? r.body.doctors : null;
    (list || []).forEach(function (d) { d.address = addressOf(d); });
    T.state.doctors = more ? T.state.doctors.concat(list || []) : (list || []);
    // No list, or no doctor at all before any filter: the page asks for a
    // doctor's number instead.
    const filtered = /(^|&)(specialty|city|postcode)=/.test(s.query);
    T.state.listed = !!list && (T.state.doctors.length > 0 || filtered);
    s.cursor = (r.body && r.body.nextCursor) || '';
    s.failed = r.ok ? '' : T.problemText(r);
    T.renderBooking();
  }

  async function loadSpecialties() {
    const r = await api.call('GET', '/api/specialties');
    if (r.ok && r.body && Array.isArray(r.body.specialties)) s.specialties = r.body.specialties;
    fillSpecialties();
  }

  function fillSpecialties() {
    const sel = T.$('search-specialty'), chosen = sel.value;
    sel.replaceChildren(T.el('option', { value: '', text: T.t('searchAny') }));
    s.specialties.forEach(function (sp) { sel.appendChild(T.el('option', { value: sp.code, text: sp[T.state.lang] || sp.de })); });
    sel.value = chosen;
  }

  function shortWhen(iso) {
    const day = new Intl.DateTimeFormat(window.TerminLang.locale(T.state.lang), { timeZone: 'Europe/Berlin', weekday: 'short', day: 'numeric', month: 'numeric' });
    return day.format(new Date(iso)) + ' ' + T.timeOf(iso);
  }

  function freeTimes(doc) {
    if (!doc.nextFree || !doc.nextFree.length) return T.el('p', { class: 'hint', text: T.t('searchNoFree') });
    const who = { id: doc.id, name: doc.name };
    return T.el('ul', { class: 'slots free', 'aria-label': T.t('searchFreeLabel', { doctor: doc.name }) }, doc.nextFree.map(function (f) {
      const slot = { id: f.slotId, startAt: f.startAt };
      return T.el('li', {}, [T.el('button', { type: 'button', class: 'slot', 'data-free-slot': f.slotId,
        // The name starts with the time as shown (WCAG 2.5.3, label in name).
        'aria-label': T.t('searchPickTime', { when: shortWhen(f.startAt), doctor: doc.name }),
        onclick: function () { T.pick(slot, who); } }, [T.el('span', { class: 'time', text: shortWhen(f.startAt) })])]);
    }));
  }

  // render lists the doctors found into ul, with a button for the next page.
  function render(ul) {
    fillSpecialties();
    T.hint('search-state', s.failed || (T.state.listed && !T.state.doctors.length ? T.t('searchNone') : ''));
    T.state.doctors.forEach(function (doc) {
      const sub = [doc.specialty ? specialtyName(doc.specialty) : '', doc.address].filter(Boolean);
      ul.appendChild(T.el('li', { class: 'result' }, [
        T.el('button', { type: 'button', class: 'choice', 'data-doctor': doc.id, onclick: function () { T.chooseDoctor(doc); } }, [
          T.el('span', { class: 'name', text: doc.name || T.t('doctorUnnamed', { id: doc.id }) })
        ].concat(sub.map(function (x) { return T.el('span', { class: 'sub', text: x }); }))),
        freeTimes(doc)
      ]));
    });
    if (s.cursor) {
      ul.appendChild(T.el('li', {}, [T.el('button', { type: 'button', id: 'search-more', class: 'link', text: T.t('searchMore'),
        onclick: function () { load(true); } })]));
    }
  }

  // said tells a screen reader what a search found: the focus stays in
  // the form, the doctors appear below it.
  function said() {
    if (s.failed) return T.announce(s.failed, true);
    T.announce(T.state.doctors.length ? T.t('searchFound', { n: T.state.doctors.length }) : T.t('searchNone'));
  }

  function start() {
    T.$('search-form').addEventListener('submit', function (ev) { ev.preventDefault(); load(false).then(said); });
  }

  document.addEventListener('DOMContentLoaded', start);

  return { load: load, loadSpecialties: loadSpecialties, render: render, specialtyName: specialtyName };
})();
