// The page at `/`: open an archive (or its JSON), browse its readable graph as a tree, follow
// `$ref` links, search, read the summary, edit scalar values and download the re-encoded archive.
//
// Contracts:
// - Every string that comes from a file or a reply reaches the page as text (textContent,
//   createTextNode, input values), never as markup; the server's Content-Security-Policy forbids
//   inline and remote scripts besides.
// - Work that grows with the document (indexing `$id`s and `$ref`s, searching, filtering by
//   class) runs in slices of a few milliseconds, yielding to the browser between them, so a large
//   document never freezes the page; the tree renders only what is expanded, children in pages.
// - Decodes ask for `exactNumbers=1`: every number JavaScript would change (integral reals, big
//   integers, negative zero) arrives wrapped, so JSON.stringify gives the document back unchanged
//   and an edited document encodes to the same archive but for the edits.
'use strict';

(() => {
  const PAGE = 200; // children rendered at a time (a page), the rest behind "show" rows
  const SLICE_MS = 12; // longest stretch of document work between two yields
  const MAX_MATCHES = 10000;
  const COUNT_EVERY_MS = 250; // how often a running search shows its count
  const PREVIEW = 120; // characters of a value shown in its row
  const COLLECTIONS = ['$array', '$set', '$orderedSet'];
  // Wrappers whose one member is text a person may edit: a string object's, a data value's text.
  const TEXT_WRAPPERS = ['$string', '$text', '$bytesText'];
  const SMALL_DOCUMENT = 500; // nodes: a document this small opens whole
  const FIRST_LEVELS = 8; // a root with at most this many members opens them too

  const byId = (id) => document.getElementById(id);
  const ui = {
    file: byId('file'), nested: byId('nested'), drop: byId('drop'), progress: byId('progress'), notice: byId('notice'),
    progressText: byId('progress-text'), progressBar: byId('progress-bar'), problem: byId('problem'),
    workspace: byId('workspace'), fileName: byId('file-name'), back: byId('back'), forward: byId('forward'),
    viewReadable: byId('view-readable'), viewRaw: byId('view-raw'), search: byId('search'),
    searchPrev: byId('search-prev'), searchNext: byId('search-next'), searchCount: byId('search-count'),
    downloadJSON: byId('download-json'), encodeFormat: byId('encode-format'),
    downloadArchive: byId('download-archive'), editCount: byId('edit-count'),
    selectionPath: byId('selection-path'), copyPath: byId('copy-path'), editValue: byId('edit-value'),
    showReferrers: byId('show-referrers'), selectionNote: byId('selection-note'), referrers: byId('referrers'),
    tree: byId('tree'), summary: byId('summary'),
  };

  // Everything about the open file. `views` holds the readable and raw documents once fetched.
  const state = {
    source: null, // {name, bytes (ArrayBuffer), format: 'binary'|'xml'|'typedstream'|'json'}
    views: {}, // name → {doc, text, ids, refs, indexed (Promise)}
    viewName: 'readable',
    edits: 0,
    selected: null,
    matches: [], matchAt: -1, searchToken: 0,
    classFilter: null,
  };
  // Read by tests and the page benchmark: when each step of opening a file ended (ms).
  const timings = {};
  window.archivePage = { timings, state };

  // ---- Small helpers -------------------------------------------------------------------------

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  const nextTask = () => new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve();
    channel.port2.postMessage(0);
  });
  const clip = (s, n = PREVIEW) => (s.length > n ? s.slice(0, n) + '…' : s);
  const plural = (n, one, many) => `${n.toLocaleString('en')} ${n === 1 ? one : many || one + 's'}`;

  /// A path as jq reads it: `.teams."$array"[0].name`.
  function jqPath(segs) {
    if (segs.length === 0) return '.';
    let out = '';
    for (const s of segs) {
      if (typeof s === 'number') out += `[${s}]`;
      else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(s)) out += '.' + s;
      else out += '.' + JSON.stringify(s);
    }
    return out;
  }
  const pathKey = (segs) => JSON.stringify(segs);

  function bytesText(n) {
    if (n < 1024) return `${n} B`;
    if (n < 1 << 20) return `${(n / 1024).toFixed(1)} KiB`;
    return `${(n / (1 << 20)).toFixed(1)} MiB`;
  }

  // ---- What a value is -----------------------------------------------------------------------

  /// A value shown as one row without children: scalars, `$ref`s, and wrapper objects whose
  /// members are all `$` markers with scalar values (`{"$date": …}`, `{"$data": "…"}`).
  function isLeaf(v) {
    if (!isObject(v)) return !Array.isArray(v);
    if ('$ref' in v) return true;
    if ('$class' in v) return false;
    const keys = Object.keys(v);
    return keys.length > 0 && keys.every((k) => k.startsWith('$') && !k.startsWith('$$') && k !== '$id' &&
      (v[k] === null || typeof v[k] !== 'object'));
  }

  /// The children of a container: `[{segs, label, value, container, slot}]`. A collection
  /// object's items (`$array`, `$set`, `$orderedSet`) are its direct children, paths kept exact.
  function childrenOf(v) {
    const out = [];
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) out.push({ segs: [i], label: `[${i}]`, value: v[i], container: v, slot: i });
      return out;
    }
    for (const key of Object.keys(v)) {
      if (key === '$class' || key === '$id') continue;
      const member = v[key];
      if (COLLECTIONS.includes(key) && Array.isArray(member)) {
        for (let i = 0; i < member.length; i++) {
          out.push({ segs: [key, i], label: `[${i}]`, value: member[i], container: member, slot: i });
        }
      } else {
        out.push({ segs: [key], label: key.startsWith('$$') ? key.slice(1) : key, value: member, container: v, slot: key });
      }
    }
    return out;
  }

  function childCount(v) {
    if (Array.isArray(v)) return v.length;
    let n = 0;
    for (const key of Object.keys(v)) {
      if (key === '$class' || key === '$id') continue;
      n += COLLECTIONS.includes(key) && Array.isArray(v[key]) ? v[key].length : 1;
    }
    return n;
  }

  /// The text of a leaf and its kind (a CSS class).
  function leafText(v) {
    if (v === null) return ['null', 'null'];
    if (typeof v === 'string') return [JSON.stringify(clip(v)), 'string'];
    if (typeof v === 'number') return [String(v), 'number'];
    if (typeof v === 'boolean') return [String(v), 'boolean'];
    if ('$real' in v) return [String(v.$real), 'number'];
    if ('$integer' in v) return [String(v.$integer), 'number'];
    if ('$date' in v) return [`date ${v.$date}`, 'other'];
    if ('$uuid' in v) return [`uuid ${v.$uuid}`, 'other'];
    if ('$attributesOf' in v) return [`length ${v.$length} · the attributes of run [${v.$attributesOf}]`, 'other'];
    if ('$text' in v) return [JSON.stringify(clip(String(v.$text))), 'string'];
    if ('$bytesText' in v) return [JSON.stringify(clip(String(v.$bytesText))), 'string'];
    for (const marker of ['$data', '$bytes']) {
      if (typeof v[marker] === 'string') {
        const n = Math.floor((v[marker].replace(/=+$/, '').length * 3) / 4);
        return [`${marker.slice(1)} · ${plural(n, 'byte')} · ${clip(v[marker], 48)}`, 'other'];
      }
    }
    return [clip(JSON.stringify(v)), 'other'];
  }

  /// How an edit of this leaf is read back, or null when it cannot be edited here.
  function editKind(v) {
    if (typeof v === 'string') return 'string';
    if (typeof v === 'boolean') return 'boolean';
    if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'real';
    if (isObject(v)) {
      const keys = Object.keys(v);
      if (keys.length !== 1) return null;
      if (keys[0] === '$real') return 'real';
      if (keys[0] === '$integer') return 'integer';
      if (keys[0] === '$date' && typeof v.$date === 'string') return 'date';
      if (TEXT_WRAPPERS.includes(keys[0]) && typeof v[keys[0]] === 'string') return keys[0];
    }
    return null;
  }

  /// Reads `text` as a new value of `kind`, keeping the value's type (a real stays a real even when
  /// it has no fraction); throws a message a person can act on.
  function parseEdit(kind, text) {
    const t = text.trim();
    switch (kind) {
      case 'string': return text;
      case 'boolean':
        if (t === 'true' || t === 'false') return t === 'true';
        throw new Error('A boolean is true or false.');
      case 'integer': {
        if (!/^-?(0|[1-9][0-9]*)$/.test(t)) throw new Error('This value is an integer: digits, with a minus sign for a negative one.');
        const n = Number(t);
        return Number.isSafeInteger(n) ? n : { $integer: t };
      }
      case 'real': {
        if (/^-?(nan|inf|infinity)$/i.test(t)) return { $real: t.toLowerCase().replace('infinity', 'inf') };
        if (!/^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(t)) throw new Error('This value is a real number, such as 2.5 or -1e-3.');
        const n = Number(t);
        if (!Number.isFinite(n)) throw new Error('This real is out of range.');
        return Number.isInteger(n) || Object.is(n, -0) ? { $real: /[.eE]/.test(t) ? t : t + '.0' } : n;
      }
      case 'date':
        if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z$/.test(t)) {
          throw new Error('A date is written 2024-05-17T09:30:00Z (UTC).');
        }
        return { $date: t };
      case '$string': case '$text': case '$bytesText': return { [kind]: text };
      default: throw new Error('This value cannot be edited here.');
    }
  }

  // ---- Problems and progress -------------------------------------------------------------------

  function showProblem(problem) {
    const box = ui.problem;
    box.replaceChildren();
    box.append(el('h2', null, problem.title || 'The request failed'));
    if (problem.detail) box.append(el('p', null, problem.detail));
    for (const [name, value] of Object.entries(problem)) {
      if (['title', 'detail', 'type', 'instance'].includes(name)) continue;
      const line = el('p');
      line.append(el('span', 'field', name + ': '), document.createTextNode(typeof value === 'string' ? value : JSON.stringify(value)));
      box.append(line);
    }
    box.hidden = false;
  }
  const clearProblem = () => { ui.problem.hidden = true; ui.problem.replaceChildren(); };

  function showProgress(text, fraction) {
    ui.progress.hidden = false;
    ui.progressText.textContent = text;
    if (fraction === undefined) ui.progressBar.removeAttribute('value');
    else ui.progressBar.value = fraction;
  }
  const hideProgress = () => { ui.progress.hidden = true; };

  /// Sends `body` to `url`; resolves with the XHR once the reply is in. Upload and download
  /// progress are shown under `label`. Replies other than 2xx reject with the problem document.
  function request(url, body, contentType, label, responseType) {
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open('POST', url);
      xhr.setRequestHeader('Content-Type', contentType);
      xhr.responseType = responseType;
      const size = body.byteLength !== undefined ? body.byteLength : body.length;
      xhr.upload.onprogress = (e) => showProgress(`${label}: sending ${bytesText(e.loaded)} of ${bytesText(size)}`, e.lengthComputable ? e.loaded / e.total : undefined);
      xhr.upload.onload = () => showProgress(`${label}: converting on the server…`);
      xhr.onprogress = (e) => showProgress(`${label}: receiving ${bytesText(e.loaded)}`, e.lengthComputable ? e.loaded / e.total : undefined);
      xhr.onerror = () => reject({ title: 'The server could not be reached', detail: `${label} failed before a reply came back.` });
      xhr.onload = async () => {
        if (xhr.status >= 200 && xhr.status < 300) return resolve(xhr);
        let problem = { title: `${xhr.status} ${xhr.statusText}` };
        try {
          const text = responseType === 'blob' ? await xhr.response.text() : xhr.response;
          problem = Object.assign({ status: xhr.status }, JSON.parse(text));
        } catch (_) { /* not a problem document: the status line says it */ }
        reject(problem);
      };
      xhr.send(body);
    });
  }

  // ---- Opening a file --------------------------------------------------------------------------

  function sniffFormat(bytes) {
    const head = new Uint8Array(bytes, 0, Math.min(bytes.byteLength, 64));
    const text = String.fromCharCode(...head);
    if (text.startsWith('bplist')) return 'binary';
    if (text.includes('streamtyped')) return 'typedstream';
    const trimmed = text.replace(/^\uFEFF|^\xEF\xBB\xBF/, '').trimStart();
    if (trimmed.startsWith('<')) return 'xml';
    if (trimmed.startsWith('{') || trimmed.startsWith('[') || trimmed.startsWith('"')) return 'json';
    return 'binary';
  }

  function decodeURL(view) {
    const params = new URLSearchParams({ view });
    if (view === 'readable') params.set('exactNumbers', '1');
    if (view === 'readable' && state.maxDepth) params.set('maxDepth', String(state.maxDepth));
    if (ui.nested.checked && view !== 'raw') params.set('nested', '1');
    return '/v1/decode?' + params.toString();
  }

  async function open(file) {
    clearProblem();
    resetWorkspace();
    timings.start = performance.now();
    showProgress(`Reading ${file.name}…`);
    const bytes = await file.arrayBuffer();
    const format = sniffFormat(bytes);
    state.source = { name: file.name, bytes, format };
    ui.fileName.textContent = file.name;
    try {
      let text;
      if (format === 'json') {
        text = new TextDecoder().decode(bytes);
      } else {
        text = await decodeReadable(file.name, bytes);
      }
      timings.reply = performance.now();
      showProgress(`Reading the JSON (${bytesText(text.length)})…`);
      await nextTask();
      let doc;
      try {
        doc = JSON.parse(text);
      } catch (error) {
        throw { title: 'This file is not JSON the service reads', detail: String(error.message || error) };
      }
      timings.parsed = performance.now();
      const view = makeView(doc, text);
      state.views = { readable: view };
      state.viewName = 'readable';
      ui.workspace.hidden = false;
      renderTree();
      hideProgress();
      requestAnimationFrame(() => { timings.firstLevel = performance.now(); document.body.dataset.ready = '1'; });
      view.indexed.then(() => { timings.indexed = performance.now(); refreshRefBadges(); });
      loadSummary();
    } catch (problem) {
      hideProgress();
      showProblem(problem);
    }
  }

  /// The readable JSON of `bytes`. An archive nested deeper than the server's stack admits
  /// (413 too-deep) is asked for again with its deepest objects in a `$table` (`maxDepth`),
  /// which the tree shows with links like any other reference.
  async function decodeReadable(name, bytes) {
    try {
      return (await request(decodeURL('readable'), bytes, 'application/octet-stream', `Decoding ${name}`, 'text')).response;
    } catch (problem) {
      if (!(problem.status === 413 && typeof problem.limit === 'number' && String(problem.type).endsWith(':too-deep'))) throw problem;
      state.maxDepth = Math.min(64, problem.limit);
      showNotice(`This archive nests ${Number(problem.depth).toLocaleString('en')} levels deep, more than this server writes in one piece, so its deepest objects are in "$table" at the end (maxDepth=${state.maxDepth}); follow the links to reach them.`);
      return (await request(decodeURL('readable'), bytes, 'application/octet-stream', `Decoding ${name}`, 'text')).response;
    }
  }

  function showNotice(text) {
    ui.notice.textContent = text;
    ui.notice.hidden = false;
  }

  function resetWorkspace() {
    state.opened = (state.opened || 0) + 1;
    state.maxDepth = 0;
    ui.notice.hidden = true;
    state.views = {};
    state.edits = 0;
    state.selected = null;
    state.matches = [];
    state.matchAt = -1;
    state.searchToken++;
    state.classFilter = null;
    delete document.body.dataset.ready;
    for (const k of Object.keys(timings)) delete timings[k];
    ui.tree.replaceChildren();
    ui.summary.replaceChildren();
    ui.referrers.hidden = true;
    ui.search.value = '';
    ui.searchCount.textContent = '';
    ui.editCount.textContent = '';
    ui.viewReadable.classList.add('on');
    ui.viewRaw.classList.remove('on');
    select(null);
  }

  // ---- Index of `$id`s and `$ref`s ------------------------------------------------------------

  /// A document with its index: `ids` ($id → path), `refs` ($id → paths of the `{"$ref": n}`
  /// that point at it), built in slices after the first level is on screen.
  function makeView(doc, text) {
    const view = { doc, text, ids: new Map(), refs: new Map(), ready: false };
    view.indexed = indexDocument(view);
    return view;
  }

  /// `$id`s are numbered per document: a payload decoded in place (`nested=1`) has its own,
  /// so the index keys each by the payload it is in (`scopeOf`).
  const PAYLOAD_KEYS = ['$keyedArchive', '$typedstream', '$propertyList'];
  function scopeOf(segs) {
    for (let i = segs.length - 1; i > 0; i--) {
      if (PAYLOAD_KEYS.includes(segs[i])) return pathKey(segs.slice(0, i + 1));
    }
    return '';
  }
  const idKey = (scope, id) => `${scope}#${id}`;
  /// Where the object `id` referred to from `segs` is, and the places that refer to it.
  const targetOf = (view, segs, id) => view.ids.get(idKey(scopeOf(segs), id));
  const referrersOf = (view, segs, id) => view.refs.get(idKey(scopeOf(segs), id)) || [];

  /// The pace of a walk over the document: `due()`, called once a step, turns true when the
  /// slice's SLICE_MS are spent (the clock is read every 256 steps); `next()` yields to the
  /// browser and starts the next slice.
  function sliceClock() {
    let budget = performance.now() + SLICE_MS;
    let steps = 0;
    return {
      due: () => ++steps % 256 === 0 && performance.now() > budget,
      async next() {
        await nextTask();
        budget = performance.now() + SLICE_MS;
      },
    };
  }

  async function indexDocument(view) {
    const stack = [[view.doc, [], '']];
    const clock = sliceClock();
    while (stack.length) {
      const [value, segs, scope] = stack.pop();
      if (isObject(value)) {
        if ('$ref' in value && typeof value.$ref === 'number') {
          const key = idKey(scope, value.$ref);
          const list = view.refs.get(key);
          if (list) list.push(segs); else view.refs.set(key, [segs]);
          continue;
        }
        if (typeof value.$id === 'number') view.ids.set(idKey(scope, value.$id), segs);
        for (const key in value) {
          const member = value[key];
          if (member === null || typeof member !== 'object') continue;
          const inner = segs.concat(key);
          stack.push([member, inner, segs.length > 0 && PAYLOAD_KEYS.includes(key) ? pathKey(inner) : scope]);
        }
      } else if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i--) {
          const member = value[i];
          if (member !== null && typeof member === 'object') stack.push([member, segs.concat(i), scope]);
        }
      }
      if (clock.due()) await clock.next();
    }
    view.ready = true;
  }

  const currentView = () => state.views[state.viewName];

  function valueAt(doc, segs) {
    let v = doc;
    for (const s of segs) v = v == null ? undefined : v[s];
    return v;
  }

  // ---- The tree --------------------------------------------------------------------------------

  /// One rendered node. `el` is its row, `box` its children's element once expanded; its
  /// children are rendered a page at a time, any page first (`renderPage`), so `childRows` is
  /// sparse: the rows of the pages shown.
  function makeRow(entry, segs, parentRow) {
    const row = { value: entry.value, label: entry.label, segs, parent: parentRow, container: entry.container,
      slot: entry.slot, el: null, box: null, expanded: false, entries: null, childRows: [] };
    const line = el('div', 'row');
    line.setAttribute('role', 'treeitem');
    line._row = row;
    row.el = line;
    paintRow(row);
    return row;
  }

  function paintRow(row) {
    const line = row.el;
    const v = row.value;
    line.replaceChildren();
    const leaf = isLeaf(v);
    const twist = el('span', 'twist', leaf ? '' : row.expanded ? '▾' : '▸');
    line.append(twist);
    if (row.label !== null) line.append(el('span', 'key', row.label), el('span', 'meta', ': '));
    if (leaf) {
      if (isObject(v) && '$ref' in v) {
        const link = el('a', 'ref', `→ #${v.$ref}`);
        link.dataset.ref = String(v.$ref);
        const target = targetClass(v.$ref, row.segs);
        line.append(link);
        if (target) line.append(el('span', 'meta', ' ' + target));
      } else {
        const [text, kind] = leafText(v);
        line.append(el('span', 'value ' + kind, text));
        if (row.label === '$hex' && typeof v === 'string' && /^#[0-9A-Fa-f]{6}$/.test(v)) {
          // A colour's sRGB value, shown as a swatch (set through the style object, which the
          // page's policy allows; the value is checked to be a hex colour first).
          const swatch = el('span', 'swatch');
          swatch.style.backgroundColor = v;
          line.append(swatch);
        }
      }
      return;
    }
    line.setAttribute('aria-expanded', String(row.expanded));
    if (isObject(v) && typeof v.$class === 'string') line.append(el('span', 'cls', v.$class));
    if (isObject(v) && typeof v.$id === 'number') {
      line.append(el('span', 'id', `#${v.$id}`));
      const view = currentView();
      const n = view && view.ready ? referrersOf(view, row.segs, v.$id).length : 0;
      if (n > 0) {
        const refs = el('span', 'refs', `${plural(n, 'ref')}`);
        refs.dataset.referrers = String(v.$id);
        line.append(refs);
      }
    }
    const n = childCount(v);
    line.append(el('span', 'meta', ' ' + (Array.isArray(v) || COLLECTIONS.some((k) => isObject(v) && k in v)
      ? `[${n.toLocaleString('en')}]` : `{${n.toLocaleString('en')}}`)));
    const preview = previewOf(v);
    if (preview) line.append(el('span', 'meta', '  ' + preview));
  }

  /// A closed container's first scalar members, so a row says what it is before it is opened.
  function previewOf(v) {
    if (!isObject(v)) return '';
    const parts = [];
    for (const key of Object.keys(v)) {
      if (key.startsWith('$')) continue;
      const member = v[key];
      if (member === null || typeof member !== 'object') {
        parts.push(`${key}=${typeof member === 'string' ? JSON.stringify(clip(member, 30)) : String(member)}`);
        if (parts.length === 3) break;
      }
    }
    return parts.join(' ');
  }

  function targetClass(id, from) {
    const view = currentView();
    if (!view || !view.ready) return '';
    const segs = targetOf(view, from, id);
    if (!segs) return '';
    const target = valueAt(view.doc, segs);
    return isObject(target) && typeof target.$class === 'string' ? target.$class : '';
  }

  function renderTree() {
    const view = currentView();
    ui.tree.replaceChildren();
    const root = makeRow({ value: view.doc, label: null, container: null, slot: null }, [], null);
    state.root = root;
    ui.tree.append(root.el);
    if (isLeaf(view.doc)) return;
    expand(root);
    if (nodeCount(view.doc, SMALL_DOCUMENT) < SMALL_DOCUMENT) return expandAll(root);
    // A large one opens its first levels: the root's members, when it has only a few.
    if (root.entries.length <= FIRST_LEVELS) for (const child of root.childRows) expand(child);
  }

  /// Nodes in `doc`, counted up to `limit`.
  function nodeCount(doc, limit) {
    const stack = [doc];
    let n = 0;
    while (stack.length && n < limit) {
      const v = stack.pop();
      n++;
      if (v !== null && typeof v === 'object') for (const k in v) stack.push(v[k]);
    }
    return n;
  }

  function expandAll(row) {
    const stack = [row];
    while (stack.length) {
      const r = stack.pop();
      expand(r);
      for (const child of r.childRows) if (child && !isLeaf(child.value)) stack.push(child);
    }
  }

  function expand(row) {
    if (row.expanded || isLeaf(row.value)) return;
    row.expanded = true;
    if (!row.box) {
      row.entries = childrenOf(row.value);
      row.box = el('div', 'children');
      row.box.setAttribute('role', 'group');
      row.el.after(row.box);
      const gap = makeGap(row, 0, Math.ceil(row.entries.length / PAGE));
      if (gap) row.box.append(gap);
      renderPage(row, 0);
    }
    row.box.hidden = false;
    paintRow(row);
  }

  function collapse(row) {
    if (!row.expanded) return;
    row.expanded = false;
    row.box.hidden = true;
    paintRow(row);
  }

  /// A row standing for the pages `from` up to `to` (not included) of `row`'s children that
  /// are not shown; a click shows the one next to the shown rows (the last of the gap when it is
  /// above every shown page, else its first). Null when the range is empty.
  function makeGap(row, from, to) {
    if (from >= to) return null;
    const pages = Math.ceil(row.entries.length / PAGE);
    const shows = from === 0 && to < pages ? to - 1 : from;
    const first = from * PAGE;
    const last = Math.min(row.entries.length, to * PAGE) - 1;
    const showFirst = shows * PAGE;
    const showLast = Math.min(row.entries.length, (shows + 1) * PAGE) - 1;
    const hidden = last - first + 1;
    const gap = el('div', 'row more', hidden === showLast - showFirst + 1
      ? `show [${showFirst}]…[${showLast}]`
      : `show [${showFirst}]…[${showLast}] (${hidden.toLocaleString('en')} not shown: [${first}]…[${last}])`);
    gap._gap = { row, from, to, shows };
    return gap;
  }

  /// Shows page `p` of `row`'s children in place of the part of the gap that held it.
  function renderPage(row, p) {
    const gap = [...row.box.children].find((child) => child._gap && child._gap.from <= p && p < child._gap.to);
    if (!gap) return; // shown already
    const page = el('div', 'page');
    const end = Math.min(row.entries.length, (p + 1) * PAGE);
    for (let i = p * PAGE; i < end; i++) {
      const entry = row.entries[i];
      const child = makeRow(entry, row.segs.concat(entry.segs), row);
      row.childRows[i] = child;
      page.append(child.el);
    }
    const { from, to } = gap._gap;
    gap.replaceWith(...[makeGap(row, from, p), page, makeGap(row, p + 1, to)].filter(Boolean));
  }

  /// The index in `row.entries` of the child that `segs[i…]` leads to, or -1.
  function entryIndex(row, segs, i) {
    const seg = segs[i];
    if (Array.isArray(row.value)) return typeof seg === 'number' && seg < row.entries.length ? seg : -1;
    const j = row.entries.findIndex((e) => e.segs[0] === seg);
    if (j < 0 || row.entries[j].segs.length === 1) return j;
    // A collection object's items: the collection's first item, then the element's index.
    const index = segs[i + 1];
    return typeof index === 'number' && j + index < row.entries.length && row.entries[j + index].segs[1] === index ? j + index : -1;
  }

  function refreshRefBadges() {
    for (const line of ui.tree.querySelectorAll('.row')) {
      if (line._row) paintRow(line._row);
    }
  }

  /// The path of a place as the service names it (`archive-tool compare`, the summary's
  /// `path`): `.teams.$array[0].name`, `$id 47 .home.name`, `["odd key"]`, `.` for the root;
  /// `$id n` starts again at that object, in the payload the path has entered. Null when the
  /// text is not such a path (or has its middle left out) or leads nowhere in `view`.
  function parsePlace(text, view) {
    let segs = [];
    let i = 0;
    while (i < text.length) {
      const c = text[i];
      if (c === ' ') { i++; continue; }
      if (text.startsWith('$id ', i)) {
        const m = /^\$id (\d+)/.exec(text.slice(i));
        if (!m) return null;
        const at = targetOf(view, segs, Number(m[1]));
        if (!at) return null;
        segs = at.slice();
        i += m[0].length;
      } else if (c === '.') {
        const m = /^\.([A-Za-z0-9_$@]+)/.exec(text.slice(i));
        if (m) { segs.push(m[1]); i += m[0].length; } else i++;
      } else if (c === '[') {
        const index = /^\[(\d+)\]/.exec(text.slice(i));
        if (index) { segs.push(Number(index[1])); i += index[0].length; continue; }
        const quoted = /^\[("(?:[^"\\]|\\.)*")\]/.exec(text.slice(i));
        if (!quoted) return null;
        segs.push(JSON.parse(quoted[1]));
        i += quoted[0].length;
      } else {
        return null;
      }
    }
    return valueAt(view.doc, segs) === undefined ? null : segs;
  }

  // ---- Selection, reveal, history -------------------------------------------------------------

  function select(row) {
    if (state.selected && state.selected.el) state.selected.el.classList.remove('selected');
    state.selected = row;
    ui.referrers.hidden = true;
    if (!row) {
      ui.selectionPath.textContent = 'Select a node to see its path';
      ui.copyPath.disabled = ui.editValue.disabled = ui.showReferrers.disabled = true;
      ui.selectionNote.textContent = '';
      return;
    }
    row.el.classList.add('selected');
    ui.selectionPath.textContent = jqPath(row.segs);
    ui.copyPath.disabled = false;
    ui.editValue.disabled = state.viewName !== 'readable' || editKind(row.value) === null || isProtectedSlot(row);
    const id = isObject(row.value) ? row.value.$id : undefined;
    const view = currentView();
    const count = typeof id === 'number' && view.ready ? referrersOf(view, row.segs, id).length : 0;
    ui.showReferrers.disabled = count === 0;
    ui.selectionNote.textContent = typeof id === 'number' ? `#${id} · ${plural(count, 'reference')} to it` : '';
  }

  /// Marker members (`$class`, `$id`, the wrappers' own keys) hold the format's values, not data
  /// to edit; a string object's `$string` is the string itself.
  function isProtectedSlot(row) {
    return typeof row.slot === 'string' && row.slot.startsWith('$') && !row.slot.startsWith('$$') && row.slot !== '$string';
  }

  /// Opens the tree down to `segs`, scrolls to the node and marks it; returns its row.
  function reveal(segs, mark = 'focus') {
    let row = state.root;
    let i = 0;
    while (i < segs.length) {
      expand(row);
      const j = entryIndex(row, segs, i);
      if (j < 0) break;
      renderPage(row, Math.floor(j / PAGE));
      i += row.entries[j].segs.length;
      row = row.childRows[j];
    }
    for (const old of ui.tree.querySelectorAll('.row.focus')) old.classList.remove('focus');
    row.el.classList.add(mark);
    select(row);
    row.el.scrollIntoView({ block: 'center' });
    return row;
  }

  /// Follows a `$ref`: the target's body, with a history entry to come back by.
  async function follow(id, from) {
    const view = currentView();
    await view.indexed;
    const segs = targetOf(view, from, id);
    if (!segs) return showProblem({ title: 'No such object', detail: `No object in this document has "$id": ${id}.` });
    history.replaceState({ segs: from, view: state.viewName, opened: state.opened }, '');
    history.pushState({ segs, view: state.viewName, opened: state.opened }, '');
    reveal(segs);
  }

  async function showReferrers(id, at) {
    const view = currentView();
    await view.indexed;
    const list = referrersOf(view, at, id);
    ui.referrers.replaceChildren(el('div', 'count', `${plural(list.length, 'place')} refer to #${id}:`));
    for (const segs of list.slice(0, 1000)) {
      const link = el('a', null, jqPath(segs));
      link.href = '#';
      link.addEventListener('click', (e) => {
        e.preventDefault();
        history.pushState({ segs, view: state.viewName, opened: state.opened }, '');
        reveal(segs);
      });
      ui.referrers.append(link);
    }
    if (list.length > 1000) ui.referrers.append(el('div', 'count', `and ${(list.length - 1000).toLocaleString('en')} more`));
    ui.referrers.hidden = false;
  }

  // ---- Search and class filter -----------------------------------------------------------------

  /// Walks the document in slices, collecting the paths where `test` holds; a newer search stops
  /// an older one.
  async function findAll(test, describe) {
    const token = ++state.searchToken;
    const view = currentView();
    const matches = [];
    state.matches = matches;
    state.matchAt = -1;
    for (const old of ui.tree.querySelectorAll('.row.hit, .row.focus')) old.classList.remove('hit', 'focus');
    const stack = [[view.doc, []]];
    const clock = sliceClock();
    let first = true;
    // The running count is shown a few times a second, not after every slice: each change of
    // the text lays the page out again, which costs as much as a slice when the tree is large.
    let shown = 0;
    while (stack.length && matches.length < MAX_MATCHES) {
      const [value, segs] = stack.pop();
      test(value, segs, matches, stack);
      if (clock.due()) {
        const now = performance.now();
        if (now - shown > COUNT_EVERY_MS) {
          shown = now;
          ui.searchCount.textContent = `${describe}: ${matches.length.toLocaleString('en')} so far…`;
        }
        if (first && matches.length) { first = false; state.matchAt = 0; reveal(matches[0]); }
        await clock.next();
        if (token !== state.searchToken) return;
      }
    }
    if (token !== state.searchToken) return;
    const more = matches.length >= MAX_MATCHES ? '+' : '';
    ui.searchCount.textContent = matches.length ? `${describe}: ${matches.length.toLocaleString('en')}${more} matches` : `${describe}: no match${state.classFilter ? ' (its objects read as plain JSON values here, without "$class"; Raw shows every object)' : ''}`;
    if (matches.length && state.matchAt < 0) { state.matchAt = 0; reveal(matches[0]); }
    if (matches.length) ui.searchCount.textContent = `${state.matchAt + 1} of ${matches.length.toLocaleString('en')}${more} (${describe})`;
    document.body.dataset.searched = String(matches.length);
  }

  /// Pushes `value`'s children (in document order) for the walk.
  function pushChildren(value, segs, stack) {
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], segs.concat(i)]);
    } else if (isObject(value)) {
      const keys = Object.keys(value);
      for (let i = keys.length - 1; i >= 0; i--) stack.push([value[keys[i]], segs.concat(keys[i])]);
    }
  }

  function search(query) {
    state.searched = query;
    state.classFilter = null;
    const q = query.trim().toLowerCase();
    if (!q) { state.searchToken++; state.matches = []; ui.searchCount.textContent = ''; return; }
    findAll((value, segs, matches, stack) => {
      if (value === null || typeof value !== 'object') {
        if (String(value).toLowerCase().includes(q)) {
          // A marker's value (a class name, a date) is found at the object that holds it.
          const last = segs[segs.length - 1];
          matches.push(typeof last === 'string' && last.startsWith('$') && !last.startsWith('$$') && last !== '$string' ? segs.slice(0, -1) : segs);
        }
        return;
      }
      if (isObject(value)) {
        for (const key of Object.keys(value)) {
          if (!key.startsWith('$') && key.toLowerCase().includes(q)) matches.push(segs.concat(key));
        }
      }
      pushChildren(value, segs, stack);
    }, `“${clip(query, 30)}”`);
  }

  function filterClass(name) {
    state.classFilter = name;
    state.searched = null;
    ui.search.value = '';
    findAll((value, segs, matches, stack) => {
      if (isObject(value) && value.$class === name && !('$ref' in value)) matches.push(segs);
      if (value !== null && typeof value === 'object') pushChildren(value, segs, stack);
    }, `class ${name}`);
  }

  function step(delta) {
    const n = state.matches.length;
    if (!n) return;
    state.matchAt = (state.matchAt + delta + n) % n;
    reveal(state.matches[state.matchAt]);
    const text = ui.searchCount.textContent.replace(/^[\d,]+ of /, '');
    ui.searchCount.textContent = `${state.matchAt + 1} of ${text}`;
  }

  // ---- Editing -----------------------------------------------------------------------------------

  /// An attributed string's text (its `$string`, or the `$string` of the string object there)
  /// is cut into runs by UTF-16 length: an edit may change the characters, not the length.
  function checkRunLengths(row, before, after) {
    if (row.slot !== '$string') return;
    const owner = row.parent && isObject(row.parent.value) && '$runs' in row.parent.value ? row.parent
      : row.parent && row.parent.slot === '$string' && row.parent.parent && isObject(row.parent.parent.value) && '$runs' in row.parent.parent.value ? row.parent.parent : null;
    if (!owner) return;
    const length = (v) => (typeof v === 'string' ? v : isObject(v) && typeof v.$string === 'string' ? v.$string : '').length;
    if (length(after) !== length(before)) {
      throw new Error(`This text is cut into runs of attributes by length: keep it ${length(before)} UTF-16 units long (it is ${length(after)}), or edit the runs' lengths in the JSON.`);
    }
  }

  function beginEdit(row) {
    const kind = editKind(row.value);
    if (!kind || state.viewName !== 'readable' || isProtectedSlot(row)) return;
    const current = row.value;
    const text = typeof current === 'object' ? String(Object.values(current)[0]) : String(current);
    const input = el('input', 'editor');
    input.value = text;
    input.setAttribute('aria-label', `New value (${kind})`);
    const valueSpan = row.el.querySelector('.value');
    if (valueSpan) valueSpan.replaceWith(input); else row.el.append(input);
    input.focus();
    input.select();
    let done = false;
    const finish = (commit) => {
      if (done) return;
      if (commit) {
        let next;
        try {
          next = parseEdit(kind, input.value);
          checkRunLengths(row, current, next);
        } catch (error) {
          ui.selectionNote.textContent = error.message;
          input.setCustomValidity(error.message);
          input.reportValidity();
          return;
        }
        done = true;
        if (JSON.stringify(next) !== JSON.stringify(current)) {
          // Defined, not assigned: a member named "__proto__" is an own property of the parsed
          // document, which assignment would not reach.
          Object.defineProperty(row.container, row.slot, { value: next, writable: true, enumerable: true, configurable: true });
          row.value = next;
          if (!row.el.classList.contains('edited')) { state.edits++; row.el.classList.add('edited'); }
          ui.editCount.textContent = `${plural(state.edits, 'edit')} not yet downloaded`;
          currentView().text = null; // the reply's text no longer says the document
        }
      }
      done = true;
      paintRow(row);
      select(row);
    };
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') finish(true);
      else if (e.key === 'Escape') finish(false);
    });
    input.addEventListener('blur', () => finish(true));
  }

  // ---- Downloads -----------------------------------------------------------------------------------

  function save(blob, name) {
    const link = document.createElement('a');
    link.href = URL.createObjectURL(blob);
    link.download = name;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 60000);
  }

  function baseName() {
    const name = state.source ? state.source.name : 'archive';
    return name.replace(/\.[^.]*$/, '') || name;
  }

  /// The document as JSON text. JSON.stringify recurses, so a document nested deeper than the
  /// browser's stack (a long linked list of objects) is written by a loop instead.
  function stringify(doc) {
    try {
      return JSON.stringify(doc);
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
    }
    const out = [];
    const stack = [[doc, null]];
    while (stack.length) {
      const top = stack[stack.length - 1];
      const [value, state] = top;
      if (value === null || typeof value !== 'object') {
        out.push(typeof value === 'number' && !Number.isFinite(value) ? 'null' : JSON.stringify(value));
        stack.pop();
        continue;
      }
      const isArray = Array.isArray(value);
      if (state === null) {
        const keys = isArray ? null : Object.keys(value).filter((k) => value[k] !== undefined);
        top[1] = { keys, at: 0 };
        out.push(isArray ? '[' : '{');
        continue;
      }
      const count = isArray ? value.length : state.keys.length;
      if (state.at === count) {
        out.push(isArray ? ']' : '}');
        stack.pop();
        continue;
      }
      if (state.at > 0) out.push(',');
      const key = isArray ? state.at : state.keys[state.at];
      if (!isArray) out.push(JSON.stringify(key), ':');
      state.at++;
      stack.push([value[key], null]);
    }
    return out.join('');
  }

  function downloadJSON() {
    const view = currentView();
    const text = view.text !== null ? view.text : stringify(view.doc);
    save(new Blob([text], { type: 'application/json' }), `${baseName()}${state.viewName === 'raw' ? '.raw' : ''}.json`);
  }

  async function downloadArchive() {
    clearProblem();
    const view = state.views.readable;
    const doc = view.doc;
    let format = ui.encodeFormat.value;
    if (format === 'same') format = state.source.format === 'xml' ? 'xml' : 'binary';
    const isTypedStream = isObject(doc) && '$typedstream' in doc;
    try {
      // Unedited, the reply's own text goes back: JavaScript objects list keys that look like
      // array indexes first, so a document parsed and written again may order a dictionary's
      // keys differently (the same dictionary, other bytes).
      const body = view.text !== null ? view.text : stringify(doc);
      const xhr = await request(`/v1/encode?format=${format}`, body, 'application/json', 'Encoding', 'blob');
      hideProgress();
      const ext = isTypedStream ? 'typedstream' : 'plist';
      const original = state.source.name.match(/\.([^.]+)$/);
      const suffix = state.source.format !== 'json' && original ? original[1] : ext;
      save(xhr.response, `${baseName()}${state.edits ? '.edited' : ''}.${suffix}`);
      state.lastEncoded = xhr.response;
      document.body.dataset.encoded = String(xhr.response.size);
      if (state.edits) ui.editCount.textContent = `${plural(state.edits, 'edit')} in the downloaded archive`;
    } catch (problem) {
      hideProgress();
      showProblem(problem);
    }
  }

  // ---- Raw view and summary --------------------------------------------------------------------------

  /// The archive's bytes for a request: the file itself, or for a JSON file the archive it encodes to.
  async function archiveBytes() {
    if (state.source.format !== 'json') return state.source.bytes;
    if (!state.source.encoded) {
      const xhr = await request('/v1/encode', stringify(state.views.readable.doc), 'application/json', 'Encoding', 'arraybuffer');
      state.source.encoded = xhr.response;
    }
    return state.source.encoded;
  }

  async function switchView(name) {
    if (name === state.viewName) return;
    clearProblem();
    if (!state.views[name]) {
      try {
        const xhr = await request(decodeURL(name), await archiveBytes(), 'application/octet-stream', 'Raw view', 'text');
        state.views[name] = makeView(JSON.parse(xhr.response), xhr.response);
        hideProgress();
      } catch (problem) {
        hideProgress();
        return showProblem(problem);
      }
    }
    state.viewName = name;
    ui.viewReadable.classList.toggle('on', name === 'readable');
    ui.viewRaw.classList.toggle('on', name === 'raw');
    state.matches = [];
    state.searchToken++;
    ui.searchCount.textContent = '';
    select(null);
    renderTree();
    currentView().indexed.then(refreshRefBadges);
  }

  async function loadSummary() {
    ui.summary.replaceChildren(el('p', 'count', 'Summarising…'));
    let summary;
    try {
      const bytes = await archiveBytes();
      const xhr = await request(decodeURL('summary'), bytes, 'application/octet-stream', 'Summary', 'text');
      summary = JSON.parse(xhr.response);
    } catch (problem) {
      ui.summary.replaceChildren(el('h2', null, 'Summary'), el('p', 'count', problem.detail || problem.title || 'No summary for this file.'));
      return;
    } finally {
      hideProgress();
    }
    // Its places name objects by `$id`: the index must be there to follow them.
    if (state.views.readable) await state.views.readable.indexed;
    renderSummary(summary);
    timings.summary = performance.now();
    document.body.dataset.summary = '1';
  }

  function renderSummary(s) {
    const box = ui.summary;
    box.replaceChildren(el('h2', null, 'Summary'));
    const facts = el('dl');
    const fact = (name, value, key) => {
      if (value === undefined || value === null) return;
      const dd = el('dd', null, typeof value === 'number' ? value.toLocaleString('en') : value);
      if (key) dd.dataset.summary = key;
      facts.append(el('dt', null, name), dd);
    };
    fact('format', s.format, 'format');
    if (typeof s.bytes === 'number') fact('size', bytesText(s.bytes), 'bytes');
    fact('objects', s.objects, 'objects');
    fact('classes', Array.isArray(s.classes) ? s.classes.length : undefined, 'classCount');
    fact('shared', s.shared, 'shared');
    fact('cyclic', s.cyclic, 'cyclic');
    if (isObject(s.nesting)) {
      fact('nesting (readable)', s.nesting.readable, 'nestingReadable');
      fact('nesting (raw)', s.nesting.raw, 'nestingRaw');
    }
    box.append(facts);

    if (Array.isArray(s.classes) && s.classes.length) {
      box.append(el('h3', null, 'Classes'));
      const table = el('table');
      const head = el('tr');
      head.append(el('th', null, 'class'), el('th', null, 'objects'), el('th', null, 'shared'), el('th', null, 'cyclic'));
      table.append(head);
      for (const c of s.classes) {
        const tr = el('tr');
        const name = el('td');
        const button = el('button', 'class-filter', c.class);
        button.type = 'button';
        button.title = Array.isArray(c.chain) ? c.chain.join(' → ') : c.class;
        button.addEventListener('click', () => {
          for (const b of box.querySelectorAll('.class-filter.on')) b.classList.remove('on');
          button.classList.add('on');
          filterClass(c.class);
        });
        name.append(button);
        const num = (n, key) => { const td = el('td', 'n', typeof n === 'number' ? n.toLocaleString('en') : ''); td.dataset.summary = key; return td; };
        tr.append(name, num(c.count, 'count'), num(c.shared, 'shared'), num(c.cyclic, 'cyclic'));
        tr.dataset.class = c.class;
        table.append(tr);
        if (Array.isArray(c.keys) && c.keys.length) {
          const keys = el('tr');
          const td = el('td', 'keys');
          td.colSpan = 4;
          td.textContent = c.keys.slice(0, 12).map((k) => `${k.key} (${Object.entries(k.kinds || {}).map(([kind, n]) => n === k.count ? kind : `${kind} ${n}`).join(', ')})`).join(' · ') +
            (c.keys.length > 12 ? ` · ${c.keys.length - 12} more` : '');
          keys.append(td);
          table.append(keys);
        }
      }
      box.append(table);
    }
    if (typeof s.classesNotListed === 'number') box.append(el('p', 'count', `and ${plural(s.classesNotListed, 'more class', 'more classes')}`));
    if (isObject(s.containers)) {
      box.append(el('h3', null, 'Containers'));
      box.append(el('div', null, `${plural(s.containers.arrays || 0, 'array')}, ${plural(s.containers.dictionaries || 0, 'dictionary', 'dictionaries')}`));
    }
    if (Array.isArray(s.dictionaryKeys) && s.dictionaryKeys.length) {
      box.append(el('h3', null, 'Dictionary keys'));
      const table = el('table');
      for (const k of s.dictionaryKeys) {
        const tr = el('tr');
        tr.append(el('td', null, k.key), el('td', 'n', (k.count || 0).toLocaleString('en')),
          el('td', 'keys', Object.entries(k.kinds || {}).map(([kind, n]) => `${kind} ${n}`).join(', ')));
        table.append(tr);
      }
      box.append(table);
      if (typeof s.dictionaryKeysNotListed === 'number') box.append(el('p', 'count', `and ${plural(s.dictionaryKeysNotListed, 'more use')} of keys not listed`));
    }
    if (Array.isArray(s.nestedPayloads) && s.nestedPayloads.length) {
      box.append(el('h3', null, 'Archives inside data'));
      for (const p of s.nestedPayloads) box.append(el('div', null, `${p.format}: ${p.count}`));
    }
    for (const [title, list] of [['Largest strings', s.largestStrings], ['Largest data', s.largestData]]) {
      if (!Array.isArray(list) || !list.length) continue;
      box.append(el('h3', null, title));
      for (const item of list) {
        const line = el('div', 'preview');
        line.append(el('span', 'meta', `${(item.length || 0).toLocaleString('en')} · `));
        const view = state.views.readable;
        const segs = typeof item.path === 'string' && view ? parsePlace(item.path, view) : null;
        if (segs) {
          const link = el('a', 'place', item.preview || item.path);
          link.href = '#';
          link.title = item.path;
          link.addEventListener('click', (e) => {
            e.preventDefault();
            if (state.viewName !== 'readable') return;
            history.pushState({ segs, view: 'readable', opened: state.opened }, '');
            reveal(segs);
          });
          line.append(link);
        } else {
          line.append(document.createTextNode(item.preview || ''));
          if (item.path) line.title = item.path;
        }
        if (item.file) line.append(el('span', 'meta', ` (${item.file})`));
        box.append(line);
      }
    }
  }

  // ---- Wiring ----------------------------------------------------------------------------------------

  ui.file.addEventListener('change', () => { if (ui.file.files[0]) open(ui.file.files[0]); });
  let dragDepth = 0;
  window.addEventListener('dragenter', (e) => { e.preventDefault(); dragDepth++; ui.drop.hidden = false; });
  window.addEventListener('dragleave', () => { if (--dragDepth <= 0) { dragDepth = 0; ui.drop.hidden = true; } });
  window.addEventListener('dragover', (e) => e.preventDefault());
  window.addEventListener('drop', (e) => {
    e.preventDefault();
    dragDepth = 0;
    ui.drop.hidden = true;
    const file = e.dataTransfer && e.dataTransfer.files[0];
    if (file) open(file);
  });

  ui.tree.addEventListener('click', (e) => {
    const target = e.target;
    const line = target.closest('.row');
    if (target.dataset.ref) return follow(Number(target.dataset.ref), line._row.segs);
    if (target.dataset.referrers) return showReferrers(Number(target.dataset.referrers), line._row.segs);
    if (!line) return;
    if (line._gap) return renderPage(line._gap.row, line._gap.shows);
    const row = line._row;
    if (!row) return;
    if (target.classList.contains('twist')) { row.expanded ? collapse(row) : expand(row); }
    select(row);
  });
  ui.tree.addEventListener('dblclick', (e) => {
    const line = e.target.closest('.row');
    if (!line || !line._row) return;
    const row = line._row;
    if (isLeaf(row.value)) beginEdit(row); else (row.expanded ? collapse(row) : expand(row));
  });
  ui.tree.tabIndex = 0;
  ui.tree.addEventListener('keydown', (e) => {
    const row = state.selected;
    if (!row || e.target !== ui.tree) return;
    if (e.key === 'ArrowRight') expand(row);
    else if (e.key === 'ArrowLeft') collapse(row);
    else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      // Rows inside a collapsed parent are skipped (closest() reads no layout).
      const rows = [...ui.tree.querySelectorAll('.row')].filter((r) => r._row && !r.closest('.children[hidden]'));
      const next = rows[rows.indexOf(row.el) + (e.key === 'ArrowDown' ? 1 : -1)];
      if (next) { select(next._row); next.scrollIntoView({ block: 'nearest' }); }
    }
    else if (e.key === 'Enter') beginEdit(row);
    else return;
    e.preventDefault();
  });

  ui.back.addEventListener('click', () => history.back());
  ui.forward.addEventListener('click', () => history.forward());
  window.addEventListener('popstate', (e) => {
    // Entries made while another file (or an earlier opening of this one) was open lead nowhere.
    if (e.state && Array.isArray(e.state.segs) && e.state.opened === state.opened && e.state.view === state.viewName && state.root) reveal(e.state.segs);
  });

  let searchTimer = 0;
  ui.search.addEventListener('input', () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => search(ui.search.value), 200);
  });
  ui.search.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter') return;
    clearTimeout(searchTimer);
    // Enter steps through the matches of what the box says; a changed query is searched first.
    if (state.matches.length && state.searched === ui.search.value) step(e.shiftKey ? -1 : 1);
    else search(ui.search.value);
  });
  ui.searchNext.addEventListener('click', () => step(1));
  ui.searchPrev.addEventListener('click', () => step(-1));

  ui.viewReadable.addEventListener('click', () => switchView('readable'));
  ui.viewRaw.addEventListener('click', () => switchView('raw'));
  ui.downloadJSON.addEventListener('click', downloadJSON);
  ui.downloadArchive.addEventListener('click', downloadArchive);
  ui.copyPath.addEventListener('click', async () => {
    const text = ui.selectionPath.textContent;
    try {
      await navigator.clipboard.writeText(text);
      ui.selectionNote.textContent = 'path copied';
    } catch (_) {
      const range = document.createRange();
      range.selectNodeContents(ui.selectionPath);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      ui.selectionNote.textContent = 'path selected: press Ctrl+C';
    }
  });
  ui.editValue.addEventListener('click', () => { if (state.selected) beginEdit(state.selected); });
  ui.showReferrers.addEventListener('click', () => {
    const v = state.selected && state.selected.value;
    if (isObject(v) && typeof v.$id === 'number') showReferrers(v.$id, state.selected.segs);
  });
})();
