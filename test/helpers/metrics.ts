/**
 * Reading a Prometheus exposition (text format 0.0.4) in tests: `scrapeMetrics` fetches a
 * `/metrics` page and parses its samples; `sample` sums the samples of a name whose labels
 * include the given ones (undefined when there is none).
 */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export type Samples = readonly Sample[];

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < text.length) {
    const eq = text.indexOf('=', i);
    if (eq < 0) break;
    const name = text.slice(i, eq).replace(/^,/, '').trim();
    let j = eq + 2; // past `="`
    let value = '';
    while (j < text.length && text[j] !== '"') {
      if (text[j] === '\\') j++;
      value += text[j];
      j++;
    }
    labels[name] = value;
    i = j + 1;
  }
  return labels;
}

export function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const brace = line.indexOf('{');
    const space = line.lastIndexOf(' ');
    if (brace >= 0 && brace < space) {
      const close = line.lastIndexOf('}');
      out.push({ name: line.slice(0, brace), labels: parseLabels(line.slice(brace + 1, close)), value: Number(line.slice(space + 1)) });
    } else {
      out.push({ name: line.slice(0, space), labels: {}, value: Number(line.slice(space + 1)) });
    }
  }
  return out;
}

export async function scrapeMetrics(base: string): Promise<Samples> {
  const res = await fetch(`${base}/metrics`);
  if (res.status !== 200) throw new Error(`GET ${base}/metrics answered ${res.status}`);
  if (!(res.headers.get('content-type') ?? '').startsWith('text/plain')) throw new Error(`/metrics is ${res.headers.get('content-type')}, not the text format`);
  return parseExposition(await res.text());
}

export function sample(samples: Samples, name: string, labels: Readonly<Record<string, string>>): number | undefined {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return found.length === 0 ? undefined : found.reduce((n, s) => n + s.value, 0);
}
