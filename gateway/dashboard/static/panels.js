// The dashboard's four panels: each takes its /dashboard/api/<panel> data and answers the
// elements to show. Text goes in as text nodes only (charts.js `h`).
import { colours, h, horizontalBars, progressBar, stackedBars, svg, timeline } from './charts.js';

const time = (ms) => (ms ? new Date(ms).toISOString().slice(0, 19).replace('T', ' ') : '');

function table(headings, rows, attrs = {}) {
  return h('table', attrs, h('thead', {}, h('tr', {}, headings.map((t) => h('th', {}, t)))), h('tbody', {}, rows));
}

function empty(text) {
  return h('p', { class: 'empty' }, text);
}

export function usagePanel(data) {
  const { totals } = data;
  // One colour per operation in both plots.
  const colourOf = colours([...new Set(data.byDay.map((r) => r.op))].sort());
  const errors = data.errors.map((e) => ({ label: `${e.code} (${e.op})`, value: e.requests }));
  return [
    h('div', { class: 'totals' },
      h('div', { class: 'total' }, h('strong', { id: 'total-requests' }, totals.requests), ' requests'),
      h('div', { class: 'total' }, h('strong', { id: 'total-credits' }, totals.credits), ' credits'),
      h('div', { class: 'total' }, h('strong', { id: 'total-errors' }, totals.errors), ' errors'),
      h('div', { class: 'total muted' }, `last ${data.days.length} days, UTC`)),
    stackedBars('Requests per day by operation', data.days, data.byDay.filter((r) => r.requests).map((r) => ({ day: r.day, series: r.op, value: r.requests })), { colourOf }),
    stackedBars('Credits per day by operation', data.days, data.byDay.filter((r) => r.credits).map((r) => ({ day: r.day, series: r.op, value: r.credits })), { colourOf }),
    errors.length ? horizontalBars('Errors by code', errors) : empty('No failed requests in this window.'),
    table(['Day', 'Operation', 'Requests', 'Credits'], data.byDay.slice().reverse().map((r) => h('tr', {}, h('td', {}, r.day), h('td', {}, r.op), h('td', { class: 'num' }, r.requests), h('td', { class: 'num' }, r.credits))), { id: 'usage-table' }),
  ];
}

const RUNNING = new Set(['queued', 'scraping']);

/** The jobs list; `onSelect(id)` opens a job's pages and errors. */
export function jobsPanel(data, selected, onSelect) {
  if (!data.jobs.length) return [empty('No crawl or batch jobs yet.')];
  const running = data.jobs.filter((j) => RUNNING.has(j.status)).length;
  const rows = data.jobs.map((j) =>
    h('tr', { 'data-job': j.id, class: j.id === selected ? 'selected' : null },
      h('td', {}, h('button', { type: 'button', class: 'link', 'data-open': j.id }, j.id)),
      h('td', {}, j.kind),
      h('td', {}, h('span', { class: `status status-${j.status}` }, j.status)),
      h('td', {}, progressBar(j.completed, j.failed, j.total)),
      h('td', { class: 'num' }, j.creditsUsed),
      h('td', {}, time(j.createdMs)),
      h('td', { class: 'error-text' }, j.error)));
  const list = table(['Job', 'Kind', 'Status', 'Progress', 'Credits', 'Created', 'Error'], rows, { id: 'jobs-table' });
  list.addEventListener('click', (event) => {
    const id = event.target instanceof Element ? event.target.getAttribute('data-open') : null;
    if (id) onSelect(id);
  });
  return [h('p', { class: 'muted' }, `The newest ${data.limits.jobs} jobs at most; ${running} running; updated every 1.5 s while this page is open.`), list];
}

export function jobDetail(detail) {
  return [
    h('h3', {}, `Job ${detail.id}`),
    h('h4', {}, `Newest pages (${detail.pages.length}${detail.pages.length >= detail.limits.pages ? `, the newest ${detail.limits.pages} shown` : ''})`),
    detail.pages.length
      ? table(['#', 'URL', 'Status', 'Title'], detail.pages.map((p) => h('tr', {}, h('td', { class: 'num' }, p.seq), h('td', { class: 'url' }, p.url), h('td', { class: 'num' }, p.statusCode), h('td', {}, p.title))), { id: 'job-pages' })
      : empty('No pages stored yet.'),
    h('h4', {}, `Errors (${detail.errors.length}${detail.errors.length >= detail.limits.errors ? `, the newest ${detail.limits.errors} shown` : ''})`),
    detail.errors.length
      ? table(['URL', 'Code', 'Status', 'Message'], detail.errors.map((e) => h('tr', {}, h('td', { class: 'url' }, e.url), h('td', {}, e.code), h('td', { class: 'num' }, e.statusCode), h('td', {}, e.message))), { id: 'job-errors' })
      : empty('No errors.'),
  ];
}

const CHECK_COLOURS = { changed: '#f59e0b', error: '#dc2626', failed: '#dc2626', same: '#16a34a', new: '#2563eb', running: '#9ca3af', queued: '#9ca3af' };

