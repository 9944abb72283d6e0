// The dashboard page: sign in with an API key, then one panel at a time from
// /dashboard/api/<panel>. The key is kept in this tab's session storage only (gone when the
// tab closes), never in local storage or a cookie, and sent as `Authorization: Bearer`.
import { jobDetail, jobsPanel, mentionsPanel, monitorsPanel, usagePanel } from './panels.js';

const KEY_SLOT = 'wds-dashboard-key';
const POLL_MS = 1500;
const TABS = ['usage', 'jobs', 'monitors', 'mentions'];
const RENDER = { usage: usagePanel, monitors: monitorsPanel, mentions: mentionsPanel };

const $ = (id) => document.getElementById(id);
let timer = null;
let selectedJob = null;

const currentKey = () => sessionStorage.getItem(KEY_SLOT);

class Unauthorized extends Error {}

async function api(path) {
  const res = await fetch(`/dashboard/api/${path}`, { headers: { authorization: `Bearer ${currentKey()}` }, cache: 'no-store', credentials: 'omit' });
  const body = await res.json().catch(() => null);
  if (res.status === 401) throw new Unauthorized(body?.error?.message ?? 'the key was refused');
  if (!res.ok || !body?.success) throw new Error(body?.error?.message ?? `HTTP ${res.status}`);
  return body.data;
}

function showSignedIn(signedIn) {
  $('sign-in').hidden = signedIn;
  $('tabs').hidden = !signedIn;
  if (!signedIn) for (const tab of TABS) $(`panel-${tab}`).hidden = true;
}

function signOut(message = '') {
  sessionStorage.removeItem(KEY_SLOT);
  clearTimeout(timer);
  showSignedIn(false);
  $('sign-in-error').textContent = message;
  $('api-key').value = '';
}

function currentTab() {
  const tab = location.hash.slice(1);
  return TABS.includes(tab) ? tab : 'usage';
}

async function renderJobs() {
  const body = $('panel-jobs').querySelector('.body');
  const data = await api('jobs');
  body.replaceChildren(...jobsPanel(data, selectedJob, (id) => {
    selectedJob = id;
    void show('jobs');
  }));
  if (selectedJob) $('job-detail').replaceChildren(...jobDetail(await api(`jobs/${encodeURIComponent(selectedJob)}`)));
  else $('job-detail').replaceChildren();
}

/** Draws a tab's panel; the jobs panel is drawn again every POLL_MS while it is shown. */
async function show(tab) {
  clearTimeout(timer);
  for (const name of TABS) {
    $(`panel-${name}`).hidden = name !== tab;
    document.querySelector(`nav a[data-tab="${name}"]`).classList.toggle('active', name === tab);
  }
  $('panel-error').textContent = '';
  try {
    if (tab === 'jobs') await renderJobs();
    else $(`panel-${tab}`).querySelector('.body').replaceChildren(...RENDER[tab](await api(tab)));
    $(`panel-${tab}`).setAttribute('data-loaded', String(Date.now()));
  } catch (error) {
    if (error instanceof Unauthorized) return signOut(error.message);
    $('panel-error').textContent = `Could not load ${tab}: ${error.message}`;
  }
  if (tab === 'jobs' && currentTab() === 'jobs' && currentKey()) timer = setTimeout(() => void show('jobs'), POLL_MS);
}

async function signIn(event) {
  event.preventDefault();
  const key = $('api-key').value.trim();
  if (!key) return;
  sessionStorage.setItem(KEY_SLOT, key);
  $('api-key').value = '';
  try {
    await api('usage');
  } catch (error) {
    return signOut(error instanceof Unauthorized ? 'That key is unknown or revoked.' : `Could not sign in: ${error.message}`);
  }
  $('sign-in-error').textContent = '';
  showSignedIn(true);
  await show(currentTab());
}

$('sign-in').addEventListener('submit', (event) => void signIn(event));
$('sign-out').addEventListener('click', () => signOut());
window.addEventListener('hashchange', () => {
  if (currentKey()) void show(currentTab());
});
if (currentKey()) {
  showSignedIn(true);
  void show(currentTab());
}
