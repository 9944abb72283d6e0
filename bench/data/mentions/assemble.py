"""
Assembles bench/data/mentions/{train,test}.jsonl from the public labelled data sets named in
SOURCES.md, read straight out of their git snapshots at the recorded commits (no network).

    python3 bench/data/mentions/assemble.py MIRROR_DIR [--with-noncommercial]

MIRROR_DIR holds one bare clone per source named `<owner>+<name>` (the layout of the search
tool's `fetch`); each source is read with `git show <commit>:<path>`, so the result does not
depend on what the clones' HEADs moved to. Everything is deterministic: no randomness, the
split is a hash of the normalised text. The label mapping per source is the one SOURCES.md
documents; rows whose source label has no counterpart among our seven are left out, never
relabelled by hand. Standard library only.

Sources licensed for non-commercial use only (nps08) are left out unless `--with-noncommercial`
is given: the shipped train/test files and the model trained on them must not contain them, so a
run with the flag is for research only and its output must not be committed.
"""
import csv
import hashlib
import html
import io
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zipfile

csv.field_size_limit(10**9)
ARGS = [a for a in sys.argv[1:] if not a.startswith('--')]
MIRROR = ARGS[0] if ARGS else '/work/.mirror'
# nps08 is for non-commercial research use only (SOURCES.md): left out unless `--with-noncommercial`.
NONCOMMERCIAL = '--with-noncommercial' in sys.argv[1:]
UNKNOWN = [a for a in sys.argv[1:] if a.startswith('--') and a != '--with-noncommercial']
if UNKNOWN:
    sys.exit(f'unknown option {UNKNOWN[0]}; usage: python3 assemble.py MIRROR_DIR [--with-noncommercial]')
OUT = os.path.dirname(os.path.abspath(__file__))
BODY_CHARS = 700
COMPSENT_NONE_MAX = 1600


def show(repo, commit, path):
    base = os.path.join(MIRROR, repo)
    git_dir = os.path.join(base, 'repo', '.git') if os.path.isdir(os.path.join(base, 'repo', '.git')) else os.path.join(base, 'repo')
    return subprocess.run(['git', '--git-dir', git_dir, 'show', f'{commit}:{path}'], check=True, capture_output=True).stdout


def rows_csv(data, encoding='utf-8'):
    return list(csv.DictReader(io.StringIO(data.decode(encoding))))


def clean(text):
    text = re.sub(r'<!--.*?-->', ' ', text, flags=re.S)
    text = re.sub(r'```.*?```', ' ', text, flags=re.S)
    return re.sub(r'\s+', ' ', text).strip()