function checkColour(check) {
  if (check.status !== 'completed') return CHECK_COLOURS[check.status] ?? '#9ca3af';
  if (check.counts.error) return CHECK_COLOURS.error;
  if (check.counts.changed || check.counts.removed) return CHECK_COLOURS.changed;
  if (check.counts.new) return CHECK_COLOURS.new;
  return CHECK_COLOURS.same;
}

export function monitorsPanel(data) {
  if (!data.monitors.length) return [empty('No monitors yet.')];
  const out = [];
  if (data.checksTruncated) out.push(h('p', { class: 'muted', id: 'checks-truncated' }, `More than ${data.limits.checks} checks in this window: the newest ${data.limits.checks} are shown.`));
  for (const m of data.monitors) {
    const points = m.checks.map((c) => ({
      atMs: c.queuedMs,
      colour: checkColour(c),
      label: `${time(c.queuedMs)} ${c.status}: ${c.counts.new} new, ${c.counts.same} same, ${c.counts.changed} changed, ${c.counts.removed} removed, ${c.counts.error} errors`,
    }));
    out.push(
      h('section', { class: 'monitor', 'data-monitor': m.id },
        h('h3', {}, `${m.name || m.id} `, h('span', { class: 'muted' }, `${m.id} · every ${m.intervalMinutes} min · ${m.status}`)),
        h('p', { class: 'url' }, m.urls.join(', ')),
        timeline(`Checks of ${m.name || m.id} (${m.checks.length}), oldest first`, points),
        m.checks.length ? checksTable(m.checks) : null),
    );
  }
  out.push(h('ul', { class: 'legend' }, Object.entries({ 'no change': CHECK_COLOURS.same, 'new pages': CHECK_COLOURS.new, changed: CHECK_COLOURS.changed, error: CHECK_COLOURS.error }).map(([n, c]) => h('li', {}, svg('svg', { width: 10, height: 10, 'aria-hidden': 'true' }, svg('circle', { cx: 5, cy: 5, r: 5, fill: c })), ` ${n}`))));
  out.push(h('h3', {}, 'Newest changes'));
  out.push(
    data.changes.length
      ? h('div', { id: 'monitor-changes' }, data.changes.map((c) => h('details', { open: true }, h('summary', {}, `${time(c.checkedMs)} ${c.url}`), diffView(c.diff))))
      : empty('No change found yet.'),
  );
  out.push(h('h3', {}, 'Webhook deliveries'));
  out.push(
    data.deliveries.length
      ? table(['Time', 'Monitor', 'Check', 'Event', 'Result', 'Attempts', 'Error'], data.deliveries.map((d) => h('tr', {}, h('td', {}, time(d.atMs)), h('td', {}, d.monitorId), h('td', {}, d.checkId), h('td', {}, d.event), h('td', {}, d.ok ? `ok ${d.statusCode}` : `failed ${d.statusCode || ''}`), h('td', { class: 'num' }, d.attempts), h('td', {}, d.error))), { id: 'monitor-deliveries' })
      : empty('No webhook deliveries.'),
  );
  return out;
}

/** A monitor's newest checks, newest first. */
function checksTable(checks) {
  const rows = checks.slice(-10).reverse().map((c) =>
    h('tr', {}, h('td', {}, time(c.queuedMs)), h('td', {}, c.trigger), h('td', {}, c.status),
      h('td', {}, `${c.counts.new} new, ${c.counts.same} same, ${c.counts.changed} changed, ${c.counts.removed} removed, ${c.counts.error} errors`), h('td', { class: 'num' }, c.credits)));
  return h('details', { class: 'checks' }, h('summary', {}, 'Newest checks'), table(['Queued', 'Trigger', 'Status', 'Pages', 'Credits'], rows));
}

/** A unified diff, its added and removed lines marked. */
function diffView(diff) {
  return h('pre', { class: 'diff' }, diff.split('\n').map((line) => h('span', { class: line.startsWith('+') && !line.startsWith('+++') ? 'add' : line.startsWith('-') && !line.startsWith('---') ? 'del' : null }, `${line}\n`)));
}

export function mentionsPanel(data) {
  const byCategory = data.byDay.map((r) => ({ day: r.day, series: r.category, value: r.mentions }));
  const byPlatform = data.byDay.map((r) => ({ day: r.day, series: r.platform, value: r.mentions }));
  return [
    stackedBars('Mentions per day by category', data.days, byCategory),
    stackedBars('Mentions per day by platform', data.days, byPlatform),
    h('h3', {}, 'Newest mentions'),
    data.newest.length
      ? table(['Found', 'Platform', 'Category', 'Status', 'Mention'], data.newest.map((m) =>
          h('tr', { 'data-mention': m.id },
            h('td', {}, time(m.foundMs)),
            h('td', {}, m.platform),
            h('td', {}, m.category),
            h('td', {}, h('span', { class: `status mention-${m.status}` }, m.status),
              m.history.length ? h('div', { class: 'history' }, m.history.map((c) => h('div', {}, `${c.from} → ${c.to} ${time(c.atMs)}`))) : null),
            h('td', {}, h('div', { class: 'title' }, m.title || m.url), h('div', { class: 'muted' }, m.author ? `${m.author}: ` : '', m.snippet)))), { id: 'mentions-table' })
      : empty('No mentions yet.'),
  ];
}
