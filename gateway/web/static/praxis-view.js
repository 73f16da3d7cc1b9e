// The practice page's two plans, drawn from the API's answers: the day
// (time rows × doctor columns, each cell the slot's occupancy, its
// patients and actions) and the week (doctors × seven days, with counts).
// It only builds tables; praxis.js fetches, keeps the state and acts on the
// buttons' data-action. A real <table> with header cells, so that a screen
// reader names each cell's doctor and time.
'use strict';

window.TerminPraxisView = (function () {
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function button(text, label, data) {
    const b = el('button', '', text);
    b.type = 'button';
    if (label) b.setAttribute('aria-label', label);
    Object.keys(data).forEach(function (k) { b.dataset[k] = data[k]; });
    return b;
  }

  // counts sums a doctor's day: appointments, free places and blocked slots.
  function counts(day) {
    const c = { appointments: 0, free: 0, blocked: 0 };
    if (!day) return c;
    c.appointments = day.appointments.length;
    day.slots.forEach(function (s) {
      if (s.blocked) c.blocked++;
      else c.free += Math.max(s.capacity - s.booked, 0);
    });
    return c;
  }

  // merge joins days' answers into one, for the counts of several.
  function merge(list) {
    const out = { appointments: [], slots: [] };
    list.forEach(function (d) {
      if (!d) return;
      out.appointments = out.appointments.concat(d.appointments);
      out.slots = out.slots.concat(d.slots);
    });
    return out;
  }

  function patientItem(a, f) {
    const li = el('li', 'appt');
    li.dataset.appointment = a.id;
    const who = a.patientName || f.t('patientN', { id: a.patientId });
    const minutes = Math.round((new Date(a.endAt) - new Date(a.startAt)) / 60000);
    const extra = [f.t('minutes', { n: minutes })];
    if (a.status === 'HELD') extra.push(f.t('held'));
    if (a.insurance) extra.push(a.insurance);
    li.appendChild(el('span', 'who', who)).translate = !a.patientName;
    li.appendChild(el('span', 'sub', extra.join(', ')));
    if (a.attendance) li.appendChild(el('span', 'mark', a.attendance === 'NO_SHOW' ? f.t('markNoShow') : f.t('markAttended')));
    li.appendChild(button(f.t('attended'), f.t('attendedAria', { patient: who }), { action: 'attended', appointment: a.id }));
    li.appendChild(button(f.t('noShow'), f.t('noShowAria', { patient: who }), { action: 'noshow', appointment: a.id }));
    return li;
  }

  function slotCell(doctor, day, s, f) {
    const td = el('td', 'cell');
    td.dataset.doctor = doctor.id;
    if (!s) {
      td.classList.add('none');
      td.appendChild(el('span', 'occ', f.t('noSlot')));
      return td;
    }
    td.dataset.slot = s.id;
    if (s.blocked) td.classList.add('blocked');
    else if (s.booked >= s.capacity) td.classList.add('full');
    td.appendChild(el('span', 'occ', s.blocked ? f.t('blocked') : f.t('occupancy', { booked: s.booked, capacity: s.capacity })));
    const list = el('ul');
    day.appointments.filter(function (a) { return a.slotId === s.id; }).forEach(function (a) { list.appendChild(patientItem(a, f)); });
    if (list.children.length) td.appendChild(list);
    const acts = el('div', 'acts');
    const time = f.time(s.startAt), data = { doctor: doctor.id, slot: s.id };
    acts.appendChild(s.blocked
      ? button(f.t('unblock'), f.t('unblockAria', { time: time, doctor: doctor.name }), Object.assign({ action: 'unblock' }, data))
      : button(f.t('block'), f.t('blockAria', { time: time, doctor: doctor.name }), Object.assign({ action: 'block' }, data)));
    if (!s.blocked && s.booked < s.capacity && new Date(s.startAt) > new Date()) {
      acts.appendChild(button(f.t('bookHere'), f.t('bookAria', { time: time, doctor: doctor.name }), Object.assign({ action: 'book' }, data)));
    }
    td.appendChild(acts);
    return td;
  }

  function doctorHead(doctor, day, f) {
    const th = el('th', 'doc');
    th.scope = 'col';
    th.dataset.doctor = doctor.id;
    th.appendChild(el('span', 'name', doctor.name)).translate = !doctor.named;
    th.appendChild(el('span', 'sub', f.t('dayCounts', counts(day))));
    const acts = el('span', 'acts');
    acts.appendChild(button(f.t('blockDay'), f.t('blockDayAria', { doctor: doctor.name }), { action: 'block-day', doctor: doctor.id }));
    acts.appendChild(button(f.t('unblockDay'), f.t('unblockDayAria', { doctor: doctor.name }), { action: 'unblock-day', doctor: doctor.id }));
    th.appendChild(acts);
    return th;
  }

  // day draws the day: a row per start time any doctor has a slot at.
  function day(table, doctors, days, date, f) {
    table.textContent = '';
    table.appendChild(el('caption', '', f.t('dayCaption', { date: f.date(date, true) })));
    const head = el('tr');
    const corner = el('th', 'time', f.t('timeHead'));
    corner.scope = 'col';
    head.appendChild(corner);
    doctors.forEach(function (d) { head.appendChild(doctorHead(d, days[d.id], f)); });
    table.appendChild(el('thead')).appendChild(head);
    const starts = [];
    doctors.forEach(function (d) {
      ((days[d.id] || {}).slots || []).forEach(function (s) { if (starts.indexOf(s.startAt) < 0) starts.push(s.startAt); });
    });
    starts.sort(function (a, b) { return new Date(a) - new Date(b); });
    const body = el('tbody');
    starts.forEach(function (start) {
      const tr = el('tr');
      const th = el('th', 'time', f.time(start));
      th.scope = 'row';
      tr.appendChild(th);
      doctors.forEach(function (d) {
        const dd = days[d.id];
        const s = dd ? dd.slots.find(function (x) { return x.startAt === start; }) : null;
        tr.appendChild(slotCell(d, dd, s, f));
      });
      body.appendChild(tr);
    });
    table.appendChild(body);
    return counts(merge(doctors.map(function (d) { return days[d.id]; })));
  }

  // week draws doctors × dates, each cell the day's counts, and a total
  // row when there are several doctors.
  function week(table, doctors, dates, days, f) {
    table.textContent = '';
    table.appendChild(el('caption', '', f.t('weekCaption', { from: f.date(dates[0], true), to: f.date(dates[dates.length - 1], true) })));
    const head = el('tr');
    const corner = el('th', '', f.t('doctorHead'));
    corner.scope = 'col';
    head.appendChild(corner);
    dates.forEach(function (date) {
      const th = el('th', 'date');
      th.scope = 'col';
      th.appendChild(button(f.date(date, false), '', { action: 'open-day', date: date }));
      head.appendChild(th);
    });
    table.appendChild(el('thead')).appendChild(head);
    const body = el('tbody');
    const rows = doctors.map(function (d) { return { name: d.name, named: d.named, days: dates.map(function (date) { return days[d.id + '/' + date]; }) }; });
    if (doctors.length > 1) {
      rows.push({ name: f.t('total'), total: true, days: dates.map(function (date) {
        return merge(doctors.map(function (d) { return days[d.id + '/' + date]; }));
      }) });
    }
    rows.forEach(function (r) {
      const tr = el('tr', r.total ? 'total' : '');
      const th = el('th', '', r.name);
      th.scope = 'row';
      th.translate = !r.named;
      tr.appendChild(th);
      r.days.forEach(function (dd, i) {
        const td = el('td', 'cell');
        td.dataset.date = dates[i];
        // One count a line; the separators stay in the text for copying.
        f.t('dayCounts', counts(dd)).split(' · ').forEach(function (part, j) {
          if (j) td.appendChild(el('span', 'sep', ' · '));
          td.appendChild(el('span', j ? 'part' : 'part first', part));
        });
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
    table.appendChild(body);
    return counts(merge(Object.keys(days).map(function (k) { return days[k]; })));
  }

  // arrows lets the arrow keys move the focus to the nearest button in the
  // neighbouring cells of a table, as in a spreadsheet; Tab still visits
  // every button in order.
  function arrows(table) {
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    table.addEventListener('keydown', function (e) {
      const d = moves[e.key];
      const cell = e.target.closest('td, th');
      if (!d || !cell || e.altKey || e.ctrlKey || e.metaKey) return;
      const rows = Array.from(table.rows);
      let r = rows.indexOf(cell.parentElement), c = cell.cellIndex;
      for (;;) {
        r += d[0];
        c += d[1];
        const row = rows[r];
        if (!row || c < 0 || c >= row.cells.length) return;
        const b = row.cells[c].querySelector('button');
        if (b) {
          e.preventDefault();
          b.focus();
          return;
        }
      }
    });
  }

  return { day: day, week: week, arrows: arrows, counts: counts };
}());