def cut(text, limit=BODY_CHARS):
    if len(text) <= limit:
        return text
    space = text.rfind(' ', 0, limit)
    return text[: space if space > limit // 2 else limit]


def demojibake(text):
    try:
        return text.encode('cp1252').decode('utf-8')
    except (UnicodeEncodeError, UnicodeDecodeError):
        return text


def item(text, label, source, title=None, brand=None, competitors=None):
    row = {'text': text, 'label': label, 'source': source}
    if title:
        row['title'] = title
    if brand:
        row['brand'] = brand
    if competitors:
        row['competitors'] = competitors
    return row


def compsent():
    repo, commit = 'uhh-lt+comparative', '642c332200fba544b8eb889358e4cc5cb908b65e'
    out, none = [], []
    for path in ('Classification/code/data/data.csv', 'Classification/code/data/do-not-touch/held-out-data.csv'):
        for r in rows_csv(show(repo, commit, path)):
            row = item(clean(r['sentence']), 'competitor' if r['most_frequent_label'] in ('BETTER', 'WORSE') else 'other',
                       'compsent19', brand=r['object_a'], competitors=[r['object_b']])
            (none if row['label'] == 'other' else out).append(row)
    # NONE sentences are three in four of the set: a deterministic sample (by text hash) keeps "other" from being mostly CompSent.
    none.sort(key=lambda r: hashlib.sha1(r['text'].encode()).hexdigest())
    return out + none[:COMPSENT_NONE_MAX]


def complaints():
    repo, commit = 'danielpreotiuc+complaints-social-media', '54e3402c129341809b7f1d9889d9311c3f1c1c16'
    out = []
    for r in csv.reader(io.StringIO(show(repo, commit, 'complaints-data.csv').decode('utf-8'))):
        _, text, label, domain = r
        if label == '1':
            out.append(item(clean(text), 'complaint', 'complaints19'))
        elif domain in ('random_tweet', 'random_reply'):
            out.append(item(clean(text), 'other', 'complaints19'))
    return out


def nlbse():
    repo, commit = 'nlbse2024+issue-report-classification', '2927bc67eb42db8affd16eaf3e5a6d74f3063961'
    mapping = {'bug': 'bug_report', 'question': 'question', 'feature': 'other'}
    out = []
    for path in ('data/issues_train.csv', 'data/issues_test.csv'):
        for r in rows_csv(show(repo, commit, path)):
            brand = r['repo'].split('/')[1]
            out.append(item(cut(clean(r['body'])), mapping[r['label']], 'nlbse24', title=clean(r['title']), brand=brand))
    return out


def uci_sentences():
    repo, commit = 'YechielK+sentiment_prediction_ML', '3a18d10534e8b52885b79f67a172095f9c2f566f'
    out = []
    for name in ('amazon_cells_labelled.txt', 'yelp_labelled.txt'):
        for line in show(repo, commit, f'data/{name}').decode('utf-8').splitlines():
            text, _, score = line.rpartition('\t')
            if score.strip() in ('0', '1') and text.strip():
                out.append(item(clean(text), 'praise' if score.strip() == '1' else 'complaint', 'uci-sentiment'))
    return out


def clap():
    repo, commit = 'Peter-Devine+user_feedback_machine_learning_cls_experiments', '4bb6cbb38e4e6c4a1f6e1948b354d6ac7192715d'
    out = []
    for r in rows_csv(show(repo, commit, 'data_utils/dataset_downloaders/rq1-raw-data.csv')):
        category, stars, text = r['category'], int(r['rating']), clean(r['review'])
        label = None
        if category == 'BUG':
            label = 'bug_report'
        elif category == 'FEATURE':
            label = 'other'
        elif category == 'OTHER':
            label = 'praise' if stars >= 4 else 'complaint' if stars <= 2 else None
        elif stars <= 2:
            label = 'complaint'
        if label:
            out.append(item(text, label, 'clap17'))
    return out


def urr():
    repo, commit = 'panichella+UserReviewReference-Replication-Package', '5cfdbf5d769946974d8aeeae0d417545017fe353'
    out = []
    for r in rows_csv(show(repo, commit, 'data/reviews/golden_set.csv'), 'latin-1'):
        classes = {r[k] for k in ('class1', 'class2', 'class3', 'class4', 'class5') if r.get(k)}
        stars = int(r['ratingStars'] or 0)
        label = None
        if 'ERROR' in classes:
            label = 'bug_report'
        elif classes == {'OTHER'}:
            label = 'praise' if stars >= 4 else 'complaint' if 1 <= stars <= 2 else None
        if label:
            out.append(item(clean(r['reviewText']), label, 'urr17'))
    return out


TIZARD = [
    ('apparent bug', 'bug_report'), ('question on application', 'question'), ('help seek', 'question'),
    ('information seeking', 'question'), ('dispraise', 'complaint'), ('negative sentiment', 'complaint'),
    ('unsatisfactory behaviour', 'complaint'), ('praise application', 'praise'), ('feature request', 'other'),
    ('non-informative', 'other'),
]


def tizard():
    repo, commit = 'RESubmission17+RE_Submission_17', 'f75ffe7b0743aa22f7e48ccc656886deef7f7ee3'
    with tempfile.NamedTemporaryFile(suffix='.sqlite') as f:
        f.write(show(repo, commit, 'VLC_labelled_sentences_4RE.sqlite'))
        f.flush()
        db = sqlite3.connect(f.name)
        rows = db.execute('SELECT topic_forum, sentence, label FROM labelled_sentences').fetchall()
        db.close()
    out = []
    for forum, sentence, raw in rows:
        low = (raw or '').lower()
        label = next((ours for key, ours in TIZARD if key in low), None)
        if label and sentence and sentence.strip():
            # The "Fire fox" forum is Firefox's; the "issue"/"features" forums are VLC's.
            out.append(item(clean(sentence), label, 'tizard19', brand='Firefox' if forum == 'Fire fox' else 'VLC'))
    return out


def xlsx_rows(data):
    ns = '{http://schemas.openxmlformats.org/spreadsheetml/2006/main}'
    z = zipfile.ZipFile(io.BytesIO(data))
    shared = [''.join(t.text or '' for t in si.iter(ns + 't')) for si in ET.fromstring(z.read('xl/sharedStrings.xml')).findall(ns + 'si')]
    rows = []
    for row in ET.fromstring(z.read('xl/worksheets/sheet1.xml')).iter(ns + 'row'):
        values = {}
        for c in row.findall(ns + 'c'):
            v = c.find(ns + 'v')
            col = ''.join(ch for ch in c.get('r') if ch.isalpha())
            values[col] = '' if v is None else shared[int(v.text)] if c.get('t') == 's' else v.text
        rows.append(values)
    header = rows[0]
    return [{header[k]: v for k, v in r.items() if k in header} for r in rows[1:]]


def adidas():
    repo, commit = 'fco-parga+EIT---Adidas', 'bddab370b349e0fcae15a9cfea75c90643cfd4bc'
    return [item(clean(demojibake(r['text'])), 'buying_intent', 'adidas21', brand='adidas')
            for r in xlsx_rows(show(repo, commit, 'DataBase/All_twitts_v02.xlsx')) if r.get('intent') == '2' and r.get('text')]


def iphone_pi():
    repo, commit = 'Premrathod+Final-Year-Project', '46ab69e52bfa5c48eb0dcc69e54a436090976424'
    labels = {}
    for name in ('Annotated4.csv', 'AnnotatedData2.csv', 'AnnotatedData3.csv'):
        for r in csv.reader(io.StringIO(show(repo, commit, f'uploadeddata/{name}').decode('utf-8', 'replace'))):
            if len(r) < 2 or r[0] == 'class':
                continue
            verdict = r[0].strip().lower()
            text = clean(demojibake(r[1]).strip('|'))
            if verdict in ('yes', 'pi'):
                labels.setdefault(text, set()).add('yes')
            elif verdict in ('no', 'no pi'):
                labels.setdefault(text, set()).add('no')
    # Only texts every file that has them calls purchase intent; "no" rows are any other kind of post and are left out.
    return [item(t, 'buying_intent', 'iphonex-pi', brand=['iPhone X', 'iPhone']) for t, v in sorted(labels.items()) if v == {'yes'} and t]


NLTK = ('nltk+nltk_data', '5db857e6f7df11eabb5e5665836db9ec8df07e28')


def nltk_zip(name):
    return zipfile.ZipFile(io.BytesIO(show(*NLTK, f'packages/corpora/{name}.zip')))


def by_hash(rows, limit):
    """The first `limit` rows by SHA-1 of the text: a deterministic sample."""
    return sorted(rows, key=lambda r: hashlib.sha1(r['text'].encode()).hexdigest())[:limit]


def jindal():
    """Jindal & Liu 2006 comparative sentences: gradable comparisons (<cs-1> non-equal, <cs-2> equative) that name both entities."""
    lines = nltk_zip('comparative_sentences').read('comparative_sentences/labeledSentences.txt').decode('latin-1').splitlines()
    out = []
    for i, line in enumerate(lines):
        kind = line.strip()
        if kind not in ('<cs-1>', '<cs-2>') or i + 3 >= len(lines):
            continue
        sentence, relation = clean(lines[i + 1]), lines[i + 3].strip()
        # "1_<entity S1> 2_<entity S2> 3_<feature> (keyword)": the names run to the next " <digit>_" or " (".
        names = {k: v.strip() for k, v in re.findall(r'(?:^|\s)([12])_(.+?)(?=\s[123]_|\s\(|$)', relation)}
        if '1' not in names or '2' not in names or not sentence:
            continue
        low = f' {sentence.lower()} '
        brand = names['1'] if f' {names["1"].lower()} ' in low else None
        rival = names['2'] if f' {names["2"].lower()} ' in low else None
        out.append(item(sentence, 'competitor', 'jindal06', brand=brand, competitors=[rival] if rival else None))
    return out


def huliu():
    """Hu & Liu customer-review sentences (5 + 9 products): opinion on product features, all positive -> praise, all negative -> complaint."""
    praise, complaint = [], []
    for name in ('product_reviews_1', 'product_reviews_2'):
        z = nltk_zip(name)
        for path in sorted(n for n in z.namelist() if n.endswith('.txt') and not n.endswith('README.txt')):
            for line in z.read(path).decode('latin-1').splitlines():
                tags, sep, sentence = line.partition('##')
                signs = re.findall(r'\[([+-])\d\]', tags)
                if not sep or not signs or not sentence.strip():
                    continue
                if set(signs) == {'+'}:
                    praise.append(item(clean(sentence), 'praise', 'huliu04'))
                elif set(signs) == {'-'}:
                    complaint.append(item(clean(sentence), 'complaint', 'huliu04'))
    return by_hash(praise, HULIU_MAX) + by_hash(complaint, HULIU_MAX)


HULIU_MAX = 1200
PROS_CONS_MAX = 800


def pros_cons():
    """Ganapathibhotla & Liu 2008 pros and cons of reviews (epinions): <Pros> -> praise, <Cons> -> complaint, 3+ words, a sample of each."""
    z = nltk_zip('pros_cons')
    out = []
    for path, tag, label in (('pros_cons/IntegratedPros.txt', 'Pros', 'praise'), ('pros_cons/IntegratedCons.txt', 'Cons', 'complaint')):
        rows = []
        for line in z.read(path).decode('utf-8', 'replace').splitlines():
            text = clean(line.replace(f'<{tag}>', ' ').replace(f'</{tag}>', ' '))
            if len(text.split()) >= 3:
                rows.append(item(text, label, 'proscons08'))
        out += by_hash(rows, PROS_CONS_MAX)
    return out


NPS_OTHER_MAX = 1000


COOKING = ('HuStanding+ml', '890d481df3da334b1f3b13ce43eb50df829915b7')
COOKING_MAX = 1200


def cooking_se():
    """Cooking Stack Exchange question titles (CC BY-SA 3.0): every one a question its writer asked."""
    rows = []
    for line in show(*COOKING, 'fasttext/data/cooking.stackexchange.txt').decode('utf-8').splitlines():
        words = [w for w in line.split() if not w.startswith('__label__')]
        text = clean(html.unescape(' '.join(words)))
        if len(text.split()) >= 2:
            rows.append(item(text, 'question', 'cooking-se'))
    return by_hash(rows, COOKING_MAX)


SMILE = ('Kausthub8+Emotion-Analysis-Using-BERT-With-Pytorch', '709bb93f494a6ac42750059e65ac69ad895d6ea2')
SMILE_LABELS = {'happy': 'praise', 'angry': 'complaint', 'disgust': 'complaint', 'disgust|angry': 'complaint', 'nocode': 'other'}


def smile():
    """SMILE: tweets to 13 British museums' accounts by emotion; see SOURCES.md for the mapping."""
    rows = []
    for line in csv.reader(io.StringIO(show(*SMILE, 'smile-annotations-final.csv').decode('utf-8'))):
        if len(line) != 3 or line[2] not in SMILE_LABELS:
            continue
        text = clean(html.unescape(line[1]))
        if text:
            rows.append(item(text, SMILE_LABELS[line[2]], 'smile16'))
    return rows


def nps_chat():
    """NPS Chat posts (age-specific chat rooms, 2006) by dialogue act: whQuestion, ynQuestion -> question; Statement -> other (a sample)."""
    z = nltk_zip('nps_chat')
    questions, statements = [], []
    for path in sorted(n for n in z.namelist() if n.endswith('.xml')):
        for post in ET.fromstring(z.read(path)).iter('Post'):
            text = clean(post.text or '')
            if len(text.split()) < 2:
                continue
            if post.get('class') in ('whQuestion', 'ynQuestion'):
                questions.append(item(text, 'question', 'nps08'))
            elif post.get('class') == 'Statement':
                statements.append(item(text, 'other', 'nps08'))
    return questions + by_hash(statements, NPS_OTHER_MAX)


def norm(text):
    return re.sub(r'\s+', ' ', text.lower()).strip()


WEPS = ('javier-artiles+weps', '3ab91ffd44b97ce1a070fb25f4bdb550de827979')
WEPS_PER_ENTITY = 100


def weps_relevance():
    """WePS-3 task 2 (online reputation management): tweets holding a company's name, labelled TRUE when they
    are about the company and FALSE when the name means something else. The trial set's organisation
    category and the training set's entity name stand in for a watch's context (see SOURCES.md)."""
    rows = []
    trial_orgs = {}
    for line in show(*WEPS, 'weps-3/task-2/trial/organizations_WEPS3_Task2_Trial.txt').decode('utf-8').splitlines():
        f = line.split('\t')
        if len(f) >= 5 and f[2] == 'English':
            trial_orgs[f[1]] = f'{f[0].strip()}: {f[3].strip()}'
    for line in show(*WEPS, 'weps-3/task-2/trial/data_Weps3_Task2_Trial.txt').decode('utf-8').splitlines():
        f = line.split('\t')
        if len(f) == 5 and f[0] in trial_orgs and f[4] in ('TRUE', 'FALSE'):
            rows.append({'text': clean(html.unescape(f[3])), 'keyword': f[0], 'context': trial_orgs[f[0]], 'relevant': f[4] == 'TRUE', 'entity': f[0], 'source': 'weps3-trial'})
    orgs = {}
    for line in show(*WEPS, 'weps-3/task-2/training/weps-3_task-2_organizations.txt').decode('utf-8').splitlines()[1:]:
        f = line.split('\t')
        if len(f) >= 4 and f[2] == 'English':
            orgs[f[1].strip().lower().replace('_', ' ')] = (f[0].strip(), f[1].strip().replace('_', ' '))
    by_entity = {}
    for line in show(*WEPS, 'weps-3/task-2/training/weps-3_task-2_training.tsv').decode('utf-8').splitlines():
        f = line.split('\t')
        if len(f) < 5 or f[4] not in ('TRUE', 'FALSE'):
            continue
        name = f[0].strip().lower().replace('_', ' ')
        match = orgs.get(name) or next((o for k, o in orgs.items() if k.split(' ')[0] == name), None)
        if not match:
            continue
        keyword, entity = match
        by_entity.setdefault(entity, []).append({'text': clean(html.unescape(f[3])), 'keyword': keyword, 'context': entity, 'relevant': f[4] == 'TRUE', 'entity': entity, 'source': 'weps3-training'})
    for entity in sorted(by_entity):
        rows += by_hash(by_entity[entity], WEPS_PER_ENTITY)
    seen, out = set(), []
    for r in rows:
        key = (r['entity'], norm(r['text']))
        if r['text'] and key not in seen:
            seen.add(key)
            out.append(r)
    with open(os.path.join(OUT, 'relevance.jsonl'), 'w', encoding='utf-8') as f:
        for r in out:
            f.write(json.dumps(r, ensure_ascii=False) + '\n')
    return out


def main():
    rows = compsent() + complaints() + nlbse() + uci_sentences() + clap() + urr() + tizard() + adidas() + iphone_pi() + jindal() + huliu() + pros_cons() + cooking_se() + smile() + (nps_chat() if NONCOMMERCIAL else [])
    by_text = {}
    for r in rows:
        if len(r['text']) < 3 and not r.get('title'):
            continue
        key = norm((r.get('title') or '') + ' ' + r['text'])
        by_text.setdefault(key, []).append(r)
    train, test = [], []
    for key in sorted(by_text):
        group = by_text[key]
        if len({r['label'] for r in group}) > 1:
            continue  # the same text under two labels: a conflict, not a training example
        bucket = int(hashlib.sha1(key.encode()).hexdigest()[:8], 16) % 10
        (test if bucket < 2 else train).append(group[0])
    for name, part in (('train', train), ('test', test)):
        with open(os.path.join(OUT, f'{name}.jsonl'), 'w', encoding='utf-8') as f:
            for r in part:
                f.write(json.dumps(r, ensure_ascii=False) + '\n')
    counts = {}
    for name, part in (('train', train), ('test', test)):
        for r in part:
            counts.setdefault((r['label'], r['source']), {'train': 0, 'test': 0})[name] += 1
    for (label, source), c in sorted(counts.items()):
        print(f'{label:14} {source:14} train {c["train"]:5} test {c["test"]:5}')
    print('train', len(train), 'test', len(test))
    relevance = weps_relevance()
    for source in sorted({r['source'] for r in relevance}):
        part = [r for r in relevance if r['source'] == source]
        print(f'relevance {source:16} {len(part):5} posts, {sum(r["relevant"] for r in part):5} relevant, {len({r["entity"] for r in part})} entities')


if __name__ == '__main__':
    main()
