// The dashboard's plots, drawn as SVG by hand (no library). Every text goes in as a text node,
// never as markup: the data is the key's own, but it holds page titles and posts from the web.
const SVG = 'http://www.w3.org/2000/svg';

export const PALETTE = ['#2563eb', '#16a34a', '#f59e0b', '#dc2626', '#7c3aed', '#0891b2', '#db2777', '#65a30d', '#ea580c', '#475569'];

/** An SVG element with attributes and children (strings become text nodes). */
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  for (const child of children) node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  return node;
}

/** An HTML element with attributes and children (strings become text nodes). */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    node.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
  return node;
}

/** One colour per name, in the order the names are given. */
export function colours(names) {
  return new Map(names.map((name, i) => [name, PALETTE[i % PALETTE.length]]));
}

function legend(colourOf) {
  return h('ul', { class: 'legend' }, [...colourOf].map(([name, colour]) => h('li', {}, svg('svg', { width: 10, height: 10, 'aria-hidden': 'true' }, svg('rect', { width: 10, height: 10, fill: colour })), ` ${name}`)));
}

/** A nice upper bound for an axis. */
function ceiling(max) {
  if (max <= 0) return 1;
  const step = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 5, 10]) if (m * step >= max) return m * step;
  return 10 * step;
}

/**
 * Bars per day, stacked by series. `days`: the x slots (`YYYY-MM-DD`); `rows`: {day, series,
 * value}. Answers a <figure> with the plot and its legend.
 */
export function stackedBars(title, days, rows, { width = 900, height = 180, colourOf: given } = {}) {
  const names = [...new Set(rows.map((r) => r.series))].sort();
  const all = given ?? colours(names);
  const colourOf = new Map(names.map((name) => [name, all.get(name) ?? PALETTE[0]]));
  const totals = new Map(days.map((d) => [d, 0]));
  for (const r of rows) if (totals.has(r.day)) totals.set(r.day, totals.get(r.day) + r.value);
  const top = ceiling(Math.max(0, ...totals.values()));
  const left = 40;
  const bottom = 20;
  const plotH = height - bottom - 8;
  const slot = (width - left - 4) / Math.max(1, days.length);
  const plot = svg('svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': title, class: 'chart' });
  for (const f of [0, 0.5, 1]) {
    const y = 8 + plotH * (1 - f);
    plot.append(svg('line', { x1: left, x2: width - 4, y1: y, y2: y, stroke: '#e5e7eb' }));
    if (Number.isInteger(top * f)) plot.append(svg('text', { x: left - 4, y: y + 4, 'text-anchor': 'end', class: 'axis' }, String(top * f)));
  }
  days.forEach((day, i) => {
    let y = 8 + plotH;
    for (const name of names) {
      const value = rows.filter((r) => r.day === day && r.series === name).reduce((n, r) => n + r.value, 0);
      if (!value) continue;
      const barH = (value / top) * plotH;
      y -= barH;
      plot.append(svg('rect', { x: left + i * slot + 1, y, width: Math.max(1, slot - 2), height: barH, fill: colourOf.get(name), 'data-series': name, 'data-day': day }, svg('title', {}, `${day} ${name}: ${value}`)));
    }
    const last = days.length - 1;
    if (i === 0 || i === last || (i % 7 === 0 && last - i >= 4)) plot.append(svg('text', { x: left + i * slot + slot / 2, y: height - 4, 'text-anchor': 'middle', class: 'axis' }, day.slice(5)));
  });
  return h('figure', { class: 'plot' }, h('figcaption', {}, title), plot, legend(colourOf));
}

/** Horizontal bars, one per item {label, value}, longest first. */
export function horizontalBars(title, items, { width = 900 } = {}) {
  const sorted = [...items].sort((a, b) => b.value - a.value);
  const top = Math.max(1, ...sorted.map((i) => i.value));
  const rowH = 22;
  const labelW = 220;
  const height = Math.max(rowH, sorted.length * rowH) + 4;
  const plot = svg('svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': title, class: 'chart' });
  sorted.forEach((item, i) => {
    const y = 2 + i * rowH;
    const w = ((width - labelW - 60) * item.value) / top;
    plot.append(
      svg('text', { x: labelW - 6, y: y + 15, 'text-anchor': 'end', class: 'label' }, item.label),
      svg('rect', { x: labelW, y: y + 3, width: Math.max(1, w), height: rowH - 6, fill: item.colour ?? PALETTE[3], 'data-label': item.label }, svg('title', {}, `${item.label}: ${item.value}`)),
      svg('text', { x: labelW + w + 6, y: y + 15, class: 'value' }, String(item.value)),
    );
  });
  return h('figure', { class: 'plot' }, h('figcaption', {}, title), plot);
}

/** A progress bar: done (green) and failed (red) of total, with its figures beside it. */
export function progressBar(done, failed, total, { width = 220 } = {}) {
  const of = Math.max(total, done + failed, 1);
  const okW = (width * done) / of;
  const failW = (width * failed) / of;
  const bar = svg(
    'svg',
    { width: width + 2, height: 14, class: 'progress', role: 'progressbar', 'aria-valuemin': 0, 'aria-valuemax': of, 'aria-valuenow': done + failed },
    svg('rect', { x: 1, y: 1, width, height: 12, rx: 3, fill: '#e5e7eb' }),
    svg('rect', { x: 1, y: 1, width: okW, height: 12, rx: 3, fill: '#16a34a', class: 'done' }),
    svg('rect', { x: 1 + okW, y: 1, width: failW, height: 12, fill: '#dc2626', class: 'failed' }),
  );
  return h('span', { class: 'progress-wrap' }, bar, h('span', { class: 'progress-text' }, `${done}/${total}${failed ? ` (${failed} failed)` : ''}`));
}

/**
 * A strip of events in time order, one bar each (an uptime strip: equal widths, whatever the
 * gaps, so a burst of checks stays readable), coloured by outcome, labelled with the first and
 * last time; each bar's label is its tooltip. points: {atMs, colour, label}, oldest first.
 */
export function timeline(title, points, { width = 900, height = 50 } = {}) {
  const left = 8;
  const slot = Math.min(16, (width - 2 * left) / Math.max(1, points.length));
  const plot = svg('svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': title, class: 'chart timeline' });
  points.forEach((p, i) => {
    plot.append(svg('rect', { x: left + i * slot, y: 4, width: Math.max(1, slot - 2), height: 26, rx: 2, fill: p.colour, class: 'mark' }, svg('title', {}, p.label)));
  });
  const stamp = (ms) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
  if (points.length) {
    plot.append(svg('text', { x: left, y: height - 4, class: 'axis' }, stamp(points[0].atMs)));
    if (points.length > 1) plot.append(svg('text', { x: Math.max(left + 200, left + points.length * slot), y: height - 4, 'text-anchor': 'end', class: 'axis' }, stamp(points.at(-1).atMs)));
  }
  return h('figure', { class: 'plot' }, h('figcaption', {}, title), plot);
}
