// Who is signed in on the practice page and whose days it shows: the
// token's role (its role claim, or a provider's roles); staff see their
// practice's doctors (GET /api/doctors?practice=), an admin picks one of
// the practices the search lists, a doctor sees its own day. Names come
// from the search, so the page never asks for a doctor's number.
'use strict';

window.TerminPraxisDoctors = (function () {
  const MAX_PAGES = 20;

  function claims(tok) {
    try {
      return JSON.parse(decodeURIComponent(escape(atob(tok.split('.')[1].replace(/-/g, '+').replace(/_/g, '/')))));
    } catch (e) {
      return null;
    }
  }

  // roleOf is the most powerful practice role a token carries, '' for none.
  function roleOf(c) {
    if (!c) return '';
    const roles = [].concat(c.role || [], c.roles || [], (c.realm_access || {}).roles || []);
    return ['admin', 'staff', 'doctor'].find(function (r) { return roles.indexOf(r) >= 0; }) || '';
  }

  function usable(tok) {
    const c = claims(tok);
    return !!roleOf(c) && !(typeof c.exp === 'number' && c.exp * 1000 < Date.now());
  }

  // pages follows the search's cursor: every doctor the query finds.
  async function pages(api, query) {
    const out = [];
    let cursor = '';
    for (let i = 0; i < MAX_PAGES; i++) {
      const r = await api('GET', '/api/doctors?limit=100' + query + (cursor ? '&cursor=' + encodeURIComponent(cursor) : ''));
      if (r.status !== 200) return { failed: r, list: out };
      r.body.doctors.forEach(function (d) { out.push(d); });
      cursor = r.body.nextCursor;
      if (!cursor) break;
    }
    return { list: out };
  }

  function keep(state, d) {
    state.all.push({ id: d.id, name: d.name, practice: d.practice.id });
    if (!state.practices.some(function (p) { return p.id === d.practice.id; })) {
      state.practices.push({ id: d.practice.id, name: d.practice.name });
    }
  }

  // own finds a doctor's name (its slot list names it) and practice.
  async function own(state, api) {
    const id = Number(state.me.doctorId) || 0;
    const me = { id: id, name: '', practice: 0 };
    state.all = id ? [me] : [];
    const day = window.TerminPraxisLocale.today();
    const r = await api('GET', '/api/doctors/' + id + '/slots?date=' + day);
    if (r.status !== 200 || !r.body.doctor || !r.body.doctor.name) return;
    me.name = r.body.doctor.name;
    const found = await pages(api, '&q=' + encodeURIComponent(me.name));
    const d = found.list.find(function (x) { return x.id === id; });
    if (!d) return;
    me.practice = state.practice = d.practice.id;
    state.practices.push({ id: d.practice.id, name: d.practice.name });
  }

  // load fills state.all (the doctors one may see) and state.practices.
  async function load(state, api, problem) {
    state.all = [];
    state.practices = [];
    if (state.role !== 'admin') state.practice = 0;
    if (state.role === 'doctor') return own(state, api);
    if (state.role === 'staff') state.practice = Number(state.me.practiceId) || 0;
    const got = await pages(api, state.role === 'staff' ? '&practice=' + state.practice : '');
    if (got.failed) problem(got.failed);
    got.list.forEach(function (d) { keep(state, d); });
    state.practices.sort(function (a, b) { return a.id - b.id; });
    if (state.role === 'admin' && !state.practices.some(function (p) { return p.id === state.practice; })) {
      state.practice = state.practices.length === 1 ? state.practices[0].id : 0;
    }
  }

  // fillPractices keeps an admin's choice of practice in step with the
  // practices found, in the page's language.
  function fillPractices(state, t) {
    const sel = document.getElementById('p-practice');
    if (sel.options.length !== state.practices.length + 1) {
      sel.textContent = '';
      sel.appendChild(new Option('', ''));
      state.practices.forEach(function (p) { sel.appendChild(new Option('', String(p.id))); });
    }
    sel.options[0].textContent = t('practicePick');
    state.practices.forEach(function (p, i) {
      sel.options[i + 1].textContent = p.name || t('practiceN', { id: p.id });
      sel.options[i + 1].translate = !p.name;
    });
    sel.value = state.practice ? String(state.practice) : '';
  }

  return { load: load, fillPractices: fillPractices, claims: claims, roleOf: roleOf, usable: usable };
}());
